//go:build !windows

package session

import "os"

// open opens a record for reading; a rename over it by another process does not disturb either.
func open(name string) (*os.File, error) { return os.Open(name) }

// transient reports whether err may go away if the operation is tried again: never on a system
// where a rename replaces a file that others have open.
func transient(error) bool { return false }
