package harness

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// gemini is Gemini CLI's BeforeTool hook (google-gemini/gemini-cli docs/hooks/reference.md).
// Its payload is snake_case like Claude Code's, with its own event and tool names; its answer is
// different: a top-level decision and reason, and a rewrite as hookSpecificOutput.tool_input,
// which Gemini merges over the original arguments.
type gemini struct{}

// geminiShells maps Gemini CLI's shell tool to its shell: bash, and on Windows PowerShell
// (packages/core/src/utils/shell-utils.ts, getShellConfiguration).
var geminiShells = shellTools{"run_shell_command": systemShell}

func (gemini) Name() string { return "gemini" }

func (gemini) decode(top object, goos string) (*Request, error) {
	if event, ok, err := top.str("hook_event_name"); err != nil {
		return nil, err
	} else if ok && event != "BeforeTool" {
		return nil, fmt.Errorf("hook event is %s, want BeforeTool", event)
	}
	req := &Request{}
	if err := top.strs(field{"tool_name", &req.Tool}, field{"session_id", &req.Session}, field{"cwd", &req.Cwd}); err != nil {
		return nil, err
	}
	if req.Tool == "" {
		return nil, errors.New("missing tool_name")
	}
	input, _ := top.get("tool_input")
	req, err := withShellArgs(req, goos, geminiShells, input, "tool_input")
	if err != nil {
		return nil, err
	}
	if req.Shell == "" {
		return withFilePaths(req, input, "tool_input", geminiFileTools)
	}
	// run_shell_command runs in dir_path when it is given: a directory of the workspace, absolute
	// or relative to the project root, which is the hook's cwd.
	dir, _, err := req.args.str("dir_path")
	if err != nil {
		return nil, fmt.Errorf("tool_input: %w", err)
	}
	if dir = strings.TrimSpace(dir); dir != "" {
		req.Cwd = joinDir(req.Cwd, dir)
	}
	return req, nil
}

// geminiFileTools are Gemini CLI's tools that write a file: write_file {file_path, content} and
// replace {file_path, old_string, new_string, expected_replacements}
// (google-gemini/gemini-cli docs/tools/file-system.md).
var geminiFileTools = map[string]fileTool{
	"write_file": {paths: []string{"file_path"}, text: "content"},
	"replace":    {paths: []string{"file_path"}, old: "old_string", text: "new_string", all: "expected_replacements"},
}

// geminiOutput is Gemini CLI's BeforeTool answer. reason is what the agent reads for a deny.
type geminiOutput struct {
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName string `json:"hookEventName"`
	// ToolInput is merged over the tool's arguments; it carries all of them, so that a Gemini
	// that replaced instead of merging would still run the same call.
	ToolInput object `json:"tool_input"`
}

func (o geminiOutput) appendJSON(b []byte) []byte {
	var f fields
	f.str("decision", o.Decision, true)
	f.str("reason", o.Reason, true)
	f.str("systemMessage", o.SystemMessage, true)
	if o.HookSpecificOutput != nil {
		f.obj("hookSpecificOutput", *o.HookSpecificOutput, false)
	}
	return f.object(b)
}

func (s geminiSpecific) appendJSON(b []byte) []byte {
	var f fields
	f.str("hookEventName", s.HookEventName, false)
	f.obj("tool_input", s.ToolInput, false)
	return f.object(b)
}

// geminiLimits: Gemini CLI can rewrite, and can ask (decision "ask" forces a confirmation in
// its source, undocumented; a Gemini that ignored it would fall back to its own confirmation,
// which never widens what runs).
var geminiLimits = limits{rewrite: true, ask: true}

func (gemini) Encode(w io.Writer, req *Request, a Answer) error {
	// A rewrite without a policy setting sends no decision at all: the rewritten call then goes
	// through Gemini's own confirmation as the original would have.
	d, err := decide(req, narrow(a, geminiLimits), "")
	if err != nil {
		return fmt.Errorf("answer gemini: %w", err)
	}
	if d.permission == "" && d.args == nil {
		return nil
	}
	out := geminiOutput{Decision: d.permission, Reason: d.reason}
	if d.args != nil {
		out.HookSpecificOutput = &geminiSpecific{HookEventName: "BeforeTool", ToolInput: d.args}
		if d.permission == "" {
			out.Reason, out.SystemMessage = "", d.reason
		}
	}
	if err := write(w, out); err != nil {
		return fmt.Errorf("answer gemini: %w", err)
	}
	return nil
}

// geminiSetup wires ctxguard into Gemini CLI: a BeforeTool group for its shell tool. Gemini
// gives the hook's command to a shell, and counts its timeout in milliseconds.
var geminiSetup = Setup{
	Title: "Gemini CLI",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, ".gemini", "settings.json"))
	},
	ProjectFile: ".gemini/settings.json",
	Nested:      true,
	Events:      []string{"BeforeTool"},
	Skeleton:    "{}\n",
	Entries: func(self string, o Options) []Entry {
		return []Entry{{"BeforeTool", compact(hookGroup{
			Matcher: "run_shell_command|write_file|replace",
			Hooks: []commandHook{{
				Type: "command", Name: "ctxguard", Command: hookLine(o.GOOS, PowerShell, self, "hook", "--harness", "gemini"),
				Timeout: timeout * 1000,
			}},
		})}}
	},
	// The system settings override every other file, and the system defaults sit under them;
	// environment variables move both (google-gemini/gemini-cli docs/get-started/configuration.md).
	Others: func(_ string, env func(string) (string, bool), goos string) []File {
		dir := systemDir(goos, env, "gemini-cli", "GeminiCli", "gemini-cli")
		return []File{
			{Path: fromEnv(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH", dir+"/settings.json"), What: "Gemini CLI's system settings"},
			{Path: fromEnv(env, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", dir+"/system-defaults.json"), What: "Gemini CLI's system defaults"},
		}
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"session_id": "ctxguard-doctor", "transcript_path": "", "cwd": cwd, "hook_event_name": "BeforeTool",
			"timestamp": probeTime, "tool_name": "run_shell_command",
			"tool_input": map[string]any{"command": command, "description": "ctxguard doctor self-test"},
		})
	},
	Refusal: func(answer []byte) (string, error) {
		return refusal(answer, func(o *geminiOutput) string { return cmp.Or(o.Reason, o.SystemMessage) })
	},
	Note:   "Gemini CLI fingerprints project hooks: it asks you to trust the entry the first time it sees it.",
	Client: &Client{Program: "gemini"},
}
