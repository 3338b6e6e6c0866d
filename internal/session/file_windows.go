package session

import (
	"errors"
	"os"
	"syscall"
)

// open opens a record for reading and, unlike os.Open, lets other processes delete or rename
// over it meanwhile (FILE_SHARE_DELETE), so that a hook reading the session's memory does not
// make another hook's write fail.
func open(name string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	share := uint32(syscall.FILE_SHARE_READ | syscall.FILE_SHARE_WRITE | syscall.FILE_SHARE_DELETE)
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ, share, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// transient reports whether err is Windows saying that another process holds the file for the
// moment: ERROR_ACCESS_DENIED (a rename over a file that is being replaced) or
// ERROR_SHARING_VIOLATION (an open while another process renames over the file).
func transient(err error) bool {
	return errors.Is(err, syscall.ERROR_ACCESS_DENIED) || errors.Is(err, syscall.Errno(32)) // ERROR_SHARING_VIOLATION
}
