package harness

import (
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

// codex is OpenAI Codex CLI's PreToolUse hook (https://developers.openai.com/codex/hooks). It
// sends Claude Code's payload with a turn_id and a model, and reads Claude Code's answer, except
// that it cannot ask: an ask (parsed but unsupported, the call then runs) becomes a deny that
// says a human must run the command. A rewrite is allow with updatedInput, which Codex only
// accepts together; the rewritten call still goes through Codex's own approval policy.
var codex = snakeCase{name: "codex", shells: codexShells, files: codexFileTools, limits: limits{rewrite: true, ask: false}, rewriteDecision: "allow"}

// codexShells maps Codex's shell tool to its shell: the session's shell, which is PowerShell on
// Windows (codex-rs shell-command/src/shell_detect.rs, default_user_shell_from_path).
var codexShells = shellTools{"Bash": systemShell}

// codexFileTools is Codex's file tool. Its PreToolUse payload carries the whole patch as
// tool_input.command (openai/codex#18391, since 0.124); codexPatch reads it.
var codexFileTools = map[string]fileTool{"apply_patch": {patch: "command"}}

// codexPatch reads a patch in Codex's apply_patch format: a file section starts with "*** Add
// File: PATH" (the new file, each line after a +), "*** Delete File: PATH" or "*** Update File:
// PATH" (an optional "*** Move to: PATH", then hunks from @@ whose lines start with a blank, -
// or +); paths are relative to the session's directory. It returns every file the patch adds,
// deletes, updates or moves to, and what it writes: a new file's text, and each hunk as the
// lines it replaces and the lines it leaves.
func codexPatch(patch string) (paths []string, changes []rules.Change) {
	var ch *rules.Change
	flush := func() {
		if ch != nil && (ch.Old != "" || ch.New != "") {
			changes = append(changes, *ch)
		}
		ch = nil
	}
	for line := range strings.Lines(patch) {
		line = strings.TrimRight(line, "\r\n")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "*** "); ok {
			for _, op := range []string{"Add File: ", "Delete File: ", "Update File: ", "Move to: "} {
				if p, ok := strings.CutPrefix(rest, op); ok && strings.TrimSpace(p) != "" {
					flush()
					paths = append(paths, strings.TrimSpace(p))
					if op == "Add File: " {
						ch = &rules.Change{Path: paths[len(paths)-1]}
					}
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "@@"):
			flush()
			ch = &rules.Change{}
			if len(paths) > 0 {
				ch.Path = paths[len(paths)-1]
			}
		case ch == nil:
		case strings.HasPrefix(line, "+"):
			ch.New += line[1:] + "\n"
		case strings.HasPrefix(line, "-"):
			ch.Old += line[1:] + "\n"
		default:
			ctx := strings.TrimPrefix(line, " ") + "\n"
			ch.Old, ch.New = ch.Old+ctx, ch.New+ctx
		}
	}
	flush()
	return paths, changes
}

// codexUnattended: Codex sends permission_mode bypassPermissions when it never asks (approval
// policy never, as codex exec runs). Its default mode runs sandboxed commands without asking
// too, so whether a human confirms a call there is not known.
func codexUnattended(mode, _ string) *bool {
	if mode == "bypassPermissions" {
		return known(true)
	}
	return nil
}

// codexSetup wires ctxguard into Codex CLI: Claude Code's layout in hooks.json, for its shell
// tool and its file tool. Codex runs a hook only once the user has trusted it in /hooks, and again after its
// command changes (a new binary path).
var codexSetup = Setup{
	Title: "Codex CLI",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return homeDir(home, env, "CODEX_HOME", ".codex") + "/hooks.json"
	},
	ProjectFile: ".codex/hooks.json",
	Nested:      true,
	Events:      []string{"PreToolUse"},
	Skeleton:    "{}\n",
	// On Windows Codex runs commandWindows instead of command (codex-rs hooks: command_for_platform),
	// through the session's shell, PowerShell.
	Entries: func(self string, o Options) []Entry {
		h := commandHook{Type: "command", Command: shLine(self, "hook", "--harness", "codex"), Timeout: timeout}
		if o.GOOS == "windows" {
			h.CommandWindows = psLine(self, "hook", "--harness", "codex")
		}
		return []Entry{{"PreToolUse", compact(hookGroup{Matcher: "^(Bash|apply_patch)$", Hooks: []commandHook{h}})}}
	},
	// Codex also reads hooks from a [hooks] table in config.toml.
	Others: func(home string, env func(string) (string, bool), _ string) []File {
		out := []File{{Path: ".codex/config.toml", Project: true, What: "Codex CLI's project config"}}
		if home != "" {
			out = append(out, File{Path: homeDir(home, env, "CODEX_HOME", ".codex") + "/config.toml", What: "Codex CLI's config"})
		}
		return out
	},
	Refusal: claudeRefusal,
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"session_id": "ctxguard-doctor", "turn_id": "ctxguard-doctor", "transcript_path": nil, "cwd": cwd,
			"hook_event_name": "PreToolUse", "model": "ctxguard-doctor", "permission_mode": "default",
			"tool_name": "Bash", "tool_use_id": "ctxguard-doctor", "tool_input": map[string]any{"command": command},
		})
	},
	Note:   "Codex runs a hook only after you trust it: open /hooks in Codex and trust the ctxguard entry (again after the binary moves).",
	Client: &Client{Program: "codex"},
}
