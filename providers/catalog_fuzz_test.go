package providers

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzScanHeader checks the Catalog's promise: whenever the line scan reads a header and the
// file parses, both agree, so a lazily parsed provider is never missed for a command.
func FuzzScanHeader(f *testing.F) {
	files, _ := filepath.Glob("../builtin/providers/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: a\ncommands: [x, y]\nswitched_by:\n  - o p\ncontext: {read: [{env: X}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, ok := scanHeader(data)
		s, err := Parse(data, "f.yaml")
		if !ok || err != nil {
			return
		}
		if s.Name != h.name || !slices.Equal(s.Commands, h.commands) || !slices.Equal(s.SwitchedBy, h.switchedBy) {
			t.Errorf("scan %+v, parse name %q commands %q switched_by %q", h, s.Name, s.Commands, s.SwitchedBy)
		}
	})
}
