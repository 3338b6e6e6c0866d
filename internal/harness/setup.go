package harness

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/internal/shell"
)

// Setup is how ctxguard is wired into one harness: the files the harness reads hooks from, and
// the hook entries that make it run ctxguard. `ctxguard install` writes the entries, `uninstall`
// takes them out, `doctor` looks for them and runs them, and the guard protects the files. Each
// harness's file cites the harness's documentation for its facts.
type Setup struct {
	Harness string // the adapter's name, as in `ctxguard install NAME` (set by the registry)
	Title   string // the product's name, for messages
	// UserFile is the user-scope file; ProjectFile the project-scope one, relative to the
	// project root. Both use forward slashes.
	UserFile    func(home string, env func(string) (string, bool)) string
	ProjectFile string
	// Also are more project files the harness reads hooks from in the same layout, relative to
	// the project root; doctor looks at them, install never writes them.
	Also []string
	// Others are the harness's other files through which it runs hooks or could be told to run
	// none (settings in another layout or format, managed settings); install and doctor leave
	// them alone, and the guard keeps agents from writing them ([Files]).
	Others func(home string, env func(string) (string, bool), goos string) []File
	// AlsoRuns is another harness whose hook files this one runs too, for doctor's warning that
	// ctxguard would run twice for one command.
	AlsoRuns *AlsoRuns
	// Plugin is ctxguard's plugin for the harness, where there is one.
	Plugin *Plugin
	// Glob is set when the harness reads every *.json file in the folder of the user and project
	// files (Copilot CLI), not only the one ctxguard writes.
	Glob bool
	// Nested is set where each event lists groups {matcher, hooks: [handler…]}; Events are every
	// event under which ctxguard may have installed a hook.
	Nested bool
	Events []string
	// Bare is set where the file is the event map itself, without a "hooks" member (Factory
	// Droid's hooks.json).
	Bare bool
	// Script is set for a harness that runs a file of ctxguard's own rather than an entry in a
	// settings file (Cline's executable hook, the plugins of opencode, Kilo Code and pi): its
	// content for the binary at self, which runs `ctxguard hook --harness NAME`. UserFile and
	// ProjectFile are that file; install writes it whole, uninstall removes it. It must contain
	// scriptMark, by which uninstall and doctor know the file is ctxguard's.
	Script func(self string, o Options) ([]byte, error)
	// Executable is set when the harness runs the Script file itself.
	Executable bool
	// WindowsExt is added to the name of the Script file on Windows, where the harness finds it
	// by its extension (Cline runs PreToolUse.ps1 with Windows PowerShell).
	WindowsExt string
	// WindowsShell is the shell the harness hands its hook line to on Windows; PowerShell when
	// not set.
	WindowsShell Shell
	// Refuse says why no entry can run the binary at self in this harness on o.GOOS, and what
	// to do instead; nil (or a nil Refuse) when one can. install writes nothing then.
	Refuse func(self string, o Options) error
	// Beside are files that go with the hook file (paths relative to its folder, with forward
	// slashes): install writes each one that is missing, uninstall removes each one that is
	// still as install wrote it when it removes the hook file.
	Beside map[string]string
	// Skeleton is a new file before the hooks go in.
	Skeleton string
	// Own is set when the file is ctxguard's alone, so that uninstall removes it once it holds
	// nothing but the skeleton.
	Own bool
	// Entries returns the hooks that run the ctxguard binary at self.
	Entries func(self string, o Options) []Entry
	// RewriteHook is set where Options.Rewrite adds a hook that can rewrite to those Entries
	// returns (Cursor's preToolUse); every other harness's hook rewrites already.
	RewriteHook bool
	// Probe returns a payload for a harmless command as the harness sends it to a hook on
	// event, for doctor's self-test.
	Probe func(event, command, cwd string) []byte
	// Refusal reads a hook's answer (its stdout, not empty) as the harness would, and returns
	// the reason it gives; an error when it is not an answer the harness reads.
	Refusal func(answer []byte) (string, error)
	// Note is printed after an install: what the user must still do in the harness.
	Note string
	// Client is the harness's own program, for doctor; nil where there is none to run.
	Client *Client
	// Needs are the tools an entry's matcher must let through for the adapter to see every call
	// it checks; Matches says whether a matcher lets a tool through, by the harness's rules.
	// Both are nil for a harness whose matcher doctor does not check.
	Needs   []string
	Matches func(matcher, tool string) bool
	// Unseen says what becomes of a call of a tool in Needs that the matcher leaves out, where
	// that is worse than the hook not seeing it.
	Unseen map[string]string
}

// Uncovered lists the tools in Needs that matcher keeps from the hook, and what follows for
// each, for doctor.
func (s *Setup) Uncovered(matcher string) (tools, effects []string) {
	if s.Matches == nil {
		return nil, nil
	}
	for _, tool := range s.Needs {
		if s.Matches(matcher, tool) {
			continue
		}
		tools = append(tools, tool)
		if e := s.Unseen[tool]; e != "" {
			effects = append(effects, e)
		}
	}
	if len(tools) > 0 && len(effects) == 0 {
		effects = append(effects, "ctxguard does not see those calls")
	}
	return tools, effects
}

// Client is a harness's own program: doctor asks it for its version and says whether the
// entries found work with that version.
type Client struct {
	// Program is the command that starts the harness, looked up on PATH. It prints a version
	// (the first dotted number in its output) when given --version.
	Program string
	// Check says how this version of the harness runs a handler (argv for an exec form, else the
	// line given to a shell): ok is false when the handler cannot work, and note says why, or
	// what to know when it works all the same ("" when there is nothing to say). Nil: every
	// version runs the entries as written.
	Check func(version string, argv []string, line, goos string) (note string, ok bool)
}

// versionLess reports whether the dotted version a is older than b, comparing each number; a
// part that is not a number compares as 0.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		x, y := versionPart(as, i), versionPart(bs, i)
		if x != y {
			return x < y
		}
	}
	return false
}

func versionPart(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n, _ := strconv.Atoi(parts[i])
	return n
}

// AlsoRuns is a harness whose hook files another one runs too.
type AlsoRuns struct {
	Harness string
	// ProjectOnly is set when only the project's files are run, not the user's.
	ProjectOnly bool
	// Why says so, for doctor's warning.
	Why string
}

// Plugin is ctxguard's plugin for a harness: how the harness's settings enable it, and the hooks
// it runs.
type Plugin struct {
	// Enabled is the settings key that lists enabled plugins as {"NAME@MARKETPLACE": true}.
	Enabled string
	// Name is the plugin's name, before the @.
	Name string
	// Hooks is the plugin's hooks file (the repository's .claude-plugin/hooks.json; a test keeps
	// the two equal).
	Hooks []byte
}

// UserPath is the user-scope file on goos, with forward slashes.
func (s *Setup) UserPath(home string, env func(string) (string, bool), goos string) string {
	return s.onSystem(s.UserFile(home, env), goos)
}

// ProjectPath is the project-scope file on goos, relative to the project root, with forward
// slashes.
func (s *Setup) ProjectPath(goos string) string { return s.onSystem(s.ProjectFile, goos) }

func (s *Setup) onSystem(file, goos string) string {
	if goos == "windows" {
		return file + s.WindowsExt
	}
	return file
}

// scriptMark is in every Script file, so that uninstall and doctor know it as ctxguard's.
const scriptMark = "Written by `ctxguard install"

// IsScript reports whether a file's content is a Script that ctxguard wrote.
func IsScript(content []byte) bool { return strings.Contains(string(content), scriptMark) }

// Options change what Entries returns.
type Options struct {
	GOOS string
	// Rewrite asks for the hook that can rewrite commands where a harness has a separate one
	// (Cursor's preToolUse, beside beforeShellExecution).
	Rewrite bool
}

// Entry is one hook to install: Value is the JSON that goes into the event's array.
type Entry struct {
	Event string
	Value []byte
}

// Setups returns every harness's setup, in the order of [Names].
func Setups() []*Setup {
	out := make([]*Setup, len(registry))
	for i, h := range registry {
		out[i] = h.setup
	}
	return out
}

// SetupFor returns the setup of the named harness.
func SetupFor(name string) (*Setup, bool) {
	i := slices.IndexFunc(registry, func(h registered) bool { return h.Name() == name })
	if i < 0 {
		return nil, false
	}
	return registry[i].setup, true
}

// timeout is how long a harness should wait for the hook, in seconds. ctxguard answers in
// milliseconds and denies a line it cannot analyse within its own budget; the harness's limit is
// only for a machine that is stalled, and every harness lets the command run when it is reached.
const timeout = 30

// homeDir is ${VAR:-~/dir}: a harness's folder in the home directory, which an environment
// variable may move.
func homeDir(home string, env func(string) (string, bool), variable, dir string) string {
	return fromEnv(env, variable, filepath.ToSlash(filepath.Join(home, dir)))
}

// xdgConfig is ${XDG_CONFIG_HOME:-~/.config}, the folder under which opencode, Kilo Code and
// Crush keep their settings. It is the harnesses' rule, not ctxguard's own (package paths, which
// ignores a relative value): where a harness reads is what matters here.
func xdgConfig(home string, env func(string) (string, bool)) string {
	return homeDir(home, env, "XDG_CONFIG_HOME", ".config")
}

// Shell is a shell a harness hands the line of a hook entry to. Every harness runs a hook line
// with sh -c outside Windows; on Windows each has its own ([Setup.WindowsShell]).
type Shell int

const (
	// PowerShell is pwsh where it is on PATH, else Windows PowerShell 5.1, which every Windows
	// has, with -NoProfile -NonInteractive -Command LINE: the shell of Copilot CLI's powershell
	// key, Gemini CLI (packages/core/src/utils/shell-utils.ts, getShellConfiguration), Cursor
	// (its hook service's shell: pwsh, else Windows PowerShell) and Codex's commandWindows (the
	// session's shell, PowerShell by default on Windows: codex-rs shell_detect.rs).
	PowerShell Shell = iota
	// Cmd is cmd.exe /C, given the line as one argument quoted by the rules of
	// CommandLineToArgvW, which cmd does not read: the line cannot quote anything.
	Cmd
	// Sh is the sh on PATH (Git Bash's on Windows), with -c LINE.
	Sh
	// Embedded is a POSIX shell inside the harness itself: no program runs the line, the
	// harness runs its words.
	Embedded
)

// LineShell is how the harness runs a hook line on goos: the program and the arguments before
// the line, or nil for a shell embedded in the harness, which runs the line's words. lookPath is
// exec.LookPath, or a test's stand-in.
func (s *Setup) LineShell(goos string, lookPath func(string) (string, error)) []string {
	if goos != "windows" {
		return []string{"sh", "-c"}
	}
	switch s.WindowsShell {
	case Cmd:
		return []string{"cmd", "/C"}
	case Sh:
		return []string{"sh", "-c"}
	case Embedded:
		return nil
	}
	ps := "powershell"
	if _, err := lookPath("pwsh"); err == nil {
		ps = "pwsh"
	}
	return []string{ps, "-NoProfile", "-NonInteractive", "-Command"}
}

// hookLine is the line that runs the binary at self with args, written for the shell a harness
// hands it to on goos: sh outside Windows, windows there.
func hookLine(goos string, windows Shell, self string, args ...string) string {
	switch {
	case goos != "windows" || windows == Sh || windows == Embedded:
		return shLine(self, args...)
	case windows == Cmd:
		return self + " " + strings.Join(args, " ") // quotable by nothing: see cmdRefuses
	}
	return psLine(self, args...)
}

// cmdRefuses says why a harness that runs hook lines with cmd /C, quoting the line itself as
// one argument (goose), cannot run the binary at self on Windows: cmd reads \" as a backslash
// and a quote, so a path that needs quotes cannot be given to it. nil when the path needs none.
func cmdRefuses(title, self string, o Options) error {
	if o.GOOS != "windows" || !strings.ContainsAny(self, " \t&()[]{}^=;!'+,`~%<>|\"") {
		return nil
	}
	return fmt.Errorf("%s runs hook commands with cmd /C on Windows, which cannot run %s: its path has a space or a character cmd reads; install ctxguard where its path has none (go env -w GOBIN=C:\\tools\\bin, then go install again) and run ctxguard install from there", title, self)
}

// shLine is a POSIX sh line.
func shLine(self string, args ...string) string {
	return shell.QuotePOSIX(self) + " " + strings.Join(args, " ")
}

// psLine is a PowerShell line. A quoted string at the start of a line is an expression, after
// which a word is a parse error: the call operator & makes it a command (about_Operators, "Call
// operator &").
func psLine(self string, args ...string) string {
	if q := shell.QuotePowerShell(self); q != self {
		self = "& " + q
	}
	return self + " " + strings.Join(args, " ")
}

// compact encodes v (structs keep their field order) without HTML escaping.
func compact(v any) []byte {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only plain structs, strings and numbers are encoded
	}
	return b
}

// probeTime is the timestamp in self-test payloads; any fixed value will do.
const probeTime = "2026-01-01T00:00:00.000Z"

// hookGroup is an entry of the nested layout (Claude Code, Gemini CLI, Codex): a matcher on the
// tool name and the handlers it runs.
type hookGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []commandHook `json:"hooks"`
}

// commandHook is a handler of the nested layout.
type commandHook struct {
	Type    string   `json:"type"`
	Name    string   `json:"name,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// CommandWindows replaces Command on Windows (Codex).
	CommandWindows string `json:"commandWindows,omitempty"`
	// Shell names the shell that runs Command where the harness lets a hook choose (Qwen Code).
	Shell   string `json:"shell,omitempty"`
	Timeout int    `json:"timeout,omitempty"`
	// OnFailure "block" makes goose deny the call when the hook gives no decision (a crash, a
	// timeout, an unreadable answer).
	OnFailure string `json:"on_failure,omitempty"`
}

// refusal reads a harness's answer into its wire struct T and returns the reason it gives, or
// the answer itself when it gives none.
func refusal[T any](answer []byte, reason func(*T) string) (string, error) {
	var out T
	if err := json.Unmarshal(answer, &out); err != nil {
		return "", err
	}
	if r := reason(&out); r != "" {
		return r, nil
	}
	return string(answer), nil
}
