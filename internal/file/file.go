// Package file opens the files ctxguard reads and writes for itself (policies, provider files,
// the CLIs' state, the audit trail, locks, lifts, session memory, the policy cache) so that none
// of them can make it wait. An agent can put a named pipe where the hook expects a file, and
// opening a named pipe waits for the other end; a hook that waits is timed out by its harness,
// which then lets the call through. So a path is checked to be a regular file before it is
// opened (opening a device can have effects of its own), opened without waiting (O_NONBLOCK on
// Unix), checked again on the open file (it may have been swapped meanwhile), and read up to a
// bound. Symlinks are followed: a policy linked from a dotfiles repository is still the user's
// policy; what the link names must be a regular file.
//
// On Windows a file is opened for reading with FILE_SHARE_DELETE, so that a hook reading it never
// makes another process's rename over it fail, and [Replace] tries its rename again for a moment
// when another process has the file open.
package file

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Read returns the content of the regular file at path, which must hold at most max bytes.
func Read(path string, max int64) ([]byte, error) {
	f, fi, err := checked(path, Regular, func() (*os.File, error) { return open(path, os.O_RDONLY, 0) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: tooLarge(max)}
	}
	// The file may have grown since: read one byte past the bound to see it.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: tooLarge(max)}
	}
	return data, nil
}

// Open opens the regular file at path with flag (os.O_RDONLY, os.O_WRONLY|os.O_APPEND|
// os.O_CREATE, …), creating it with perm when flag says so. It fails, without waiting, when path
// names anything but a regular file.
func Open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, _, err := checked(path, Regular, func() (*os.File, error) { return open(path, flag, perm) })
	return f, err
}

// checked opens path with do when kind accepts what is there, before and after the open: before,
// because opening a device can have effects of its own; after, because the path may name
// something else by then. It returns what the open file is.
func checked(path string, kind func(fs.FileInfo) error, do func() (*os.File, error)) (*os.File, fs.FileInfo, error) {
	if fi, err := os.Stat(path); err == nil {
		if err := kind(fi); err != nil {
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
	f, err := do()
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = kind(fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, fi, nil
}

// ReadDir lists the directory at path, sorted by name, without waiting on whatever stands there
// instead of a directory.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := openDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// FS is the tree at dir as an fs.FS whose files are read as [Read] reads them, at most max
// bytes each.
func FS(dir string, max int64) fs.FS { return tree{dir, max} }

type tree struct {
	dir string
	max int64
}

func (t tree) path(op, name string) (string, error) {
	local, err := filepath.Localize(name)
	if err != nil {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(t.dir, local), nil
}

// Open opens a regular file or a directory.
func (t tree) Open(name string) (fs.File, error) {
	p, err := t.path("open", name)
	if err != nil {
		return nil, err
	}
	var f *os.File
	if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
		f, err = openDir(p)
	} else {
		f, err = Open(p, os.O_RDONLY, 0)
	}
	if err != nil {
		return nil, relative(err, name)
	}
	return f, nil
}

func (t tree) ReadFile(name string) ([]byte, error) {
	p, err := t.path("read", name)
	if err != nil {
		return nil, err
	}
	data, err := Read(p, t.max)
	return data, relative(err, name)
}

func (t tree) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := t.path("readdir", name)
	if err != nil {
		return nil, err
	}
	ents, err := ReadDir(p)
	return ents, relative(err, name)
}

// relative names a file in an error by its name in the tree, as os.DirFS does: the caller
// names the tree.
func relative(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = name
	}
	return err
}

func openDir(path string) (*os.File, error) {
	f, _, err := checked(path, directory, func() (*os.File, error) { return os.OpenFile(path, os.O_RDONLY|nonblock, 0) })
	return f, err
}

func directory(fi fs.FileInfo) error {
	if !fi.IsDir() {
		return errors.New("is not a directory")
	}
	return nil
}

// Regular is nil for a regular file and otherwise says what the file is ("is a named pipe, not
// a regular file"), for a caller that has its FileInfo already.
func Regular(fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe, not a regular file")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, not a regular file")
	case m&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file")
	}
	return errors.New("is not a regular file")
}

// tooLarge says that a file is larger than max.
func tooLarge(max int64) error {
	switch {
	case max >= 1<<20 && max%(1<<20) == 0:
		return fmt.Errorf("is larger than %d MiB", max>>20)
	case max >= 1<<10 && max%(1<<10) == 0:
		return fmt.Errorf("is larger than %d KiB", max>>10)
	}
	return fmt.Errorf("is larger than %d bytes", max)
}
