package diff

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"add at end", "{\n  \"a\": 1\n}\n", "{\n  \"a\": 1,\n  \"b\": 2\n}\n",
			"--- old\n+++ new\n@@ -1,3 +1,4 @@\n {\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n }\n"},
		{"new file", "", "x\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n"},
		{"no newline at end", "a", "b", "--- old\n+++ new\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\n12\n",
			"--- old\n+++ new\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unified("old", "new", []byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("Unified:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestPatch checks random diffs with patch(1), where it is installed: applying the diff to a
// must give b.
func TestPatch(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not installed")
	}
	r := rand.New(rand.NewSource(1))
	words := []string{"a\n", "b\n", "c\n", "{\n", "}\n", "  \"x\": 1,\n"}
	gen := func() string {
		var b strings.Builder
		for range r.Intn(30) {
			b.WriteString(words[r.Intn(len(words))])
		}
		return b.String()
	}
	dir := t.TempDir()
	for i := range 200 {
		a, b := gen(), gen()
		d := Unified("f", "f", []byte(a), []byte(b))
		if d == "" {
			continue
		}
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "-s", f)
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch: %v\n%s\ndiff:\n%s", i, err, out, d)
		}
		got, _ := os.ReadFile(f)
		if string(got) != b {
			t.Fatalf("case %d: patched %q, want %q\ndiff:\n%s", i, got, b, d)
		}
	}
}
