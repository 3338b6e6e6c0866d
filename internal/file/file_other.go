//go:build !windows

package file

import (
	"io/fs"
	"os"
	"syscall"
)

// nonblock makes open(2) return at once on a named pipe that has no other end, where it would
// wait (POSIX open: "If O_NONBLOCK is set, an open() for reading-only shall return without
// delay"; for writing-only it fails with ENXIO); on a regular file it changes nothing.
const nonblock = syscall.O_NONBLOCK

func open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|nonblock, perm)
}

// busy reports whether a rename failed only for the moment: never, where a rename replaces a
// file that others have open.
func busy(error) bool { return false }

func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
