package session

import (
	"errors"
	"syscall"
)

// transient reports whether err is Windows saying that another process holds the file for the
// moment: ERROR_ACCESS_DENIED (a rename over a file open elsewhere) or ERROR_SHARING_VIOLATION
// (an open during another process's rename).
func transient(err error) bool {
	return errors.Is(err, syscall.ERROR_ACCESS_DENIED) || errors.Is(err, syscall.Errno(32)) // ERROR_SHARING_VIOLATION
}
