package arch

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
)

// generated is the marker of a generated file (https://go.dev/s/generatedcode).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// TestNoProviderNamesInCode keeps the engine generic: no built-in CLI's name appears in Go code
// outside package builtin, in an identifier or a string, so that adding a CLI is adding a YAML
// file. Comments may mention them, and so may generated files (the built-in YAML compiled into
// Go) and the measurement programs (package main under internal/cmd) that run the real CLIs. It
// fails while someone writes CLI-specific code elsewhere; that is its purpose.
func TestNoProviderNamesInCode(t *testing.T) {
	files, err := fs.Glob(builtin.Providers(), "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, ".yaml")
	}
	word := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	root := moduleRoot(t)
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
		if generated.Match(src) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		file := fset.AddFile(rel, -1, len(src))
		var s scanner.Scanner
		s.Init(file, src, nil, 0) // comments are skipped
		if _, tok, _ := s.Scan(); tok == token.PACKAGE {
			if _, _, pkg := s.Scan(); pkg == "main" && rel != filepath.Join("cmd", "ctxguard", "main.go") {
				// A measurement program (internal/cmd/race, internal/cmd/bench) drives the real
				// CLIs and must name them; the engine is the library packages and ctxguard's own
				// main.
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

// moduleRoot is the directory of go.mod, two levels up from this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}
