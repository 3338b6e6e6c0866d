package arch

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ctxguard/ctxguard"

// pkg is one package as `go list -json` describes it; the imports are those of its non-test
// files, which are what a program that uses the package links.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Standard   bool
	Module     *struct{ Path string }
}

var graphs = map[string]map[string]*pkg{}

// graph lists the module's packages and everything they import, for one system: some files are
// for one system only, so the edges are checked for each.
func graph(t *testing.T, goos string) map[string]*pkg {
	t.Helper()
	if g, ok := graphs[goos]; ok {
		return g
	}
	if _, err := exec.LookPath("go"); err != nil {
		// The graphs of all three systems are checked wherever the go command runs; a Windows
		// test binary under Wine cannot start it, a Linux program.
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g := map[string]*pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		p := new(pkg)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		g[p.ImportPath] = p
	}
	graphs[goos] = g
	return g
}

var systems = []string{"linux", "darwin", "windows"}

func (p *pkg) own() bool { return p.Module != nil && p.Module.Path == module }

func (p *pkg) thirdParty() bool { return !p.Standard && !p.own() }

// closure is path and every package it imports, directly or not.
func closure(g map[string]*pkg, path string) []*pkg {
	seen := map[string]bool{}
	var out []*pkg
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		q := g[p]
		if q == nil {
			return
		}
		out = append(out, q)
		for _, i := range q.Imports {
			walk(i)
		}
	}
	walk(path)
	return out
}

// noIO are the standard packages through which a package reaches the file system, the network
// or other processes. The standard library's own packages may use them (fmt imports os, to
// print to the standard streams); what is checked is that no package of this module in the
// closure does, and that no third-party library is in it at all.
var noIO = []string{"embed", "io/fs", "io/ioutil", "net", "net/http", "os", "os/exec", "os/signal", "os/user", "syscall"}

// lexical are the functions of path/filepath that only compute on names and touch no file.
var lexical = []string{"Base", "Clean", "Dir", "Ext", "FromSlash", "IsAbs", "IsLocal", "Join", "Localize", "Match", "Rel", "Separator", "ListSeparator", "Split", "SplitList", "ToSlash", "VolumeName"}

// TestPureEngine keeps the decision engine and the provider model free of I/O: rules imports
// the standard library and spec, nothing else of the module and no third-party library (so no
// gjson and no YAML), and neither of them reads files, not even through path/filepath.
func TestPureEngine(t *testing.T) {
	for _, goos := range systems {
		g := graph(t, goos)
		for _, root := range []string{module + "/rules", module + "/spec"} {
			for _, p := range closure(g, root) {
				switch {
				case p.thirdParty():
					t.Errorf("%s (%s): %s imports the third-party %s", root, goos, root, p.ImportPath)
				case p.own() && p.ImportPath != module+"/spec" && p.ImportPath != module+"/rules":
					t.Errorf("%s (%s): imports %s; the engine imports spec only", root, goos, p.ImportPath)
				case p.own():
					for _, i := range p.Imports {
						if slices.Contains(noIO, i) {
							t.Errorf("%s (%s): %s imports %s, which does I/O", root, goos, p.ImportPath, i)
						}
					}
					checkFilepath(t, p)
				}
			}
		}
	}
}

// checkFilepath fails for every use of a path/filepath function that touches the file system
// (Abs, EvalSymlinks, Glob, Walk, WalkDir) in p's non-test files.
func checkFilepath(t *testing.T, p *pkg) {
	t.Helper()
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := ""
		for _, im := range f.Imports {
			if im.Path.Value == `"path/filepath"` {
				local = "filepath"
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && !slices.Contains(lexical, sel.Sel.Name) {
				t.Errorf("%s: filepath.%s touches the file system; the engine gets what it needs from its caller", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// TestBuiltinIsData keeps package builtin data only: the embedded files and the functions that
// hand them out, importing nothing of the module, so that the data can be read (and compiled
// into Go by internal/catalog) without pulling in code.
func TestBuiltinIsData(t *testing.T) {
	allowed := []string{"embed", "io/fs"}
	for _, goos := range systems {
		p := graph(t, goos)[module+"/builtin"]
		if p == nil {
			t.Fatal("no package builtin")
		}
		for _, i := range p.Imports {
			if !slices.Contains(allowed, i) {
				t.Errorf("builtin (%s) imports %s; it may import only %v", goos, i, allowed)
			}
		}
	}
}

// owners pins the third-party libraries whose one importer the layout names: YAML is decoded
// in codec alone, state files are queried with gjson in providers alone.
var owners = map[string]string{
	"go.yaml.in/yaml/v3":       module + "/internal/codec",
	"github.com/tidwall/gjson": module + "/providers",
}

// TestOneImporterPerLibrary keeps each third-party library (a module) behind one package of
// ctxguard, so that replacing it, or moving to its next major version, is one package to change.
// Tests may use their own (go-cmp, testscript); only what the programs link counts.
func TestOneImporterPerLibrary(t *testing.T) {
	for _, goos := range systems {
		g := graph(t, goos)
		importers := map[string][]string{} // module path -> importing packages
		for _, p := range g {
			if !p.own() {
				continue
			}
			for _, i := range p.Imports {
				if q := g[i]; q != nil && q.thirdParty() && q.Module != nil {
					if !slices.Contains(importers[q.Module.Path], p.ImportPath) {
						importers[q.Module.Path] = append(importers[q.Module.Path], p.ImportPath)
					}
				}
			}
		}
		for _, lib := range slices.Sorted(maps.Keys(importers)) {
			if by := importers[lib]; len(by) != 1 {
				slices.Sort(by)
				t.Errorf("%s (%s) is imported by %d packages (%s); keep it behind one", lib, goos, len(by), strings.Join(by, ", "))
			}
		}
		for lib, owner := range owners {
			if by := importers[lib]; len(by) != 1 || by[0] != owner {
				t.Errorf("%s (%s) is imported by %v, want %s alone", lib, goos, by, owner)
			}
		}
	}
}
