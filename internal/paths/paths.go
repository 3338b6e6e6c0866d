package paths

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Env is what the locations of ctxguard's files depend on: the system they are for, its
// environment and the user's home directory. Code that runs on behalf of the user gets one
// from [Host]; tests build their own.
type Env struct {
	// OS is a runtime.GOOS value; "" is the running system.
	OS string
	// Lookup reads an environment variable; nil reads none.
	Lookup func(name string) (string, bool)
	// Home is the user's home directory; "" when there is none.
	Home string
}

// Host is the running process's Env. The home directory is the system's: $HOME on Unix,
// %USERPROFILE% on Windows, where $HOME is a Unix shell's (Git Bash, MSYS2 and Cygwin set it)
// and not what Windows programs, the harnesses among them, call home. Each CLI's own rule for
// its state (kubectl takes $HOME first on Windows too) is in its provider.
func Host() Env {
	home, _ := os.UserHomeDir()
	return Env{OS: runtime.GOOS, Lookup: os.LookupEnv, Home: home}
}

// Get returns an environment variable's value; ok is false when it is unset or empty, which the
// rules here treat alike.
func (e Env) Get(name string) (value string, ok bool) {
	if e.Lookup == nil {
		return "", false
	}
	v, ok := e.Lookup(name)
	return v, ok && v != ""
}

// ConfigDir is ctxguard's folder in the config home, ${XDG_CONFIG_HOME:-~/.config}/ctxguard.
// It is "" when there is neither an absolute XDG_CONFIG_HOME nor a home directory.
func (e Env) ConfigDir() string {
	home := e.xdg("XDG_CONFIG_HOME", e.inHome(".config"))
	if home == "" {
		return ""
	}
	return e.Join(home, "ctxguard")
}

// StateDir is ctxguard's folder in the state home, ${XDG_STATE_HOME:-~/.local/state}/ctxguard;
// on Windows %LOCALAPPDATA%\ctxguard when XDG_STATE_HOME is not set, since XDG is not a
// convention there. It is "" when none of them is known.
func (e Env) StateDir() string {
	def := e.inHome(".local", "state")
	if v, ok := e.Get("LOCALAPPDATA"); ok && e.GOOS() == "windows" {
		def = v
	}
	home := e.xdg("XDG_STATE_HOME", def)
	if home == "" {
		return ""
	}
	return e.Join(home, "ctxguard")
}

// ErrNoStateDir is the error of a feature that needs the state folder ([Env.StateDir]) where
// there is none.
var ErrNoStateDir = errors.New("there is no state folder (no home directory and no absolute XDG_STATE_HOME)")

// Sessions is the folder of the session memory, <StateDir>/sessions; "" without a state home.
func (e Env) Sessions() string { return e.inState("sessions") }

// CreatedFiles lists the harness settings files that `ctxguard install` created,
// <StateDir>/created-files, one path a line: uninstall removes such a file when it leaves it as
// install found it, not there. "" without a state home.
func (e Env) CreatedFiles() string {
	if dir := e.StateDir(); dir != "" {
		return e.Join(dir, "created-files")
	}
	return ""
}

// PolicyCache is the folder where the hook keeps the parsed trees of the policy files it reads
// (see codec.Cache), <StateDir>/cache; "" without a state folder.
func (e Env) PolicyCache() string {
	dir := e.StateDir()
	if dir == "" {
		return ""
	}
	return e.Join(dir, "cache")
}

// UserPolicy is the user's policy file, <ConfigDir>/policy.yaml; "" without a config home.
func (e Env) UserPolicy() string { return e.inConfig("policy.yaml") }

// ProvidersDir is the folder of the user's provider files, <ConfigDir>/providers; "" without a
// config home.
func (e Env) ProvidersDir() string { return e.inConfig("providers") }

// ManagedPolicy is the policy an administrator or an MDM installs for every user:
// $CTXGUARD_MANAGED_POLICY (for tests and unusual installs), else %ProgramData%\ctxguard\
// policy.yaml on Windows and /etc/ctxguard/policy.yaml elsewhere.
func (e Env) ManagedPolicy() string {
	if v, ok := e.Get("CTXGUARD_MANAGED_POLICY"); ok {
		return v
	}
	if e.GOOS() == "windows" {
		dir, ok := e.Get("ProgramData")
		if !ok {
			dir = `C:\ProgramData`
		}
		return e.Join(dir, "ctxguard", "policy.yaml")
	}
	return "/etc/ctxguard/policy.yaml"
}

// AuditLog is where the audit trail goes when the policy names no file:
// <StateDir>/audit.jsonl (on Windows %LOCALAPPDATA%\ctxguard\audit.jsonl); "" without a state
// home.
func (e Env) AuditLog() string { return e.inState("audit.jsonl") }

// AuditFailure is where the hook notes the last time it could not write the audit trail, for
// `ctxguard doctor`: <StateDir>/audit-failure.json; "" without a state home.
func (e Env) AuditFailure() string { return e.inState("audit-failure.json") }

// Lifts is the file of the lifts a human granted with `ctxguard lift`: <StateDir>/lifts.json;
// "" without a state home. Self-protection keeps agents from writing it.
func (e Env) Lifts() string { return e.inState("lifts.json") }

func (e Env) inState(name string) string {
	dir := e.StateDir()
	if dir == "" {
		return ""
	}
	return e.Join(dir, name)
}

func (e Env) inConfig(name string) string {
	dir := e.ConfigDir()
	if dir == "" {
		return ""
	}
	return e.Join(dir, name)
}

// xdg is an XDG base directory: the variable when it holds an absolute path (a relative one is
// invalid and ignored), else def.
func (e Env) xdg(name, def string) string {
	if v, ok := e.Get(name); ok && e.IsAbs(v) {
		return v
	}
	return def
}

// inHome is rel under the home directory; "" without one.
func (e Env) inHome(rel ...string) string {
	if e.Home == "" {
		return ""
	}
	return e.Join(append([]string{e.Home}, rel...)...)
}

// GOOS is the system e is for: OS, or the running one.
func (e Env) GOOS() string {
	if e.OS == "" {
		return runtime.GOOS
	}
	return e.OS
}

// foreign reports whether e is for a system whose paths the running one spells differently:
// a Windows user's paths asked about on Linux, or the other way round.
func (e Env) foreign() bool { return (e.GOOS() == "windows") != (runtime.GOOS == "windows") }

// Join joins path elements with e's separator and cleans the result, as filepath.Join does on
// e's system. For the running system (and any with the same separator) it is filepath.Join; for
// a foreign one it follows that system's rules, so that a test can state a Windows user's paths
// on Linux.
func (e Env) Join(elem ...string) string {
	if !e.foreign() {
		return filepath.Join(elem...)
	}
	if e.GOOS() != "windows" {
		return path.Join(elem...)
	}
	joined := strings.ReplaceAll(strings.Join(slices.DeleteFunc(slices.Clone(elem), func(s string) bool { return s == "" }), "/"), `\`, "/")
	vol := ""
	switch {
	case strings.HasPrefix(joined, "//"): // \\server\share
		vol, joined = "/", joined[1:]
	case len(joined) >= 2 && joined[1] == ':':
		vol, joined = joined[:2], joined[2:]
	}
	if joined == "" {
		return vol
	}
	return strings.ReplaceAll(vol+path.Clean(joined), "/", `\`)
}

// IsAbs reports whether p is an absolute path on e's system ([IsAbs]).
func (e Env) IsAbs(p string) bool { return IsAbs(p, e.GOOS()) }

// IsAbs reports whether p is an absolute path on goos, by its spelling alone, so that a Windows
// user's paths can be judged on Linux and the other way round. On Windows that is a drive letter
// and a slash (C:\ or C:/) or a share (\\server\share, //server/share); a path rooted without a
// drive (\x) is not, since it names a place on the working directory's drive
// (https://learn.microsoft.com/windows/win32/fileio/naming-a-file#fully-qualified-vs-relative-paths).
// Elsewhere it is a leading /.
func IsAbs(p, goos string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return true
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}
