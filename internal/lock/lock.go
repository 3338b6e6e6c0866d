// Package lock is an exclusive lock between processes, on a lock file: flock(2) on Unix,
// LockFileEx on Windows. Either is held by the open file and released by the system when the
// process exits, however it exits, so a hook killed while it holds one leaves no stale lock
// behind, which a lock made by creating a file exclusively would.
//
// It is the one importer of golang.org/x/sys: the standard library has flock on Unix but no
// LockFileEx on Windows.
package lock

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ctxguard/ctxguard/internal/file"
)

// errBusy is returned by [Acquire] when another process held the lock for the whole wait.
var errBusy = errors.New("locked by another process")

// poll is how often Acquire tries again while the lock is held.
const poll = time.Millisecond

// Acquire takes the lock on the file at path, creating it (mode 0600) if need be, and waits at
// most wait for a process that holds it. The lock protects what the caller does until it calls
// release; the file itself stays, empty, so that every process locks the same file. Anything but
// a regular file at path (a named pipe an agent put there) is an error, not a wait.
func Acquire(path string, wait time.Duration) (release func(), err error) {
	f, err := file.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		ok, err := try(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, errBusy)
		}
		time.Sleep(poll)
	}
}
