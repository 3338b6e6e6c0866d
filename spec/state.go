package spec

import (
	"errors"
	"fmt"
	"strings"
)

// Input is what a reader of a CLI's state needs to know about one call of the CLI.
type Input struct {
	// Env is the call's environment: the line's assignments over the process environment. On
	// Windows a name is also tried in upper case (%AppData% finds APPDATA), as Windows does.
	Env func(name string) (string, bool)
	// Dir is the call's absolute working directory; relative state paths are taken from it (the
	// engine resolves `cd DIR &&` and the spec's DirFlags before it asks). Empty means it is not
	// known (a cd to a non-literal target): a state path that is relative then gives an error
	// that wraps [ErrNoDir], instead of a guess.
	Dir  string
	Home string
	// System is the system the call runs on: its GOOS picks a step's windows or darwin paths,
	// %VAR% expansion and the path-list separator, and state paths are made absolute by its
	// rules.
	System System
	// Flag returns the value of the first of these flags that the call has.
	Flag func(names []string) (string, bool)
	// Has reports whether the call has one of these flags at all, with a literal value or not
	// (a Step's OverriddenBy flags count by their presence). Nil means Flag answers it.
	Has func(names []string) bool
	// Vars holds Let values forced by an earlier switch in the same line (gcloud config
	// configurations activate dev sets config=dev). They stand in for the state file; a flag or
	// env var on the call still wins, as it would over the file.
	Vars map[string]string
}

// System is the path rules of the system a command runs on, which the engine and the state
// reader follow instead of the host's (internal/paths implements them), so that a decision for
// a Windows user can be tested anywhere.
type System interface {
	// GOOS is the system, a runtime.GOOS value.
	GOOS() string
	// IsAbs reports whether p is absolute there.
	IsAbs(p string) bool
	// Abs is p resolved against the absolute directory dir, and cleaned.
	Abs(dir, p string) string
	// FromBash is a path as a bash line there writes it in the system's spelling (Git Bash's
	// /c/Users on Windows is C:\Users); ok is false for one that names no place ctxguard knows.
	FromBash(p string) (string, bool)
}

// ErrNoDir is wrapped by the errors of a reader that needed a relative state path while
// Input.Dir was empty: the context cannot be known statically.
var ErrNoDir = errors.New("the working directory is not known")

// ErrUnknown is wrapped by the errors of a reader when the call's environment or flags make the
// context unknowable (a Step's OverriddenBy is set, or two of its Env variables disagree). The
// error's text says why, for the reason a model reads.
var ErrUnknown = errors.New("the context cannot be known")

// ErrReplaced is wrapped by the errors of a reader when something set on the call or in the
// environment replaces what the context means (a Step's Replaced): a binding to that context does
// not bind the call. It wraps [ErrUnknown].
var ErrReplaced = fmt.Errorf("the context is replaced: %w", ErrUnknown)

// Active is the context a call runs in and where it came from, for decisions and explanations.
type Active struct {
	// Value is the context's id and Name its display name; both are "" when there is no active
	// context (no file, no key, no default).
	Value, Name string
	// From says what gave Value; its Kind is "" when nothing did.
	From From
	// File is the state file the last step read ("" if none exists), Key the gjson path used on it.
	File, Key string
	// Known lists the contexts the state file knows, in file order.
	Known []Known
	// Vars holds the Let values used, and Lets the same with their sources, in read order.
	Vars map[string]string
	Lets []Let
	// Scope names the shared state the context is kept in, apart from the context itself: the
	// state files' paths (whether or not they exist yet) and the Let values that the call or the
	// defaults give rather than the state (gh's host, kubectl's list of files). Two calls with
	// the same Scope see one current context, so a switch that a session made applies to a later
	// call only when their Scopes match (terraform in another directory, or az with another
	// AZURE_CONFIG_DIR, is other state). A Let read from a file stands for that file, not its
	// value: which gcloud configuration is active is the very thing a switch changes.
	Scope string
}

// From says what gave a value: its kind and, for a flag or an environment variable, which one.
type From struct {
	Kind FromKind
	Name string // the flag ("--context") or the variable ("KUBECONFIG")
}

// FromKind is the kind of thing that gave a value.
type FromKind string

const (
	FromFlag FromKind = "flag" // a flag of the call
	FromEnv  FromKind = "env"  // an environment variable (of the call, or the process's)
	// FromCarried is a Let value forced by an earlier switch in the line (Input.Vars).
	FromCarried FromKind = "carried"
	FromFile    FromKind = "file"    // a state file
	FromDefault FromKind = "default" // the step's default
)

// String renders f as explanations write it: "file", "env KUBECONFIG", "flag --context".
func (f From) String() string {
	if f.Name == "" {
		return string(f.Kind)
	}
	return string(f.Kind) + " " + f.Name
}

// Known is one context that a state file lists: its id, its display name and the values of the
// spec's KnownList.Fields that its element has (nil when it has none).
type Known struct {
	ID, Name string
	Fields   map[string]string
}

// Let is one Let value and where it came from.
type Let struct {
	Name, Value string
	From        From
	File        string // the file read, if one was
}

// Find finds a known context by id or by name; fold matches without regard to case (the spec's
// CaseInsensitive). It lets a policy or a flag name a context either way.
func (a *Active) Find(v string, fold bool) (Known, bool) {
	eq := func(x, y string) bool { return x == y || fold && strings.EqualFold(x, y) }
	for _, e := range a.Known {
		if eq(e.ID, v) {
			return e, true
		}
	}
	for _, e := range a.Known {
		if e.Name != "" && eq(e.Name, v) {
			return e, true
		}
	}
	return Known{}, false
}
