package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/rules"
)

// TTL is how long a remembered switch counts. Agent sessions are resumed days later; a week
// keeps those, and lets a session that is never resumed be forgotten.
const TTL = 7 * 24 * time.Hour

const (
	version = 1
	// maxEntries bounds one provider's entries in one session (one per state it switched:
	// terraform directories, kubeconfig files); the oldest go first.
	maxEntries = 32
	// maxFile bounds what is read: the file is small, and anything larger is not ours.
	maxFile = 256 << 10
	// pruneEvery is how often a write also looks for expired files.
	pruneEvery = 24 * time.Hour
	pruneMark  = ".pruned"
	tmpPrefix  = ".tmp-"
)

// Entry is one remembered switch and when it was let through.
type Entry struct {
	rules.Switched
	At time.Time `json:"at"`
}

// record is one file: a session's entries for one provider, newest first.
type record struct {
	Version  int     `json:"version"`
	Provider string  `json:"provider"`
	Entries  []Entry `json:"entries"`
}

// Store is the memory of every session, in one directory.
type Store struct {
	Dir string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// file names a session's file for one provider. The session id is hashed so that it cannot
// name another path, and so that the directory does not list the ids. Provider names are
// lowercase letters, digits and dashes (the provider schema checks them).
func (s *Store) file(sessionID, provider string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:])+"."+provider+".json")
}

// Recall returns the unexpired switches remembered for the session and provider, newest first.
// No file is no memory, not an error; a file that cannot be used is an error that names it.
func (s *Store) Recall(sessionID, provider string) ([]Entry, error) {
	if sessionID == "" {
		return nil, nil
	}
	f := s.file(sessionID, provider)
	rec, err := read(f)
	if err != nil || rec == nil {
		return nil, err
	}
	if rec.Version != version || rec.Provider != provider {
		return nil, fmt.Errorf("session memory %s: written for version %d of provider %q, want version %d of %q", f, rec.Version, rec.Provider, version, provider)
	}
	return s.fresh(rec.Entries), nil
}

// Find returns the newest entry for the scope.
func Find(entries []Entry, scope string) (rules.Switched, bool) {
	for _, e := range entries {
		if e.Scope == scope {
			return e.Switched, true
		}
	}
	return rules.Switched{}, false
}

// read reads one record; nil without an error when the file does not exist.
func read(f string) (*record, error) {
	fi, err := os.Lstat(f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("session memory: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("session memory %s: not a regular file", f)
	}
	var fh *os.File
	err = retry(func() (err error) { fh, err = open(f); return err })
	if err != nil {
		return nil, fmt.Errorf("session memory: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("session memory: %w", err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("session memory %s: larger than %d KiB", f, maxFile>>10)
	}
	var rec record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("session memory %s: %w", f, err)
	}
	return &rec, nil
}

// fresh drops the entries that have expired.
func (s *Store) fresh(entries []Entry) []Entry {
	cut := s.now().Add(-TTL)
	out := entries[:0:0]
	for _, e := range entries {
		if e.At.After(cut) {
			out = append(out, e)
		}
	}
	return out
}

// Remember records the switches of one command line for the session, in the order they ran:
// each replaces what the session remembered for the same provider and scope. A file that cannot
// be read is replaced.
func (s *Store) Remember(sessionID string, switches []rules.Switched) error {
	if sessionID == "" || len(switches) == 0 {
		return nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("remember switch: %w", err)
	}
	now := s.now()
	var providers []string
	latest := map[string][]rules.Switched{}
	for _, sw := range switches {
		if _, ok := latest[sw.Provider]; !ok {
			providers = append(providers, sw.Provider)
		}
		latest[sw.Provider] = append(latest[sw.Provider], sw)
	}
	for _, p := range providers {
		f := s.file(sessionID, p)
		var old []Entry
		if rec, err := read(f); err == nil && rec != nil && rec.Version == version && rec.Provider == p {
			old = s.fresh(rec.Entries)
		}
		entries := make([]Entry, 0, len(old)+len(latest[p]))
		sws := latest[p]
		for i := len(sws) - 1; i >= 0; i-- {
			if _, seen := Find(entries, sws[i].Scope); !seen {
				entries = append(entries, Entry{Switched: sws[i], At: now})
			}
		}
		for _, e := range old {
			if _, seen := Find(entries, e.Scope); !seen {
				entries = append(entries, e)
			}
		}
		if len(entries) > maxEntries {
			entries = entries[:maxEntries]
		}
		if err := write(f, record{Version: version, Provider: p, Entries: entries}); err != nil {
			return err
		}
	}
	s.prune(now)
	return nil
}

// write replaces f atomically: a temporary file in the same directory, renamed over it.
func write(f string, rec record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("remember switch: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f), tmpPrefix+"*")
	if err != nil {
		return fmt.Errorf("remember switch: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = retry(func() error { return os.Rename(tmp.Name(), f) })
	}
	if err != nil {
		return fmt.Errorf("remember switch: %w", err)
	}
	return nil
}

// retry runs op again, a few times over at most 180 ms, while it fails for a moment that another
// hook causes on Windows: an open while another hook's rename replaces the file, or two renames
// over one file (ERROR_SHARING_VIOLATION, ERROR_ACCESS_DENIED). Elsewhere op runs once.
func retry(op func() error) error {
	err := op()
	for i := 1; err != nil && transient(err) && i <= 8; i++ {
		time.Sleep(time.Duration(i) * 5 * time.Millisecond)
		err = op()
	}
	return err
}

// prune removes the files that no entry in them can still count for (untouched for longer than
// TTL) and temporary files left by a hook that died, at most once per pruneEvery: one stat on
// most writes. Pruning is housekeeping, so its errors are ignored.
func (s *Store) prune(now time.Time) {
	mark := filepath.Join(s.Dir, pruneMark)
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < pruneEvery {
		return
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		return
	}
	_ = os.Chtimes(mark, now, now)
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, tmpPrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		age := now.Sub(fi.ModTime())
		if age > TTL || strings.HasPrefix(name, tmpPrefix) && age > time.Hour {
			os.Remove(filepath.Join(s.Dir, name))
		}
	}
}
