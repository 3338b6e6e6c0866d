package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxguard/ctxguard/internal/file"
)

// Failure is the last time a hook could not write the trail, as `ctxguard doctor` shows it.
type Failure struct {
	Time  time.Time `json:"time"`
	Path  string    `json:"path"`
	Error string    `json:"error"`
	// Size is the trail's size just after the failure (-1: there was no file), so that doctor
	// can tell whether a hook has written the trail since by its size alone. Its modification
	// time cannot tell: the file system stamps it from a clock that lags time.Now by up to a
	// tick, so a line written right after the failure can look older than it.
	Size int64 `json:"size"`
}

// Since reports whether the trail, whose size is now size (-1: no file), has been written since
// the failure.
func (f *Failure) Since(size int64) bool { return size >= 0 && size != f.Size }

// maxFailure bounds the note: one path and one error.
const maxFailure = 64 << 10

// NoteFailure records a failure in path (paths.Env.AuditFailure), replacing the one before. It
// is best effort: the folder may be the one that cannot be written.
func NoteFailure(path string, f Failure) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return file.Replace(path, data, 0o600)
}

// LastFailure returns the failure noted in path; nil when none is.
func LastFailure(path string) (*Failure, error) {
	data, err := file.Read(path, maxFailure)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f Failure
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}
