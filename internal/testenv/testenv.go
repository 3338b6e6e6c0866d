// Package testenv holds what the tests need to run the same on Linux, macOS, Windows and under
// Wine, where this repository's CI runs the Windows test binaries.
package testenv

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TempDir is t.TempDir, whose cleanup also works under Wine.
//
// Go's os.RemoveAll deletes files through a handle with POSIX delete semantics
// (FILE_DISPOSITION_POSIX_SEMANTICS), which Wine 8 does not implement: the call fails with
// ERROR_INVALID_FUNCTION ("Invalid function.") and t.TempDir fails the test that used it. Under
// Wine, and for that error only, the directory is removed again one entry at a time with
// os.Remove (DeleteFile and RemoveDirectory), before t.TempDir's own cleanup runs; any other
// error fails the test as t.TempDir would.
func TempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if Wine() {
		// Cleanups run last-registered first, so this one runs before t.TempDir's.
		t.Cleanup(func() {
			if err := RemoveAll(dir); err != nil {
				t.Errorf("TempDir cleanup: %v", err)
			}
		})
	}
	return dir
}

// RemoveAll is os.RemoveAll, except that under Wine a failure with ERROR_INVALID_FUNCTION is
// retried one entry at a time, deepest first (see TempDir).
func RemoveAll(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil || !Wine() || !errors.Is(err, errInvalidFunction) {
		return err
	}
	var paths []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, path)
		return nil
	})
	if err != nil {
		return err
	}
	// WalkDir visits a directory before what it holds: removing in reverse order empties
	// each directory before it is removed.
	for _, path := range slices.Backward(paths) {
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	return nil
}
