package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoTestingTempDir keeps every test runnable under Wine, where the Windows test binaries run
// in CI (.ci/wine): testing's TempDir removes its folder with os.RemoveAll, which fails there
// with "Invalid function" and fails the test after it passed. Tests take their folders from
// testenv.TempDir, which is t.TempDir with a cleanup that works under Wine; only package testenv
// itself calls TempDir on a testing.TB.
func TestNoTestingTempDir(t *testing.T) {
	root := moduleRoot(t)
	own := filepath.Join(root, "internal", "testenv")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor" || path == own) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "TempDir" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "testenv" {
				return true
			}
			rel, _ := filepath.Rel(root, path)
			pos := fset.Position(call.Pos())
			t.Errorf("%s:%d: %s.TempDir() fails under Wine when it cleans up: use testenv.TempDir(%[3]s)", rel, pos.Line, exprName(sel.X))
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exprName is the receiver of a call as written, for the message: t, b, s.t.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	}
	return "t"
}
