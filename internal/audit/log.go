package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/lock"
)

// DefaultMaxSize is the size at which the trail is rotated when the policy sets none.
const DefaultMaxSize = 10 << 20

// rotateWait bounds how long a hook waits for another one that is rotating the trail: rotating
// is a rename, microseconds; past this the line goes to the file as it is.
const rotateWait = 50 * time.Millisecond

// Log is the trail's file and the size it is rotated at.
type Log struct {
	Path    string
	MaxSize int64 // DefaultMaxSize when 0
}

// Old is the rotated file: the trail as it was before the last rotation.
func (l Log) Old() string { return l.Path + ".1" }

// Append writes e, as given (a [Redactor] has made it fit to keep), as one line. The line is built first and written with a single write on a
// file opened with O_APPEND, so that lines of hooks running at the same time never interleave;
// the file and its folder are created private (0600, 0700). When the line would take the file
// past MaxSize, the file is first renamed to [Log.Old], replacing the one before (so the trail
// keeps at most two files), under a lock so that two hooks never both rotate.
func (l Log) Append(e *Entry) error {
	line, err := marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return fmt.Errorf("audit trail %s: %w", l.Path, err)
	}
	f, err := l.open()
	if err != nil {
		return err
	}
	if f, err = l.rotate(f, int64(len(line))); err != nil {
		return err
	}
	n, err := f.Write(line)
	if err == nil && n < len(line) {
		err = fmt.Errorf("short write (%d of %d bytes)", n, len(line))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audit trail %s: %w", l.Path, err)
	}
	return nil
}

func (l Log) open() (*os.File, error) {
	f, err := file.Open(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit trail: %w", err)
	}
	return f, nil
}

// Limit is the size at which the trail is rotated: MaxSize, or DefaultMaxSize when it is not set.
func (l Log) Limit() int64 {
	if l.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return l.MaxSize
}

// rotate returns the file to write a line of n bytes to: f, or a new file when f was full. A
// hook that still writes to the old file after another has renamed it adds its line there,
// which is kept.
func (l Log) rotate(f *os.File, n int64) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 || fi.Size()+n <= l.Limit() {
		return f, nil // an empty file takes the line, however long
	}
	release, err := lock.Acquire(l.Path+".lock", rotateWait)
	if err != nil {
		return f, nil // another hook is rotating, or the lock cannot be had: append here
	}
	defer release()
	// Under the lock, the file at Path is the one f has open only if no other hook rotated it
	// since f was opened.
	cur, err := os.Stat(l.Path)
	// Windows cannot rename a file while any handle to it is open (Go opens files without
	// FILE_SHARE_DELETE), this hook's own included, so f is closed first. When another hook
	// has the file open the rename fails there; the line goes to the full file, and a later
	// hook rotates it.
	f.Close()
	if err == nil && os.SameFile(cur, fi) {
		os.Rename(l.Path, l.Old())
	}
	return l.open()
}

// marshal encodes e as one line.
func marshal(e *Entry) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("audit trail: %w", err)
	}
	return b.Bytes(), nil // Encode ends the line with \n
}
