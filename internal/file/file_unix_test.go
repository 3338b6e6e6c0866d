//go:build unix

package file

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

// TestNamedPipe: a named pipe where a file is expected, read, appended to, listed or reached
// through a link, is refused at once instead of waiting for a writer (the test would hang).
func TestNamedPipe(t *testing.T) {
	dir := testenv.TempDir(t)
	fifo := filepath.Join(dir, "policy.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	const want = "is a named pipe, not a regular file"
	for _, p := range []string{fifo, link} {
		if _, err := Read(p, 1<<20); err == nil || !strings.Contains(err.Error(), p+": "+want) {
			t.Errorf("Read(%s): %v, want %q", p, err, want)
		}
		if _, err := Open(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) to append: %v, want %q", p, err, want)
		}
		if _, err := Open(p, os.O_RDWR|os.O_CREATE, 0o600); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) to lock: %v, want %q", p, err, want)
		}
		if _, err := ReadDir(p); err == nil || !strings.Contains(err.Error(), "is not a directory") {
			t.Errorf("ReadDir(%s): %v", p, err)
		}
	}
}

// TestSwapped: the open file is checked, not only the path before the open: a pipe opened where
// a file was a moment before is refused (the open itself does not wait, O_NONBLOCK).
func TestSwapped(t *testing.T) {
	fifo := filepath.Join(testenv.TempDir(t), "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, _, err := checked(fifo, func(os.FileInfo) error { return nil }, func() (*os.File, error) { return open(fifo, os.O_RDONLY, 0) })
	if err != nil {
		t.Fatalf("the open itself: %v", err)
	}
	f.Close()
	_, _, err = checked(fifo, accepting(1), func() (*os.File, error) { return open(fifo, os.O_RDONLY, 0) })
	if err == nil || !strings.Contains(err.Error(), "is a named pipe") {
		t.Errorf("a path that passed the first check and is a pipe when open: %v", err)
	}
}

// accepting accepts the first n files it is shown and then checks as regular does.
func accepting(n int) func(os.FileInfo) error {
	return func(fi os.FileInfo) error {
		if n > 0 {
			n--
			return nil
		}
		return Regular(fi)
	}
}
