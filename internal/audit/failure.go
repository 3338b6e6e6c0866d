package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Failure is the last time a hook could not write the trail, as `ctxguard doctor` shows it.
type Failure struct {
	Time  time.Time `json:"time"`
	Path  string    `json:"path"`
	Error string    `json:"error"`
}

// NoteFailure records a failure in file (paths.Env.AuditFailure), replacing the one before. It
// is best effort: the folder may be the one that cannot be written.
func NoteFailure(file string, f Failure) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".audit-failure-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// LastFailure returns the failure noted in file; nil when none is.
func LastFailure(file string) (*Failure, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f Failure
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &f, nil
}
