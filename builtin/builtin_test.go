package builtin_test

import (
	"bytes"
	"flag"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/providers"
)

// core are the providers ctxguard must ship; more may be added as YAML files alone.
var core = []string{"az", "gcloud", "gh", "kubectl", "pac", "terraform"}

// names lists the built-in providers from the embedded files.
func names(t *testing.T) []string {
	t.Helper()
	files, err := fs.Glob(builtin.Providers(), "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = strings.TrimSuffix(f, ".yaml")
	}
	return out
}

func TestProvidersParse(t *testing.T) {
	files, err := fs.Glob(builtin.FS(), "providers/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		data, err := fs.ReadFile(builtin.FS(), f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := providers.Parse(data, "builtin:"+f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".yaml"); s.Name != want {
			t.Errorf("%s: name %q, want the file's name %q", f, s.Name, want)
		}
		if !strings.HasPrefix(string(data), "#") {
			t.Errorf("%s: no header comment saying what the provider reads and where the facts come from", f)
		}
		got = append(got, s.Name)
	}
	for _, n := range core {
		if !slices.Contains(got, n) {
			t.Errorf("built-in provider %s is missing", n)
		}
	}
}

func TestLoad(t *testing.T) {
	specs, err := providers.Load(builtin.Providers(), "builtin:providers")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.Name] {
			t.Errorf("provider %s defined twice", s.Name)
		}
		seen[s.Name] = true
		if want := "builtin:providers/" + s.Name + ".yaml"; s.Source != want {
			t.Errorf("Source = %q, want %q", s.Source, want)
		}
		for _, d := range s.Destructive {
			if len(d.Why) < 20 {
				t.Errorf("%s: destructive %q: why %q is too short to tell an agent anything", s.Name, d.Match, d.Why)
			}
		}
	}
}

// TestNoProviderNamesInCode keeps the engine generic (design.md, principle 1): no built-in CLI's
// name appears in Go code outside this package, in an identifier or a string. Comments may
// mention them, and so may the measurement programs (package main under internal/) that run the
// real CLIs. It fails while someone writes CLI-specific code elsewhere; that is its purpose.
func TestNoProviderNamesInCode(t *testing.T) {
	word := regexp.MustCompile(`\b(` + strings.Join(names(t), "|") + `)\b`)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "vendor" || path == filepath.Join(root, "builtin")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		file := fset.AddFile(rel, -1, len(src))
		var s scanner.Scanner
		s.Init(file, src, nil, 0) // comments are skipped
		if _, tok, _ := s.Scan(); tok == token.PACKAGE {
			if _, _, pkg := s.Scan(); pkg == "main" && rel != filepath.Join("cmd", "ctxguard", "main.go") {
				// A measurement program (internal/race, internal/bench) drives the real CLIs and
				// must name them; the engine is the library packages and ctxguard's own main.
				return nil
			}
		}
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.IDENT && tok != token.STRING && tok != token.CHAR {
				continue
			}
			if m := word.FindString(lit); m != "" {
				t.Errorf("%s: %q names the built-in provider %s; keep CLI facts in builtin/providers/%s.yaml",
					fset.Position(pos), lit, m, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var update = flag.Bool("update", false, "regenerate compiled/ from the YAML files")

// TestCompiled keeps the compiled providers equal to the YAML files they come from.
func TestCompiled(t *testing.T) {
	specs, err := providers.Load(builtin.Providers(), "builtin:providers")
	if err != nil {
		t.Fatal(err)
	}
	want, err := providers.Compile(specs)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		old, _ := filepath.Glob(filepath.Join("compiled", "*.json"))
		for _, f := range old {
			os.Remove(f)
		}
		for name, data := range want {
			if err := os.WriteFile(filepath.Join("compiled", name), append(data, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	got, _ := fs.Glob(builtin.Compiled(), "*.json")
	if len(got) != len(want) {
		t.Fatalf("compiled/ has %d files, want %d: run go test ./builtin -update", len(got), len(want))
	}
	for name, data := range want {
		have, err := fs.ReadFile(builtin.Compiled(), name)
		if err != nil || !bytes.Equal(bytes.TrimSpace(have), data) {
			t.Fatalf("compiled/%s is out of date with providers/*.yaml: run go test ./builtin -update", name)
		}
	}
}
