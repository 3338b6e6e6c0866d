package harness

import (
	"path/filepath"
)

// qwen is Qwen Code's PreToolUse hook (https://qwenlm.github.io/qwen-code-docs/en/users/features/hooks/).
// Qwen Code forked Gemini CLI but took Claude Code's hook contract: the payload is Claude Code's
// snake_case one (with a timestamp and Gemini's tool names), and the answer is
// hookSpecificOutput.permissionDecision allow, deny or ask.
//
// It cannot rewrite: its PreToolUse output has no updatedInput (only PermissionRequest's answer
// does, in 0.24), and an allow that carries one runs the original command. A rewrite is
// therefore a deny that carries the fixed command. Its ask is honoured, and headless (-p) it is
// a refusal. Its shell tool is run_shell_command.
var qwen = snakeCase{name: "qwen", shells: shellTools{"run_shell_command": bashTool}, limits: limits{rewrite: false, ask: true}}

// qwenSetup wires ctxguard into Qwen Code: a PreToolUse group for its shell tool in Claude Code's
// layout, in Gemini CLI's settings files. Its timeout is in seconds, but a value of 1000 or more
// is read as milliseconds (older builds took milliseconds only), so 30000 is 30 s for all of
// them. On Windows Qwen Code runs a hook command with %ComSpec% (cmd /d /s /c), quoting the line
// as one argument by Node's rules, which cmd does not read, unless the hook names its shell
// (packages/core/src/hooks/hookRunner.ts, getShellConfigForHook): the entry says "shell":
// "powershell", which runs powershell -Command LINE.
var qwenSetup = Setup{
	Title: "Qwen Code",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, ".qwen", "settings.json"))
	},
	ProjectFile: ".qwen/settings.json",
	Nested:      true,
	Events:      []string{"PreToolUse"},
	Skeleton:    "{}\n",
	Entries: func(self string, o Options) []Entry {
		h := commandHook{
			Type: "command", Name: "ctxguard", Command: hookLine(o.GOOS, PowerShell, self, "hook", "--harness", "qwen"),
			Timeout: timeout * 1000,
		}
		if o.GOOS == "windows" {
			h.Shell = "powershell"
		}
		return []Entry{{"PreToolUse", compact(hookGroup{Matcher: "^run_shell_command$", Hooks: []commandHook{h}})}}
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"session_id": "ctxguard-doctor", "transcript_path": "", "cwd": cwd, "hook_event_name": "PreToolUse",
			"timestamp": probeTime, "permission_mode": "default", "tool_name": "run_shell_command",
			"tool_input":  map[string]any{"command": command, "description": "ctxguard doctor self-test"},
			"tool_use_id": "ctxguard-doctor",
		})
	},
	Refusal: claudeRefusal,
	Note:    "Qwen Code runs a project's hooks only in a trusted folder.",
}
