package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/internal/file"
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
	data, err := file.Read(f, maxFile)
	if err != nil {
		return nil, fmt.Errorf("session memory: %w", err)
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

// write replaces f atomically (see file.Replace): a hook reading it at the same time sees the
// old memory or the new one.
func write(f string, rec record) error {
	data, err := json.Marshal(rec)
	if err == nil {
		err = file.Replace(f, append(data, '\n'), 0o600)
	}
	if err != nil {
		return fmt.Errorf("remember switch: %w", err)
	}
	return nil
}

// prune removes the files that no entry in them can still count for (untouched for longer than
// TTL) and temporary files left by a hook that died, at most once per pruneEvery: one stat on
// most writes. Pruning is housekeeping, so its errors are ignored.
func (s *Store) prune(now time.Time) {
	mark := filepath.Join(s.Dir, pruneMark)
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < pruneEvery {
		return
	}
	m, err := file.Open(mark, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	m.Close()
	_ = os.Chtimes(mark, now, now)
	ents, err := file.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, file.TempPrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		age := now.Sub(fi.ModTime())
		if age > TTL || strings.HasPrefix(name, file.TempPrefix) && age > time.Hour {
			os.Remove(filepath.Join(s.Dir, name))
		}
	}
}
