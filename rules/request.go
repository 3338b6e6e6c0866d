package rules

// Request is one tool call to decide, in harness-neutral terms. A harness adapter reads it from
// the hook payload; `ctxguard explain` builds it from its flags; the guard decides on it. It is
// the one request type from adapter to engine.
//
// A Request whose Shell is "" is a tool call that is not a shell command (Claude Code's Read,
// Copilot's edit, …): only the rules about the files a tool writes (Paths) apply to it.
type Request struct {
	// Harness is the adapter's name, as `ctxguard install NAME` takes it (internal/harness lists
	// them); "" for explain without --harness.
	Harness string
	Tool    string // the tool's name, as the harness sent it
	Shell   string // ShellBash or ShellPowerShell, from the tool name; "" for a tool that is not a shell
	Command string
	// Cwd is the command's working directory; relative state paths and the project policy are
	// found from it.
	Cwd string
	// Session is the harness's session id ("" for none: nothing is remembered).
	Session string
	// Mode is the harness's permission mode (Claude Code permission_mode); "" where it sends none.
	Mode string
	// Agent is the subagent that makes the call (Claude Code agent_id, sent only inside a
	// subagent): subagents of one session run at the same time, so each has its own memory.
	Agent string
	// Paths are the files a tool that is not a shell writes (a file tool: Claude Code's Write,
	// Copilot CLI's create, …), as sent; Shell is "" then.
	Paths []string
	// Changes are what such a tool writes to the file, in order; nil when the tool's input says
	// nothing a rule could check.
	Changes []Change
	// Unattended says whether the harness would run the call without a human confirming it (its
	// permission mode), and Subagent whether a subagent makes it; nil where the harness does not
	// say. Conditions read them (see [Facts]).
	Unattended *bool
	Subagent   *bool
}

// Change is one thing a file tool writes: the whole file (Old is ""), or an edit that replaces
// Old with New (every occurrence with All).
type Change struct {
	Old, New string
	All      bool
	// Path is the file it changes, as sent, for a tool that writes several (a patch); "" for a
	// tool's one file.
	Path string
}

// The languages a Request's line may be written in (Request.Shell, Input.Shell).
const (
	ShellBash       = "bash"
	ShellPowerShell = "powershell"
)
