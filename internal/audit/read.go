package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/ctxguard/ctxguard/internal/file"
)

// maxLine bounds one line when reading; lines the hook writes are far smaller (see clip).
const maxLine = 1 << 20

// Read returns the trail's entries, oldest first: the rotated file's, then the current file's.
// A file that is not there has none. Lines that are not entries (cut short by a full disk, or
// written by something else) are skipped and counted in bad.
func (l Log) Read() (entries []Entry, bad int, err error) {
	for _, p := range []string{l.Old(), l.Path} {
		e, b, err := readFile(p)
		if err != nil {
			return nil, 0, err
		}
		entries, bad = append(entries, e...), bad+b
	}
	return entries, bad, nil
}

func readFile(path string) ([]Entry, int, error) {
	f, err := file.Open(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("audit trail: %w", err)
	}
	defer f.Close()
	var out []Entry
	bad := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.ID == "" {
			bad++
			continue
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("audit trail %s: %w", path, err)
	}
	return out, bad, nil
}

// Filter selects entries; a zero field selects all.
type Filter struct {
	Since     time.Time
	Decisions []string
	Session   string
}

// Match reports whether e is selected.
func (f Filter) Match(e Entry) bool {
	return (f.Since.IsZero() || !e.Time.Before(f.Since)) &&
		(len(f.Decisions) == 0 || slices.Contains(f.Decisions, e.Decision)) &&
		(f.Session == "" || e.Session == f.Session)
}

// Find returns the entry with the given id.
func (l Log) Find(id string) (Entry, error) {
	entries, _, err := l.Read()
	if err != nil {
		return Entry{}, err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].ID == id {
			return entries[i], nil
		}
	}
	return Entry{}, fmt.Errorf("no decision with id %q in the audit trail %s (nor in %s)", id, l.Path, l.Old())
}
