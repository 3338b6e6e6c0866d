package arch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchitectureDoc keeps docs/architecture.md, where a reader looks for a behaviour's
// folder, naming every package of the module.
func TestArchitectureDoc(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for path, p := range graph(t, "linux") {
		if !p.own() {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if rel == "" || strings.HasPrefix(rel, "testdata/") {
			continue
		}
		if !strings.Contains(string(doc), "`"+rel+"`") && !strings.Contains(string(doc), "`"+rel+"/`") {
			t.Errorf("docs/architecture.md does not list %s", rel)
		}
	}
}
