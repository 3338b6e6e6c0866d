package testenv

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Symlinks reports whether this system makes symbolic links. Windows makes them only with
// Developer Mode on or as an administrator; Wine 8's CreateSymbolicLink reports success and
// makes nothing, so the test is whether a link made here can be read back.
var Symlinks = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "ctxguard-symlink-")
	if err != nil {
		return false
	}
	defer RemoveAll(dir)
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if os.WriteFile(target, nil, 0o644) != nil || os.Symlink(target, link) != nil {
		return false
	}
	fi, err := os.Lstat(link)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
})

// Symlink makes link a symbolic link to target, or skips the test where the system makes
// none (see [Symlinks]).
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	if !Symlinks() {
		t.Skip("this system makes no symbolic links (Windows without Developer Mode, Wine 8)")
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
