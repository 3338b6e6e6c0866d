package harness

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// cursor is Cursor's agent hooks (https://cursor.com/docs/agent/hooks), on either of the two
// events that see a shell command:
//
//   - beforeShellExecution sends the command at the top level ({command, cwd, …}) and takes
//     allow, deny or ask, but cannot change the command: a rewrite becomes a deny whose reason
//     carries the fixed command.
//   - preToolUse (tool Shell) sends tool_input {command, working_directory} and can rewrite with
//     updated_input, but does not enforce ask: an ask becomes a deny that says a human must run
//     the command.
//
// Both answer {permission, user_message, agent_message}.
type cursor struct{}

const (
	cursorShellEvent = "beforeShellExecution"
	cursorToolEvent  = "preToolUse"
)

// cursorShells maps Cursor's shell tool to its shell: the agent's terminal, PowerShell on
// Windows.
var cursorShells = shellTools{"Shell": systemShell}

func (cursor) Name() string { return "cursor" }

func (cursor) decode(top object, goos string) (*Request, error) {
	event, _, err := top.str("hook_event_name")
	if err != nil {
		return nil, err
	}
	if event == "" {
		// An older payload without the event name: the shape tells.
		event = cursorToolEvent
		if top.has("command") && !top.has("tool_name") {
			event = cursorShellEvent
		}
	}
	req := &Request{event: event}
	if err := top.strs(field{"conversation_id", &req.Session}, field{"cwd", &req.Cwd}); err != nil {
		return nil, err
	}
	if req.Cwd == "" {
		var err error
		if req.Cwd, err = firstOf(top, "workspace_roots"); err != nil {
			return nil, err
		}
	}
	switch event {
	case cursorShellEvent:
		cmd, ok, err := top.str("command")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("beforeShellExecution payload has no command")
		}
		req.Tool, req.Shell, req.Command = "Shell", cursorShells.shell("Shell", goos), cmd
		return req, nil
	case cursorToolEvent:
		if err := top.strs(field{"tool_name", &req.Tool}); err != nil {
			return nil, err
		}
		if req.Tool == "" {
			return nil, errors.New("missing tool_name")
		}
		input, _ := top.get("tool_input")
		if req, err = withShellArgs(req, goos, cursorShells, input, "tool_input"); err != nil || req.Shell == "" {
			return req, err
		}
		dir, _, err := req.args.str("working_directory")
		if err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		if dir != "" {
			req.Cwd = joinDir(req.Cwd, dir)
		}
		return req, nil
	}
	return nil, fmt.Errorf("hook event is %s, want %s or %s", event, cursorShellEvent, cursorToolEvent)
}

// cursorOutput is Cursor's answer: user_message is shown to the user, agent_message to the
// agent.
type cursorOutput struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
	UpdatedInput object `json:"updated_input,omitempty"`
}

func (o cursorOutput) appendJSON(b []byte) []byte {
	var f fields
	f.str("permission", o.Permission, false)
	f.str("user_message", o.UserMessage, true)
	f.str("agent_message", o.AgentMessage, true)
	f.obj("updated_input", o.UpdatedInput, len(o.UpdatedInput) == 0)
	return f.object(b)
}

func (cursor) Encode(w io.Writer, req *Request, a Answer) error {
	l := limits{rewrite: true, ask: false} // preToolUse, and a request of unknown event
	if req != nil && req.event == cursorShellEvent {
		l = limits{rewrite: false, ask: true}
	}
	// Cursor sends no permission mode; as for Copilot CLI, a rewrite is answered allow unless
	// the policy says ask.
	d, err := decide(req, narrow(a, l), "allow")
	if err != nil {
		return fmt.Errorf("answer cursor: %w", err)
	}
	if d.permission == "" {
		return nil
	}
	out := cursorOutput{Permission: d.permission, UserMessage: d.reason, AgentMessage: d.reason, UpdatedInput: d.args}
	if err := write(w, out); err != nil {
		return fmt.Errorf("answer cursor: %w", err)
	}
	return nil
}

// cursorHook is a Cursor hook entry. failClosed makes a crash, a timeout or an unreadable answer
// block the command instead of letting it run.
type cursorHook struct {
	Command    string `json:"command"`
	Matcher    string `json:"matcher,omitempty"`
	Timeout    int    `json:"timeout"`
	FailClosed bool   `json:"failClosed"`
}

// cursorSetup wires ctxguard into Cursor: beforeShellExecution, which sees every shell command
// and can ask; with Options.Rewrite also preToolUse on the Shell tool, which can bind a command
// in place (and turns an ask into a deny).
var cursorSetup = Setup{
	Title: "Cursor",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, ".cursor", "hooks.json"))
	},
	ProjectFile: ".cursor/hooks.json",
	Events:      []string{cursorShellEvent, cursorToolEvent},
	Skeleton:    "{\n  \"version\": 1\n}\n",
	RewriteHook: true,
	Entries: func(self string, o Options) []Entry {
		cmd := hookLine(o.GOOS, PowerShell, self, "hook", "--harness", "cursor")
		out := []Entry{{cursorShellEvent, compact(cursorHook{Command: cmd, Timeout: timeout, FailClosed: true})}}
		if o.Rewrite {
			out = append(out, Entry{cursorToolEvent, compact(cursorHook{Command: cmd, Matcher: "Shell", Timeout: timeout, FailClosed: true})})
		}
		return out
	},
	// Enterprise hooks (https://cursor.com/docs/agent/hooks, "Configuration").
	Others: func(_ string, env func(string) (string, bool), goos string) []File {
		return []File{{Path: systemDir(goos, env, "cursor", "Cursor", "Cursor") + "/hooks.json", What: "Cursor's enterprise hooks"}}
	},
	AlsoRuns: &AlsoRuns{Harness: "claude",
		Why: "Cursor, with third-party hooks on, also runs the hooks in .claude/settings*.json and ~/.claude/settings.json"},
	Refusal: func(answer []byte) (string, error) {
		return refusal(answer, func(o *cursorOutput) string { return o.AgentMessage })
	},
	Probe: func(event, command, cwd string) []byte {
		base := map[string]any{
			"conversation_id": "ctxguard-doctor", "generation_id": "ctxguard-doctor", "model": "default",
			"hook_event_name": event, "cursor_version": "0", "workspace_roots": []string{cwd},
			"user_email": nil, "transcript_path": nil,
		}
		if event == cursorToolEvent {
			base["tool_name"] = "Shell"
			base["tool_input"] = map[string]any{"command": command, "working_directory": cwd}
		} else {
			base["command"], base["cwd"], base["sandbox"] = command, cwd, false
		}
		return compact(base)
	},
	Note: "Cursor runs project hooks only in a trusted workspace; with third-party hooks on, it also runs the hooks in .claude/settings.json.",
}
