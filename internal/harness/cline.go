package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctxguard/ctxguard/internal/shell"
)

// cline is Cline's PreToolUse hook: an executable file named PreToolUse in one of Cline's hook
// folders (cline/cline .clinerules/hooks/README.md; sdk/packages/core/src/hooks/ for the CLI and
// the SDK). Cline writes {clineVersion, hookName, timestamp, taskId, workspaceRoots, preToolUse:
// {toolName, parameters}} to its stdin, every parameter as a string, and reads the last JSON on
// its stdout: {"cancel": true, "errorMessage": …} refuses the tool call.
//
// Cline can neither ask nor rewrite: the SDK reads an overrideInput, but the VS Code extension
// does not, so an ask is a deny that says a human must run the command and a rewrite a deny that
// carries the fixed one. A hook that fails, times out or prints no JSON is skipped and the tool
// runs; ctxguard itself answers every error with a deny.
type cline struct{}

// Cline's shell tools: the SDK's run_commands {commands: [command or {command, args}]}, and the
// older execute_command {command, requires_approval}. Both run in PowerShell on Windows and in
// /bin/bash elsewhere.
const (
	clineRunCommands    = "run_commands"
	clineExecuteCommand = "execute_command"
)

func (cline) Name() string { return "cline" }

func (cline) decode(top object, goos string) (*Request, error) {
	if name, ok, err := top.str("hookName"); err != nil {
		return nil, err
	} else if ok && name != "PreToolUse" && name != "tool_call" {
		return nil, fmt.Errorf("hook is %s, want PreToolUse", name)
	}
	req := &Request{}
	if err := top.strs(field{"taskId", &req.Session}); err != nil {
		return nil, err
	}
	var err error
	if req.Cwd, err = firstOf(top, "workspaceRoots"); err != nil {
		return nil, err
	}
	raw, _ := top.get("preToolUse")
	if raw == nil || isNull(raw) {
		return nil, errors.New("missing preToolUse")
	}
	pre, err := argsObject(raw, "preToolUse")
	if err != nil {
		return nil, err
	}
	if err := pre.strs(field{"toolName", &req.Tool}); err != nil {
		return nil, fmt.Errorf("preToolUse: %w", err)
	}
	if req.Tool == "" {
		return nil, errors.New("preToolUse has no toolName")
	}
	if req.Tool != clineRunCommands && req.Tool != clineExecuteCommand {
		return req, nil
	}
	params, _ := pre.get("parameters")
	if params == nil || isNull(params) {
		return nil, errors.New("preToolUse has no parameters")
	}
	obj, err := argsObject(params, "preToolUse.parameters")
	if err != nil {
		return nil, err
	}
	req.Shell = systemShell.on(goos)
	if req.Tool == clineExecuteCommand {
		cmd, ok, err := obj.str("command")
		if err != nil {
			return nil, fmt.Errorf("preToolUse.parameters: %w", err)
		}
		if !ok {
			return nil, errors.New("preToolUse.parameters has no command")
		}
		req.Command = cmd
		return req, nil
	}
	list, ok, err := obj.str("commands")
	if err != nil {
		return nil, fmt.Errorf("preToolUse.parameters: %w", err)
	}
	if !ok {
		return nil, errors.New("preToolUse.parameters has no commands")
	}
	if req.Command, err = clineCommands(list); err != nil {
		return nil, fmt.Errorf("preToolUse.parameters.commands: %w", err)
	}
	return req, nil
}

// clineCommands reads run_commands' commands, which Cline passes to the hook JSON-encoded: a
// list of command lines or of {command, args}. Each runs in a shell of its own, so more than one
// are read as subshells, one a line: a cd in one does not move the next.
func clineCommands(list string) (string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(list), &items); err != nil {
		// One command, not JSON-encoded.
		return list, nil
	}
	var lines []string
	for _, it := range items {
		var line string
		if json.Unmarshal(it, &line) != nil {
			var s struct {
				Command *string  `json:"command"`
				Args    []string `json:"args"`
			}
			if err := json.Unmarshal(it, &s); err != nil || s.Command == nil {
				return "", fmt.Errorf("an entry is neither a command line nor {command, args}: %s", it)
			}
			words := []string{shell.Quote(*s.Command)}
			for _, a := range s.Args {
				words = append(words, shell.Quote(a))
			}
			line = strings.Join(words, " ")
		}
		lines = append(lines, line)
	}
	switch len(lines) {
	case 0:
		return "", errors.New("no command")
	case 1:
		return lines[0], nil
	}
	for i, l := range lines {
		lines[i] = "(" + l + ")"
	}
	return strings.Join(lines, "\n"), nil
}

// firstOf is the first string of an array member (a payload's workspace roots), "" when there is
// none; read as [object.str] reads a string, so that an invalid byte is an error rather than a
// U+FFFD in a path.
func firstOf(top object, key string) (string, error) {
	raw, ok := top.get(key)
	if !ok {
		return "", nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return "", nil
	}
	s, _, err := object{{key, list[0]}}.str(key)
	return s, err
}

// clineOutput is Cline's hook answer; errorMessage is what the agent reads.
type clineOutput struct {
	Cancel       bool   `json:"cancel"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

func (o clineOutput) appendJSON(b []byte) []byte {
	var f fields
	f.bool("cancel", o.Cancel)
	f.str("errorMessage", o.ErrorMessage, true)
	return f.object(b)
}

func (cline) Encode(w io.Writer, req *Request, a Answer) error {
	d, err := decide(req, narrow(a, limits{}), "")
	if err != nil {
		return fmt.Errorf("answer cline: %w", err)
	}
	if d.permission == "" {
		return nil
	}
	if err := write(w, clineOutput{Cancel: true, ErrorMessage: d.reason}); err != nil {
		return fmt.Errorf("answer cline: %w", err)
	}
	return nil
}

// clineSetup wires ctxguard into Cline: an executable PreToolUse in the user's or the project's
// hook folder that runs the binary. Cline runs a hook file by its shebang, else by its extension
// (sdk/packages/core/src/hooks/hook-file-hooks.ts, inferHookCommand): a file without either with
// bash, which Windows may not have, and PreToolUse.ps1 with powershell -File, so on Windows the
// file is PreToolUse.ps1, a PowerShell script.
var clineSetup = Setup{
	Title: "Cline",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, "Documents", "Cline", "Hooks", "PreToolUse"))
	},
	ProjectFile: ".clinerules/hooks/PreToolUse",
	Script: func(self string, o Options) ([]byte, error) {
		const about = scriptMark + " cline`: Cline runs it before every tool call.\n"
		if o.GOOS == "windows" {
			return []byte("# " + about + psLine(self, "hook", "--harness", "cline") + "\nexit $LASTEXITCODE\n"), nil
		}
		return []byte("#!/bin/sh\n# " + about + "exec " + shLine(self, "hook", "--harness", "cline") + "\n"), nil
	},
	Executable: true,
	WindowsExt: ".ps1",
	// Cline runs every PreToolUse file in all of its hook folders, and merges their answers.
	Others: func(home string, env func(string) (string, bool), _ string) []File {
		out := []File{
			{Path: ".clinerules/hooks", Project: true, Dir: true, What: "Cline's hooks folder"},
			{Path: ".cline/hooks", Project: true, Dir: true, What: "Cline's hooks folder"},
		}
		if home != "" {
			h := filepath.ToSlash(home)
			out = append(out,
				File{Path: h + "/Documents/Cline/Hooks", Dir: true, What: "Cline's hooks folder"},
				File{Path: fromEnv(env, "CLINE_DIR", h+"/.cline") + "/hooks", Dir: true, What: "Cline's hooks folder"})
		}
		return out
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"clineVersion": "ctxguard-doctor", "hookName": "PreToolUse", "timestamp": probeTime, "taskId": "ctxguard-doctor",
			"workspaceRoots": []string{cwd}, "userId": "ctxguard-doctor",
			"preToolUse": map[string]any{"toolName": clineExecuteCommand, "parameters": map[string]any{"command": command, "requires_approval": "false"}},
		})
	},
	Refusal: func(answer []byte) (string, error) {
		return refusal(answer, func(o *clineOutput) string { return o.ErrorMessage })
	},
	Note: "in VS Code, turn hooks on in Cline's settings (Feature Settings, Enable Hooks).",
}
