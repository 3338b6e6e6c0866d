package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWine checks the detection against what the runner knows: .ci/wine sets
// CTXGUARD_UNDER_WINE=1 for the binaries it runs under Wine.
func TestWine(t *testing.T) {
	want := os.Getenv("CTXGUARD_UNDER_WINE") == "1"
	if got := Wine(); got != want {
		t.Errorf("Wine() = %v on %s with CTXGUARD_UNDER_WINE=%q", got, runtime.GOOS, os.Getenv("CTXGUARD_UNDER_WINE"))
	}
}

func TestRemoveAll(t *testing.T) {
	dir := filepath.Join(TempDir(t), "tree")
	for _, f := range []string{"a/b/c.txt", "a/d.txt", "e.txt"} {
		path := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("after RemoveAll: %v, want the directory gone", err)
	}
	if err := RemoveAll(dir); err != nil {
		t.Errorf("RemoveAll of a directory that is gone: %v, want nil", err)
	}
}

func TestSymlink(t *testing.T) {
	dir := TempDir(t)
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	Symlink(t, target, link) // skips where there are none: the rest is for where there are
	if got, err := os.ReadFile(link); err != nil || string(got) != "x" {
		t.Errorf("read through the link: %q, %v", got, err)
	}
}

func TestUnreadable(t *testing.T) {
	f := filepath.Join(TempDir(t), "f")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	Unreadable(t, f)
	if data, err := os.ReadFile(f); err == nil {
		t.Errorf("ReadFile = %q, nil; want an error", data)
	}
}
