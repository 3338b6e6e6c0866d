package harness

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// goose is goose's PreToolUse hook (block/goose documentation/docs/guides/context-engineering/hooks.md,
// https://goose-docs.ai/docs/guides/context-engineering/hooks/). Hooks live in plugin folders;
// the payload is {event, session_id, tool_name, tool_input, working_dir, tool_call_id, …}, and
// the hook denies with {"decision": "block", "reason": …} (or exit 2 and stderr). goose can
// neither ask nor rewrite: an ask is a deny that says a human must run the command, a rewrite a
// deny that carries the fixed one.
type goose struct{}

// gooseShells maps goose's shell tool (the developer extension's) to its shell.
var gooseShells = shellTools{"developer__shell": bashTool}

func (goose) Name() string { return "goose" }

func (goose) decode(top object, goos string) (*Request, error) {
	if event, ok, err := top.str("event"); err != nil {
		return nil, err
	} else if ok && event != "PreToolUse" {
		return nil, fmt.Errorf("hook event is %s, want PreToolUse", event)
	}
	req := &Request{}
	if err := top.strs(field{"tool_name", &req.Tool}, field{"session_id", &req.Session}, field{"working_dir", &req.Cwd}); err != nil {
		return nil, err
	}
	if req.Tool == "" {
		return nil, errors.New("missing tool_name")
	}
	input, _ := top.get("tool_input")
	return withShellArgs(req, goos, gooseShells, input, "tool_input")
}

// gooseOutput is goose's answer to a PreToolUse hook; goose tells the model the reason.
type gooseOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

func (o gooseOutput) appendJSON(b []byte) []byte {
	var f fields
	f.str("decision", o.Decision, false)
	f.str("reason", o.Reason, true)
	return f.object(b)
}

func (goose) Encode(w io.Writer, req *Request, a Answer) error {
	d, err := decide(req, narrow(a, limits{}), "")
	if err != nil {
		return fmt.Errorf("answer goose: %w", err)
	}
	if d.permission == "" {
		return nil
	}
	if err := write(w, gooseOutput{Decision: "block", Reason: d.reason}); err != nil {
		return fmt.Errorf("answer goose: %w", err)
	}
	return nil
}

// gooseSetup wires ctxguard into goose as a plugin of its own, ctxguard, in the user's or the
// project's .agents/plugins folder: a manifest and hooks/hooks.json. goose runs the command with
// the shell of its developer extension (crates/goose/src/hooks/shell.rs): sh -c, and on Windows
// cmd /C with the line quoted as one argument by Rust's rules, which cmd does not read, so there
// a path that needs quotes cannot be run at all (Refuse). on_failure block makes goose deny the
// call when the hook gives no decision (it crashed, timed out or printed something else), where
// by default it would let it run.
var gooseSetup = Setup{
	Title: "goose",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, ".agents", "plugins", "ctxguard", "hooks", "hooks.json"))
	},
	ProjectFile:  ".agents/plugins/ctxguard/hooks/hooks.json",
	Nested:       true,
	Events:       []string{"PreToolUse"},
	Skeleton:     "{}\n",
	Own:          true,
	Beside:       map[string]string{"../plugin.json": gooseManifest},
	WindowsShell: Cmd,
	Refuse: func(self string, o Options) error {
		return cmdRefuses("goose", self, o)
	},
	Entries: func(self string, o Options) []Entry {
		return []Entry{{"PreToolUse", compact(hookGroup{
			Matcher: "^developer__shell$",
			Hooks: []commandHook{{
				Type: "command", Command: hookLine(o.GOOS, Cmd, self, "hook", "--harness", "goose"), Timeout: timeout, OnFailure: "block",
			}},
		})}}
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"event": "PreToolUse", "session_id": "ctxguard-doctor", "matcher_context": "developer__shell",
			"tool_name": "developer__shell", "tool_input": map[string]any{"command": command},
			"working_dir": cwd, "tool_call_id": "ctxguard-doctor",
		})
	},
	Refusal: func(answer []byte) (string, error) {
		return refusal(answer, func(o *gooseOutput) string { return o.Reason })
	},
	Note: "goose loads plugins when it starts: restart it. A project's plugins load when goose starts in that project.",
}

// gooseManifest is the plugin.json of ctxguard's goose plugin.
const gooseManifest = `{
  "name": "ctxguard",
  "version": "1",
  "description": "ctxguard checks every shell command against the repository's policy (written by ctxguard install goose)"
}
`
