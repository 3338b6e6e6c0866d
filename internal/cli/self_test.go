package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

// TestWriteFile checks that a settings file reached through a symlink (a dotfiles repository)
// is written where the link points, the link stays a link, and the file's mode is kept.
func TestWriteFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir := testenv.TempDir(t)
	real := filepath.Join(dir, "dotfiles", "settings.json")
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	for _, d := range []string{filepath.Dir(real), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(real, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(link, []byte(`{"a": 1}`+"\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(real)
	if string(data) != `{"a": 1}`+"\n" {
		t.Errorf("target = %q", data)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(real))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}

	fresh := filepath.Join(dir, "new", "deep", "hooks.json")
	if err := writeFile(fresh, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file: %v, %v", fi, err)
	}
}

func TestProjectRoot(t *testing.T) {
	dir := testenv.TempDir(t)
	repo := filepath.Join(dir, "repo")
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(dir, "loose")
	if err := os.MkdirAll(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	// A worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := projectRoot(deep); got != repo {
		t.Errorf("projectRoot(%s) = %s, want %s", deep, got, repo)
	}
	if got := projectRoot(loose); got != loose {
		t.Errorf("projectRoot(%s) = %s, want itself", loose, got)
	}
}
