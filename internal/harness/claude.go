package harness

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// claude is Claude Code's PreToolUse hook (https://code.claude.com/docs/en/hooks).
var claude = snakeCase{name: "claude", shells: claudeShells, files: claudeFileTools, limits: limits{rewrite: true, ask: true}}

// snakeCase is a harness that speaks Claude Code's hook protocol: its snake_case PreToolUse
// payload in, its hookSpecificOutput answer out (Claude Code, Codex CLI, Qwen Code, Factory
// Droid). They differ in their tools, in what they can answer, and in the facts their payload
// gives ([Unattended], [Subagent]).
type snakeCase struct {
	name   string
	shells shellTools
	// files are the tools that write a file, for self-protection; nil where none is hooked.
	files  map[string]fileTool
	limits limits
	// rewriteDecision is the decision a rewrite carries (see decide).
	rewriteDecision string
}

// claudeShells maps Claude Code's tools that run a command line to the shell it is written for:
// Bash is bash everywhere (Git Bash on Windows), PowerShell is PowerShell. Bash and PowerShell
// take tool_input {command, description, timeout, run_in_background}. Monitor runs its command in
// the background and reports its output as events; the hook sees it as {description,
// timeout_ms, command} (Claude Code 2.1.328), and Claude Code applies an updatedInput for it as
// for Bash.
var claudeShells = shellTools{
	"Bash":       bashTool,
	"PowerShell": powershellTool,
	"Monitor":    bashTool,
}

// claudeModes says, for each of Claude Code's permission modes
// (https://code.claude.com/docs/en/iam#permission-modes), whether it runs a call without asking
// the user, for a policy's unattended condition: a shell command, and a file tool's write
// (acceptEdits accepts edits, not commands).
var claudeModes = map[string]struct{ shell, files bool }{
	"default":           {},
	"plan":              {},
	"acceptEdits":       {files: true},
	"auto":              {shell: true, files: true},
	"dontAsk":           {shell: true, files: true},
	"bypassPermissions": {shell: true, files: true},
}

// claudeUnattended reads claudeModes for a tool; a mode Claude Code did not document is not
// known.
func claudeUnattended(mode, tool string) *bool {
	m, ok := claudeModes[mode]
	if !ok {
		return nil
	}
	_, file := claudeFileTools[tool]
	return known(m.shell || file && m.files)
}

func (h snakeCase) Name() string { return h.name }

func (h snakeCase) decode(top object, goos string) (*Request, error) {
	req, err := decodeSnakeCase(top, goos, h.shells)
	if err == nil && h.files != nil {
		input, _ := top.get("tool_input")
		req, err = withFilePaths(req, input, "tool_input", h.files)
	}
	return req, err
}

// decodeSnakeCase reads the snake_case PreToolUse payload that Claude Code sends and that Copilot
// CLI sends for hooks configured under the PascalCase event name.
func decodeSnakeCase(top object, goos string, shells shellTools) (*Request, error) {
	if event, ok, err := top.str("hook_event_name"); err != nil {
		return nil, err
	} else if ok && event != "PreToolUse" {
		return nil, fmt.Errorf("hook event is %s, want PreToolUse", event)
	}
	req := &Request{}
	err := top.strs(
		field{"tool_name", &req.Tool},
		field{"session_id", &req.Session},
		field{"agent_id", &req.Agent},
		field{"cwd", &req.Cwd},
		field{"permission_mode", &req.Mode},
	)
	if err != nil {
		return nil, err
	}
	if req.Tool == "" {
		return nil, errors.New("missing tool_name")
	}
	input, _ := top.get("tool_input")
	return withShellArgs(req, goos, shells, input, "tool_input")
}

// shellTools maps a harness's shell tools to the shell their commands are written for.
type shellTools map[string]toolShell

// toolShell is the shell of one tool on Unix and on Windows, where most harnesses' shell tool
// runs PowerShell whatever it is called.
type toolShell struct{ unix, windows string }

// The shells of a tool: bash everywhere (Claude Code's Bash, which is Git Bash on Windows),
// PowerShell on Windows and bash elsewhere (most harnesses' one shell tool), PowerShell
// everywhere.
var (
	bashTool       = toolShell{rules.ShellBash, rules.ShellBash}
	systemShell    = toolShell{rules.ShellBash, rules.ShellPowerShell}
	powershellTool = toolShell{rules.ShellPowerShell, rules.ShellPowerShell}
)

// shell is the shell of the named tool on goos; "" for a tool that is not a shell.
func (t shellTools) shell(tool, goos string) string { return t[tool].on(goos) }

// on is the shell on goos.
func (s toolShell) on(goos string) string {
	if goos == "windows" {
		return s.windows
	}
	return s.unix
}

// withShellArgs completes a request from its tool's arguments: for a shell tool they must be an
// object with a string command; any other tool is returned with Shell "" and its arguments unread.
func withShellArgs(req *Request, goos string, shells shellTools, raw json.RawMessage, name string) (*Request, error) {
	req.Shell = shells.shell(req.Tool, goos)
	if req.Shell == "" {
		return req, nil
	}
	if raw == nil || isNull(raw) {
		return nil, fmt.Errorf("missing %s", name)
	}
	obj, err := argsObject(raw, name)
	if err != nil {
		return nil, err
	}
	cmd, ok, err := obj.str("command")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s has no command", name)
	}
	req.Command, req.args = cmd, obj
	return req, nil
}

// claudeOutput is Claude Code's PreToolUse decision.
type claudeOutput struct {
	HookSpecificOutput claudeDecision `json:"hookSpecificOutput"`
}

type claudeDecision struct {
	HookEventName string `json:"hookEventName"`
	// PermissionDecision is left out of a rewrite, so that Claude Code's own rules decide on
	// the rewritten input.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// UpdatedInput replaces the whole tool_input, so it carries every original field.
	UpdatedInput object `json:"updatedInput,omitempty"`
	// AdditionalContext carries a rewrite's reason, which reaches the model next to the tool
	// result (a permissionDecisionReason is only read with a decision).
	AdditionalContext string `json:"additionalContext,omitempty"`
}

func (o claudeOutput) appendJSON(b []byte) []byte {
	var f fields
	f.obj("hookSpecificOutput", o.HookSpecificOutput, false)
	return f.object(b)
}

func (d claudeDecision) appendJSON(b []byte) []byte {
	var f fields
	f.str("hookEventName", d.HookEventName, false)
	f.str("permissionDecision", d.PermissionDecision, true)
	f.str("permissionDecisionReason", d.PermissionDecisionReason, true)
	f.obj("updatedInput", d.UpdatedInput, len(d.UpdatedInput) == 0)
	f.str("additionalContext", d.AdditionalContext, true)
	return f.object(b)
}

func (h snakeCase) Encode(w io.Writer, req *Request, a Answer) error {
	d, err := decide(req, narrow(a, h.limits), h.rewriteDecision)
	if err != nil {
		return fmt.Errorf("answer %s: %w", h.name, err)
	}
	return writeClaude(w, h.name, d)
}

// writeClaude writes a decision in Claude Code's hookSpecificOutput shape, which Codex reads
// too; allow is silence.
func writeClaude(w io.Writer, harness string, d decision) error {
	if d.permission == "" && d.args == nil {
		return nil
	}
	out := claudeOutput{claudeDecision{
		HookEventName:            "PreToolUse",
		PermissionDecision:       d.permission,
		PermissionDecisionReason: d.reason,
		UpdatedInput:             d.args,
	}}
	if d.permission == "" {
		out.HookSpecificOutput.PermissionDecisionReason, out.HookSpecificOutput.AdditionalContext = "", d.reason
	}
	if err := write(w, out); err != nil {
		return fmt.Errorf("answer %s: %w", harness, err)
	}
	return nil
}

// claudeSetup wires ctxguard into Claude Code: a PreToolUse group for both shell tools, in exec
// form (command + args, Claude Code 2.1.139 and later) so that no shell parses the binary's
// path; a Windows path with backslashes given to Git Bash would fail, and fail open.
//
// The entry names no harness: Copilot CLI and Cursor also run the hooks in .claude/settings.json,
// each with its own payload, and `ctxguard hook` answers each in its own protocol when it detects
// the harness from the payload.
var claudeSetup = Setup{
	Title: "Claude Code",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return homeDir(home, env, "CLAUDE_CONFIG_DIR", ".claude") + "/settings.json"
	},
	ProjectFile: ".claude/settings.json",
	Also:        []string{".claude/settings.local.json"},
	Nested:      true,
	Events:      []string{"PreToolUse"},
	Skeleton:    "{}\n",
	Entries: func(self string, o Options) []Entry {
		return []Entry{{"PreToolUse", compact(hookGroup{
			Matcher: claudeMatcher,
			Hooks:   []commandHook{{Type: "command", Command: self, Args: []string{"hook"}, Timeout: timeout}},
		})}}
	},
	// Managed settings (managed-settings.json and managed-settings.d/) can turn every other
	// hook off (allowManagedHooksOnly); https://code.claude.com/docs/en/settings.
	Others: func(_ string, env func(string) (string, bool), goos string) []File {
		dir := systemDir(goos, env, "claude-code", "ClaudeCode", "")
		if goos == "windows" {
			dir = fromEnv(env, "ProgramFiles", "C:/Program Files") + "/ClaudeCode"
		}
		return []File{{Path: dir, Dir: true, What: "Claude Code's managed settings"}}
	},
	Plugin: &Plugin{Enabled: "enabledPlugins", Name: "ctxguard", Hooks: []byte(claudePluginHooks)},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"session_id": "ctxguard-doctor", "transcript_path": "", "cwd": cwd, "permission_mode": "default",
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "ctxguard-doctor",
			"tool_input": map[string]any{"command": command, "description": "ctxguard doctor self-test"},
		})
	},
	Refusal: claudeRefusal,
	Client:  &Client{Program: "claude", Check: claudeCheck},
	Needs:   strings.Split(claudeMatcher, "|"),
	Matches: claudeMatches,
	Unseen: map[string]string{
		"Monitor": "a Monitor call goes through the Bash hooks instead, and Claude Code runs its original command whatever ctxguard binds",
	},
}

// claudeExecForm is the first Claude Code that runs a hook's command with its args and no
// shell (https://code.claude.com/docs/en/hooks).
const claudeExecForm = "2.1.139"

// claudeCheck says whether a Claude Code version runs a handler. One older than the exec form
// runs an exec-form entry's command alone, through a shell (Git Bash on Windows), without its
// args (measured on 2.1.138); ctxguard run with no arguments and a payload answers as the hook,
// so the entry works as long as the shell reads the path as one word. When it does not, the
// hook cannot start, which Claude Code counts as a hook error that lets the command run.
func claudeCheck(version string, argv []string, _, goos string) (string, bool) {
	if argv == nil || !versionLess(version, claudeExecForm) {
		return "", true
	}
	old := "it predates the exec form of hook commands (" + claudeExecForm + ") and runs the entry's command alone, through a shell"
	switch {
	case goos == "windows" && strings.Contains(argv[0], `\`):
		return old + ", which turns the backslashes of " + argv[0] + " into nothing: the hook cannot start, and every command would run unchecked (or give the entry a path with forward slashes)", false
	case shell.Quote(argv[0]) != argv[0]:
		return old + ", which splits " + argv[0] + " into several words: the hook cannot start, and every command would run unchecked (or install ctxguard at a path without spaces, then ctxguard install claude)", false
	}
	return old + "; ctxguard, given no arguments and a payload, answers as the hook", true
}

// claudeMatches reports whether a matcher lets a tool through, by Claude Code's rules
// (https://code.claude.com/docs/en/hooks, "Matcher patterns"): empty or "*" matches every tool;
// letters, digits, _, -, spaces, commas and | only make a list of exact names; anything else is
// an unanchored regular expression.
func claudeMatches(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if strings.Trim(matcher, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- ,|") == "" {
		for _, name := range strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			if strings.TrimSpace(name) == tool {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(tool)
}

// claudeMatcher names every tool ctxguard reads (claudeShells, claudeFileTools). Monitor must be
// named: a Monitor call that no hook names reaches the Bash hooks as tool "Bash", and Claude
// Code then runs the original command, whatever updatedInput says (measured on 2.1.328).
const claudeMatcher = "Bash|PowerShell|Monitor|Write|Edit|MultiEdit|NotebookEdit"

// claudePluginHooks is the hooks file of ctxguard's Claude Code plugin (.claude-plugin/hooks.json
// in the repository). The plugin runs ctxguard from PATH.
const claudePluginHooks = `{"hooks":{"PreToolUse":[{"matcher":"` + claudeMatcher + `","hooks":[{"type":"command","command":"ctxguard hook","timeout":30}]}]}}`

// ClaudeDecision reads an answer in Claude Code's shape as the harness does: the permission
// decision ("" for none: silence, or a rewrite that leaves the decision to the client's own
// rules), its reason (a rewrite's is its additionalContext), and the command that runs instead
// when the answer replaces the tool input ("" when it does not). The programs and tests that
// judge by what ran (internal/cmd/race, internal/adversary) read answers with it.
func ClaudeDecision(answer []byte) (decision, reason, command string, err error) {
	if len(bytes.TrimSpace(answer)) == 0 {
		return "", "", "", nil
	}
	var v struct {
		Hook struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			Context  string `json:"additionalContext"`
			Input    *struct {
				Command string `json:"command"`
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(bytes.NewReader(answer))
	if err := dec.Decode(&v); err != nil {
		return "", "", "", fmt.Errorf("read claude answer: %w", err)
	}
	if dec.More() {
		return "", "", "", errors.New("read claude answer: more than one JSON value")
	}
	if v.Hook.Decision == "" && v.Hook.Input == nil {
		return "", "", "", errors.New("read claude answer: neither a permissionDecision nor an updatedInput")
	}
	if v.Hook.Input != nil {
		command = v.Hook.Input.Command
	}
	return v.Hook.Decision, cmp.Or(v.Hook.Reason, v.Hook.Context), command, nil
}

// claudeRefusal reads Claude Code's answer, which Codex reads too.
func claudeRefusal(answer []byte) (string, error) {
	return refusal(answer, func(o *claudeOutput) string { return o.HookSpecificOutput.PermissionDecisionReason })
}

// claudeFileTools are Claude Code's tools that write a file, and the tool_input fields that name
// it and hold what it writes (https://code.claude.com/docs/en/hooks, "PreToolUse input").
// ctxguard reads them so that an agent cannot rewrite ctxguard's own policy or hooks, which would
// switch the guard off, and for the policy's rules about what is written (a content pattern in a
// *.bicep). Every other tool that is not a shell stays unread, and the hook stays silent on it.
var claudeFileTools = map[string]fileTool{
	"Write":        {paths: []string{"file_path"}, text: "content"},
	"Edit":         {paths: []string{"file_path"}, old: "old_string", text: "new_string", all: "replace_all"},
	"MultiEdit":    {paths: []string{"file_path"}, edits: "edits", old: "old_string", text: "new_string", all: "replace_all"},
	"NotebookEdit": {paths: []string{"notebook_path", "file_path"}, text: "new_source"},
}
