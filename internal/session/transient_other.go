//go:build !windows

package session

// transient reports whether err may go away if the operation is tried again: never on a system
// where a rename replaces a file that others have open.
func transient(error) bool { return false }
