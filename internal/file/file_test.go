package file

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	dir := testenv.TempDir(t)
	f := filepath.Join(dir, "policy.yaml")
	write(t, f, "version: 1\n")
	if got, err := Read(f, 11); err != nil || string(got) != "version: 1\n" {
		t.Errorf("Read at its bound = %q, %v", got, err)
	}
	_, err := Read(f, 10)
	if err == nil || !strings.Contains(err.Error(), f+": is larger than 10 bytes") {
		t.Errorf("Read past its bound: %v, want an error naming the file and its bound", err)
	}
	if _, err := Read(dir, 1<<20); err == nil || !strings.Contains(err.Error(), dir+": is a directory") {
		t.Errorf("Read of a folder: %v, want it named as a directory", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want ErrNotExist", err)
	}
	if runtime.GOOS == "linux" {
		if _, err := Read("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "is a device, not a regular file") {
			t.Errorf("Read of /dev/zero: %v, want a device refused", err)
		}
	}
}

func TestOpenCreates(t *testing.T) {
	f := filepath.Join(testenv.TempDir(t), "audit.jsonl")
	for range 2 {
		w, err := Open(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteString("x\n"); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	if got, err := os.ReadFile(f); err != nil || string(got) != "x\nx\n" {
		t.Errorf("after two appends: %q, %v", got, err)
	}
	if _, err := Open(filepath.Dir(f), os.O_WRONLY|os.O_APPEND, 0); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Open of a folder to append: %v, want it refused", err)
	}
}

func TestReadDir(t *testing.T) {
	dir := testenv.TempDir(t)
	for _, n := range []string{"b.yaml", "a.yaml", "c.txt"} {
		write(t, filepath.Join(dir, n), n)
	}
	ents, err := ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, " ") != "a.yaml b.yaml c.txt" {
		t.Errorf("ReadDir = %v, %v; want the names sorted", names, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "a.yaml")); err == nil || !strings.Contains(err.Error(), "a.yaml: is not a directory") {
		t.Errorf("ReadDir of a file: %v", err)
	}
}

// TestFS: the tree behaves as an fs.FS should (testing/fstest checks every method against the
// others), and it reads with Read's bound.
func TestFS(t *testing.T) {
	dir := testenv.TempDir(t)
	write(t, filepath.Join(dir, "az.yaml"), "name: az\n")
	write(t, filepath.Join(dir, "sub", "x.yaml"), "name: x\n")
	fsys := FS(dir, 64)
	if err := fstest.TestFS(fsys, "az.yaml", "sub/x.yaml"); err != nil {
		t.Fatal(err)
	}
	if names, err := fs.Glob(fsys, "*.yaml"); err != nil || len(names) != 1 || names[0] != "az.yaml" {
		t.Errorf("Glob = %v, %v", names, err)
	}
	write(t, filepath.Join(dir, "big.yaml"), strings.Repeat("x", 65))
	if _, err := fs.ReadFile(fsys, "big.yaml"); err == nil || !strings.Contains(err.Error(), "big.yaml: is larger than") {
		t.Errorf("ReadFile past the bound: %v", err)
	}
	if _, err := fs.ReadFile(fsys, "../az.yaml"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadFile outside the tree: %v, want ErrInvalid", err)
	}
}

func TestReplace(t *testing.T) {
	dir := testenv.TempDir(t)
	f := filepath.Join(dir, "lifts.json")
	for _, content := range []string{"one\n", "two\n"} {
		if err := Replace(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(f); err != nil || string(got) != content {
			t.Errorf("after Replace(%q): %q, %v", content, got, err)
		}
	}
	if runtime.GOOS != "windows" {
		for _, perm := range []fs.FileMode{0o600, 0o644} {
			if err := Replace(f, nil, perm); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != perm {
				t.Errorf("Replace with %v: %v, %v", perm, fi.Mode(), err)
			}
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the folder holds %v, want the file alone", ents)
	}
	if err := Replace(filepath.Join(dir, "none", "x"), nil, 0o600); err == nil {
		t.Error("Replace in a missing folder succeeded")
	}
}

// TestReplaceWhileRead: a file that a reader has open is replaced all the same, and the reader
// reads the old content to its end (on Windows: the reader shares delete access).
func TestReplaceWhileRead(t *testing.T) {
	if testenv.Wine() {
		t.Skip("Wine 8 does not rename over a file that another handle has open (it lacks FILE_RENAME_POSIX_SEMANTICS); Windows 10 and later do")
	}
	f := filepath.Join(testenv.TempDir(t), "s.json")
	write(t, f, "old\n")
	r, err := Open(f, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Replace(f, []byte("new\n"), 0o600); err != nil {
		t.Fatalf("Replace while the file is open to read: %v", err)
	}
	var old bytes.Buffer
	if _, err := old.ReadFrom(r); err != nil || old.String() != "old\n" {
		t.Errorf("the reader read %q, %v", old.String(), err)
	}
	if got, err := Read(f, 10); err != nil || string(got) != "new\n" {
		t.Errorf("after Replace: %q, %v", got, err)
	}
}
