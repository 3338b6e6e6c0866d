// Package paths is the one place that says where ctxguard's own files live: the config home
// (the user policy and the providers folder), the state home (session memory, the audit trail,
// lifts), and the managed policy. Everything that reads, protects or reports those files asks
// this package, so that the hook, self-protection and `ctxguard doctor` can never disagree about
// them.
//
// On every system the XDG Base Directory rules apply as the specification writes them
// (https://specifications.freedesktop.org/basedir-spec/latest/): $XDG_CONFIG_HOME, else
// ~/.config; $XDG_STATE_HOME, else ~/.local/state; a relative value is invalid and ignored. On
// Windows the state home falls back to %LOCALAPPDATA% before ~/.local/state, and the managed
// policy lives under %ProgramData%.
//
// Nothing here reads the process directly except [Host]: the system, its environment and the
// home directory come in an [Env], so that a test can ask where the files of a Windows or macOS
// user are while it runs on Linux, and never touches the real home.
package paths
