package harness

import (
	"path/filepath"
)

// droid is Factory Droid's PreToolUse hook (https://docs.factory.ai/reference/hooks-reference).
// Droid sends Claude Code's payload (its shell tool is Execute, and permission_mode names its
// autonomy level, such as auto-high) and reads Claude Code's answer.
//
// Its ask is not enforced: `droid exec` runs the command when a hook answers ask, at every
// autonomy level, so an ask becomes a deny that says a human must run the command. A rewrite is
// updatedInput with no decision: Droid then judges the bound command by its own autonomy level
// (and asks where it would). An allow with it would run the call past that level: in
// `droid exec --auto low`, a call the model marked high risk ran. Its shell tool is Execute.
var droid = snakeCase{name: "droid", shells: shellTools{"Execute": bashTool}, limits: limits{rewrite: true, ask: false}}

// droidSetup wires ctxguard into Droid: its hooks.json is the bare event map (no "hooks" key),
// with Claude Code's groups. Without a hooks.json, Droid reads the "hooks" key of the settings.json
// beside it; once hooks.json exists it no longer does, which is why install writes hooks.json.
// Droid hands a hook command to spawn with shell "sh" (seen in the bundle of @factory/cli
// 0.225), a POSIX line on every system: Git Bash's sh on Windows.
var droidSetup = Setup{
	Title: "Factory Droid",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return filepath.ToSlash(filepath.Join(home, ".factory", "hooks.json"))
	},
	ProjectFile:  ".factory/hooks.json",
	Also:         []string{".factory/hooks/hooks.json"}, // the legacy place, still read
	Nested:       true,
	Bare:         true,
	WindowsShell: Sh,
	Events:       []string{"PreToolUse"},
	Skeleton:     "{}\n",
	Own:          true,
	Entries: func(self string, o Options) []Entry {
		return []Entry{{"PreToolUse", compact(hookGroup{
			Matcher: "Execute",
			Hooks:   []commandHook{{Type: "command", Command: hookLine(o.GOOS, Sh, self, "hook", "--harness", "droid"), Timeout: timeout}},
		})}}
	},
	// The settings files hold hooks too when there is no hooks.json.
	Others: func(home string, _ func(string) (string, bool), _ string) []File {
		out := []File{
			{Path: ".factory/settings.json", Project: true, What: "Factory Droid's settings"},
			{Path: ".factory/settings.local.json", Project: true, What: "Factory Droid's settings"},
		}
		if home != "" {
			out = append(out, File{Path: filepath.ToSlash(filepath.Join(home, ".factory", "settings.json")), What: "Factory Droid's settings"})
		}
		return out
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"session_id": "ctxguard-doctor", "transcript_path": "", "cwd": cwd, "permission_mode": "auto-low",
			"hook_event_name": "PreToolUse", "tool_name": "Execute",
			"tool_input": map[string]any{"command": command, "riskLevelReason": "ctxguard doctor self-test", "riskLevel": "low"},
		})
	},
	Refusal: claudeRefusal,
	Note:    "Droid reads hooks when it starts: restart it, and review the entry in /hooks.",
}
