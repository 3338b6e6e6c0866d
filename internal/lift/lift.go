// Package lift is the lifts a human grants with `ctxguard lift`: one rule (or every destructive
// entry) let through for a while, for every session or one. They are kept in one file in the
// state folder (paths.Env.Lifts), which the hook reads and never writes, and which
// self-protection keeps agents from writing.
//
// The file decides what an agent may run, so a file that someone else could have written is not
// believed: a lift file that is a symlink, is not owned by the user, or is writable by its group
// or by others is ignored, as is one that does not parse, and the note that says so shows in
// explain, doctor and the hook's stderr.
package lift

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/lock"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/rules"
)

// MaxFor is the longest a lift may last: a lift is for a task, not a policy change.
const MaxFor = 24 * time.Hour

// Lift lets the calls that one rule would deny or ask about through, until it expires.
type Lift struct {
	Rule    string    `json:"rule"`              // a rule id, or rules.RuleDestructive
	Session string    `json:"session,omitempty"` // only this harness session ("" for all)
	Until   time.Time `json:"until"`
	Created time.Time `json:"created"`
	By      string    `json:"by,omitempty"` // user@host of the human who granted it
	Reason  string    `json:"reason,omitempty"`
}

// Covers reports whether l lifts rule for a call of session at now.
func (l Lift) Covers(rule, session string, now time.Time) bool {
	return now.Before(l.Until) && (l.Session == "" || l.Session == session) &&
		(l.Rule == rule || l.Rule == rules.RuleDestructive && rules.IsDestructiveRule(rule))
}

// Locked reports whether no lift lifts rule: locked lists what the managed layer wrote
// (policy.Policy.Locked), its rules' ids and rules.RuleDestructive when it sets destructive.
func Locked(rule string, locked []string) bool {
	return slices.Contains(locked, rule) || (rule == rules.RuleDestructive || rules.IsDestructiveRule(rule)) && slices.Contains(locked, rules.RuleDestructive)
}

// String describes the lift for a reason or a listing.
func (l Lift) String() string {
	s := "lifted until " + l.Until.Format(time.RFC3339)
	if l.Session != "" {
		s += " for session " + l.Session
	}
	if l.By != "" {
		s += " by " + l.By
	}
	if l.Reason != "" {
		s += ": " + l.Reason
	}
	return s
}

// maxFile bounds the lift file: a few lifts take a few hundred bytes.
const maxFile = 1 << 20

// contents is the lift file as written.
type contents struct {
	Version int    `json:"version"`
	Lifts   []Lift `json:"lifts"`
}

// Load reads the lifts at path. A file that is not there holds none. A file that is not to be
// believed (see the package doc) or does not parse gives no lifts and a note that says why.
func Load(path string) (lifts []Lift, note string) {
	if path == "" {
		return nil, ""
	}
	data, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err == nil {
		var f contents
		if err = json.Unmarshal(data, &f); err == nil && f.Version != 1 {
			err = fmt.Errorf("version %d, want 1", f.Version)
		}
		if err == nil {
			return f.Lifts, ""
		}
	}
	return nil, fmt.Sprintf("the lift file %s is ignored (%v), so no lift applies; a human can remove it and lift again: ctxguard lift --clear", path, err)
}

// read reads the file if it is to be believed.
func read(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := trusted(fi); err != nil {
		return nil, err
	}
	return file.Read(path, maxFile)
}

// trusted checks that only the user could have written the file.
func trusted(fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return errors.New("it is a symlink")
	case !fi.Mode().IsRegular():
		return errors.New("it is not a regular file")
	case fi.Mode().Perm()&0o022 != 0 && permissionBits:
		return fmt.Errorf("it is writable by others (mode %04o)", fi.Mode().Perm())
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("it belongs to user %d, not to you", uid)
	}
	return nil
}

// Active returns the lifts in force at now, in the file's order.
func Active(lifts []Lift, now time.Time) []Lift {
	return slices.DeleteFunc(slices.Clone(lifts), func(l Lift) bool { return !now.Before(l.Until) })
}

// Update changes the lifts at path: change gets the lifts in force at now and returns the new
// list. The file is rewritten whole (a new file renamed over the old, mode 0600) under a lock,
// so that two people lifting at once lose neither lift. A file that Load would ignore is
// replaced.
func Update(path string, now time.Time, change func([]Lift) []Lift) ([]Lift, error) {
	if path == "" {
		return nil, fmt.Errorf("the lift file: %w", paths.ErrNoStateDir)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	release, err := lock.Acquire(path+".lock", 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer release()
	lifts, _ := Load(path)
	lifts = change(Active(lifts, now))
	data, err := json.MarshalIndent(contents{Version: 1, Lifts: lifts}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := file.Replace(path, append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return lifts, nil
}
