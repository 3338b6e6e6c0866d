package builtin_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
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

var update = flag.Bool("update", false, "regenerate compiled.go from the YAML files")

// TestCompiled keeps compiled.go equal to the YAML files it comes from.
func TestCompiled(t *testing.T) {
	specs, err := providers.Load(builtin.Providers(), "builtin:providers")
	if err != nil {
		t.Fatal(err)
	}
	writers, err := policy.ParseWriters(builtin.Protect(), "builtin:protect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := compile(specs, writers)
	if *update {
		if err := os.WriteFile("compiled.go", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("compiled.go")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatal("compiled.go is out of date with providers/*.yaml: run go test ./builtin -update")
	}
	if !reflect.DeepEqual(builtin.Specs(), specs) || !reflect.DeepEqual(builtin.Writers(), writers) {
		t.Fatal("builtin.Specs() or Writers() differs from the YAML files: run go test ./builtin -update")
	}
}

// compile writes the specs and the writers as a Go source file of composite literals.
func compile(specs []*spec.Spec, writers []rules.Writer) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by go test ./builtin -update from providers/*.yaml and protect.yaml; DO NOT EDIT.\n\n")
	b.WriteString("package builtin\n\nimport (\n\"github.com/ctxguard/ctxguard/rules\"\n\"github.com/ctxguard/ctxguard/spec\"\n)\n\n")
	b.WriteString("// specs are the built-in providers, decoded from providers/*.yaml ahead of time: a hook run\n")
	b.WriteString("// starts with them in memory instead of parsing YAML (or JSON) on every command.\n")
	b.WriteString("var specs = []*spec.Spec{\n")
	for _, s := range specs {
		b.WriteString("\t")
		literal(&b, reflect.ValueOf(s))
		b.WriteString(",\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// writers are protect.yaml, decoded ahead of time for the same reason.\n")
	b.WriteString("var writers = ")
	literal(&b, reflect.ValueOf(writers))
	b.WriteString("\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		panic(err)
	}
	return out
}

// literal writes v as a Go expression, leaving out zero fields.
func literal(b *bytes.Buffer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		b.WriteString("&")
		literal(b, v.Elem())
	case reflect.Struct:
		fmt.Fprintf(b, "%s{", typeName(v.Type()))
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).IsZero() {
				continue
			}
			fmt.Fprintf(b, "%s: ", v.Type().Field(i).Name)
			literal(b, v.Field(i))
			b.WriteString(", ")
		}
		b.WriteString("}")
	case reflect.Slice:
		fmt.Fprintf(b, "%s{", typeName(v.Type()))
		for i := 0; i < v.Len(); i++ {
			literal(b, v.Index(i))
			b.WriteString(", ")
		}
		b.WriteString("}")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	case reflect.Bool:
		fmt.Fprintf(b, "%t", v.Bool())
	case reflect.Int:
		fmt.Fprintf(b, "%d", v.Int())
	default:
		panic("builtin: cannot write a " + v.Kind().String())
	}
}

func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Slice && t.Name() == "" {
		return "[]" + typeName(t.Elem())
	}
	if t.Kind() == reflect.Pointer {
		return "*" + typeName(t.Elem())
	}
	if t.PkgPath() == "" {
		return t.Name()
	}
	return path.Base(t.PkgPath()) + "." + t.Name()
}
