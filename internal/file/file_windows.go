package file

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// nonblock is nothing on Windows, where a named pipe lives in its own namespace (\\.\pipe\),
// not where a file is expected.
const nonblock = 0

// errSharingViolation is ERROR_SHARING_VIOLATION, which package syscall does not name.
const errSharingViolation = syscall.Errno(32)

// open opens a file to read with FILE_SHARE_DELETE, unlike os.Open, so that other processes may
// delete it or rename over it meanwhile; other opens are os.OpenFile's. An open that meets
// another process's rename of the file fails with a sharing violation for that moment, and is
// tried again.
func open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if flag != os.O_RDONLY {
		return os.OpenFile(path, flag, perm)
	}
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	share := uint32(syscall.FILE_SHARE_READ | syscall.FILE_SHARE_WRITE | syscall.FILE_SHARE_DELETE)
	var h syscall.Handle
	err = retry(func() (err error) {
		h, err = syscall.CreateFile(p, syscall.GENERIC_READ, share, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
		return err
	}, func(err error) bool { return errors.Is(err, errSharingViolation) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// busy reports whether a rename failed because another process holds the file for the moment:
// ERROR_ACCESS_DENIED (a rename over a file that is being replaced or is open without
// FILE_SHARE_DELETE) or ERROR_SHARING_VIOLATION.
func busy(err error) bool {
	return errors.Is(err, syscall.ERROR_ACCESS_DENIED) || errors.Is(err, errSharingViolation)
}

// rename renames oldpath over newpath, a file in the same folder. os.Rename calls MoveFileEx,
// which fails while any process has newpath open; os.Root's Rename asks for POSIX semantics
// (FILE_RENAME_POSIX_SEMANTICS: "allow replacing a file even if there are existing handles to
// it", https://learn.microsoft.com/windows-hardware/drivers/ddi/ntifs/ns-ntifs-_file_rename_information),
// which replaces a file that readers opened sharing delete access, as [Read] opens them, and
// falls back to the older rename where the file system lacks them.
func rename(oldpath, newpath string) error {
	root, err := os.OpenRoot(filepath.Dir(newpath))
	if err != nil {
		return err
	}
	defer root.Close()
	err = root.Rename(filepath.Base(oldpath), filepath.Base(newpath))
	var le *os.LinkError
	if errors.As(err, &le) {
		le.Old, le.New = oldpath, newpath
	}
	return err
}
