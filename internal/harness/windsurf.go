package harness

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ctxguard/ctxguard/rules"
)

// windsurf is Windsurf's Cascade hook pre_run_command (https://docs.windsurf.com/windsurf/cascade/hooks,
// now https://docs.devin.ai/desktop/cascade/hooks). Its payload is {agent_action_name,
// trajectory_id, execution_id, timestamp, tool_info: {command_line, cwd}}, and it reads nothing
// but the exit code: 2 blocks the command and shows stderr to the agent, anything else lets it
// run. So it can neither ask nor rewrite: an ask is a deny that says a human must run the
// command, a rewrite a deny that carries the fixed one.
type windsurf struct{}

const windsurfEvent = "pre_run_command"

func (windsurf) Name() string { return "windsurf" }

func (windsurf) decode(top object, goos string) (*Request, error) {
	event, _, err := top.str("agent_action_name")
	if err != nil {
		return nil, err
	}
	if event != windsurfEvent {
		return nil, fmt.Errorf("hook event is %q, want %s", event, windsurfEvent)
	}
	req := &Request{Request: rules.Request{Tool: "run_command", Shell: systemShell.on(goos)}}
	if err := top.strs(field{"trajectory_id", &req.Session}); err != nil {
		return nil, err
	}
	raw, _ := top.get("tool_info")
	if raw == nil || isNull(raw) {
		return nil, errors.New("missing tool_info")
	}
	info, err := argsObject(raw, "tool_info")
	if err != nil {
		return nil, err
	}
	cmd, ok, err := info.str("command_line")
	if err != nil {
		return nil, fmt.Errorf("tool_info: %w", err)
	}
	if !ok {
		return nil, errors.New("tool_info has no command_line")
	}
	if err := info.strs(field{"cwd", &req.Cwd}); err != nil {
		return nil, fmt.Errorf("tool_info: %w", err)
	}
	req.Command = cmd
	return req, nil
}

func (windsurf) Encode(_ io.Writer, req *Request, a Answer) error {
	d, err := decide(req, narrow(a, limits{}), "")
	if err != nil {
		return fmt.Errorf("answer windsurf: %w", err)
	}
	if d.permission == "" {
		return nil
	}
	return Blocked{Reason: d.reason}
}

// windsurfHook is a Cascade hook entry; show_output puts the hook's stderr (ctxguard's reason) in
// the Cascade panel as well.
type windsurfHook struct {
	Command    string `json:"command"`
	ShowOutput bool   `json:"show_output"`
}

// windsurfSetup wires ctxguard into Cascade: a pre_run_command entry in the user's or the
// workspace's hooks.json. Cascade merges them with the machine's file and runs all of them,
// system first. Windsurf's documentation does not say which shell runs a hook command on
// Windows; Cascade runs its own commands in PowerShell there, so the line is PowerShell's, which
// for a path without spaces or quotes is the same line in cmd.
var windsurfSetup = Setup{
	Title: "Windsurf",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, ".codeium", "windsurf", "hooks.json"))
	},
	ProjectFile: ".windsurf/hooks.json",
	Events:      []string{windsurfEvent},
	Skeleton:    "{}\n",
	Own:         true,
	Entries: func(self string, o Options) []Entry {
		return []Entry{{windsurfEvent, compact(windsurfHook{Command: hookLine(o.GOOS, PowerShell, self, "hook", "--harness", "windsurf"), ShowOutput: true})}}
	},
	Others: func(_ string, env func(string) (string, bool), goos string) []File {
		return []File{{Path: systemDir(goos, env, "windsurf", "Windsurf", "Windsurf") + "/hooks.json", What: "Windsurf's system hooks"}}
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"agent_action_name": windsurfEvent, "trajectory_id": "ctxguard-doctor", "execution_id": "ctxguard-doctor",
			"timestamp": probeTime, "tool_info": map[string]any{"command_line": command, "cwd": cwd},
		})
	},
	Note: "Windsurf reads hooks.json when it starts: restart it. It runs a command when a hook times out or crashes.",
}
