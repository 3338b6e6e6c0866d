package file

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// TempPrefix starts the name of the temporary file [Replace] writes next to its target: a hook
// killed between the write and the rename leaves one behind, which a folder's housekeeping may
// remove by this name.
const TempPrefix = ".tmp-"

// Replace replaces the file at path with data, with the permissions perm: data goes to a new file
// in the same folder, which is then renamed over path, so that a reader (another hook, a harness
// reading its settings) sees the old file or the new one, never a part of either. The folder
// must exist.
//
// On Windows the rename replaces a file that readers have open (see rename), and a rename that
// meets another process renaming over the same file, or a reader that did not share delete
// access, fails for that moment (ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION): it is then tried
// again for a moment (see retry).
func Replace(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = retry(func() error { return rename(tmp.Name(), path) }, busy)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// retryFor bounds how long retry tries again.
const retryFor = 180 * time.Millisecond

// retry runs op again while again says that its error may go away, for at most retryFor, a
// random 1–4 ms apart: the moment another process holds the file lasts microseconds, and tries
// at random times do not keep meeting a process that reads it in a loop.
func retry(op func() error, again func(error) bool) error {
	err := op()
	for end := time.Now().Add(retryFor); err != nil && again(err) && time.Now().Before(end); {
		time.Sleep(time.Millisecond + rand.N(3*time.Millisecond))
		err = op()
	}
	return err
}
