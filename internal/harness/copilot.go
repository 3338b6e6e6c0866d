package harness

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// copilot is GitHub Copilot CLI's preToolUse hook
// (https://docs.github.com/en/copilot/reference/hooks-reference). It reads both payloads Copilot
// sends: the native camelCase one ({sessionId, timestamp, cwd, toolName, toolArgs}) and the VS
// Code-compatible snake_case one that a hook configured under the PascalCase event PreToolUse
// gets ({hook_event_name, session_id, timestamp, cwd, tool_name, tool_input}). The answer has
// the same top-level fields for both.
type copilot struct{}

// copilotShells maps Copilot's shell tools to their shell. The snake_case payload reports
// Claude Code's tool names, and reports both bash and powershell as "Bash"; Copilot CLI's shell
// tool is powershell on Windows and bash elsewhere, so "Bash" is read as the one of the system.
var copilotShells = shellTools{
	"bash":       bashTool,
	"powershell": powershellTool,
	"Bash":       systemShell,
	"PowerShell": powershellTool,
}

func (copilot) Name() string { return "copilot" }

func (copilot) decode(top object, goos string) (*Request, error) {
	if !top.has("toolName") && !top.has("toolArgs") && (top.has("tool_name") || top.has("tool_input")) {
		return decodeSnakeCase(top, goos, copilotShells)
	}
	req := &Request{}
	err := top.strs(field{"toolName", &req.Tool}, field{"sessionId", &req.Session}, field{"agentId", &req.Agent}, field{"cwd", &req.Cwd})
	if err != nil {
		return nil, err
	}
	if req.Tool == "" {
		return nil, errors.New("missing toolName")
	}
	raw, _ := top.get("toolArgs")
	if req, err = withShellArgs(req, goos, copilotShells, raw, "toolArgs"); err != nil {
		return nil, err
	}
	return withFilePaths(req, raw, "toolArgs", copilotFileTools)
}

// copilotFileTools are Copilot CLI's tools that write a file, and the toolArgs fields that name
// it and hold what it writes, read as Claude Code's are (claudeFileTools). Measured on Copilot CLI
// 1.0.102: create {path, file_text} and edit {path, old_str, new_str}, with an absolute path.
var copilotFileTools = map[string]fileTool{
	"create": {paths: []string{"path"}, text: "file_text"},
	"edit":   {paths: []string{"path"}, old: "old_str", text: "new_str"},
}

// copilotOutput is Copilot CLI's preToolUse decision. Copilot parses all of stdout as one JSON
// document, so the adapter writes exactly one object.
type copilotOutput struct {
	// PermissionDecision is left out of a rewrite, so that Copilot's own rules (--allow-tool,
	// --deny-tool, the approval prompt) decide on the modified arguments.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// ModifiedArgs replaces the tool arguments (honoured since Copilot CLI 1.0.24).
	ModifiedArgs object `json:"modifiedArgs,omitempty"`
	// AdditionalContext carries a rewrite's reason to the model (Copilot CLI 1.0.24 and later).
	AdditionalContext string `json:"additionalContext,omitempty"`
}

func (o copilotOutput) appendJSON(b []byte) []byte {
	var f fields
	f.str("permissionDecision", o.PermissionDecision, true)
	f.str("permissionDecisionReason", o.PermissionDecisionReason, true)
	f.obj("modifiedArgs", o.ModifiedArgs, len(o.ModifiedArgs) == 0)
	f.str("additionalContext", o.AdditionalContext, true)
	return f.object(b)
}

func (copilot) Encode(w io.Writer, req *Request, a Answer) error {
	d, err := decide(req, a, "")
	if err != nil {
		return fmt.Errorf("answer copilot: %w", err)
	}
	if d.permission == "" && d.args == nil {
		return nil
	}
	out := copilotOutput{PermissionDecision: d.permission, PermissionDecisionReason: d.reason, ModifiedArgs: d.args}
	if d.permission == "" {
		out.PermissionDecisionReason, out.AdditionalContext = "", d.reason
	}
	if err := write(w, out); err != nil {
		return fmt.Errorf("answer copilot: %w", err)
	}
	return nil
}

// copilotHook is a Copilot CLI hook entry: bash on Linux and macOS, powershell on Windows.
type copilotHook struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	PowerShell string `json:"powershell"`
	TimeoutSec int    `json:"timeoutSec"`
	Matcher    string `json:"matcher"`
}

// copilotSetup wires ctxguard into Copilot CLI with a file of its own in the hooks folder, which
// Copilot reads whole (every *.json there).
var copilotSetup = Setup{
	Title: "GitHub Copilot CLI",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return homeDir(home, env, "COPILOT_HOME", ".copilot") + "/hooks/ctxguard.json"
	},
	ProjectFile: ".github/hooks/ctxguard.json",
	Glob:        true,
	Events:      []string{"preToolUse"},
	Skeleton:    "{\n  \"version\": 1\n}\n",
	Own:         true,
	Entries: func(self string, o Options) []Entry {
		return []Entry{{"preToolUse", compact(copilotHook{
			Type:       "command",
			Bash:       shLine(self, "hook", "--harness", "copilot"),
			PowerShell: psLine(self, "hook", "--harness", "copilot"),
			TimeoutSec: timeout,
			Matcher:    copilotMatcher,
		})}}
	},
	// Copilot also reads hooks inline in its settings files, and from the machine's policy
	// folder (https://docs.github.com/en/copilot/reference/hooks-reference, "Hooks locations").
	Others: func(home string, env func(string) (string, bool), goos string) []File {
		out := []File{{Path: ".github/copilot/settings*.json", Project: true, What: "GitHub Copilot CLI's repository settings"}}
		if home != "" {
			out = append(out, File{Path: homeDir(home, env, "COPILOT_HOME", ".copilot") + "/settings.json", What: "GitHub Copilot CLI's settings"})
		}
		policy := "/etc/github-copilot/policy.d"
		if goos == "windows" {
			policy = systemDir(goos, env, "", "", "GitHub/Copilot/policy.d")
		}
		return append(out, File{Path: policy, Dir: true, What: "GitHub Copilot CLI's hook policy"})
	},
	AlsoRuns: &AlsoRuns{Harness: "claude", ProjectOnly: true,
		Why: "Copilot CLI also runs the hooks in the project's .claude/settings.json and settings.local.json"},
	Probe: func(_, command, cwd string) []byte {
		args := compact(map[string]any{"command": command, "description": "ctxguard doctor self-test"})
		return compact(map[string]any{"sessionId": "ctxguard-doctor", "timestamp": 0, "cwd": cwd, "toolName": "bash", "toolArgs": string(args)})
	},
	Refusal: func(answer []byte) (string, error) {
		return refusal(answer, func(o *copilotOutput) string { return o.PermissionDecisionReason })
	},
	Note:    "Copilot CLI runs repository hooks in -p mode only in a trusted folder (or with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true).",
	Client:  &Client{Program: "copilot", Check: copilotCheck},
	Needs:   strings.Split(copilotMatcher, "|"),
	Matches: copilotMatches,
}

// copilotMatcher names the tools ctxguard reads (copilotShells, copilotFileTools).
const copilotMatcher = "bash|powershell|create|edit"

// copilotRewrite is the first Copilot CLI that applies modifiedArgs (its changelog, 1.0.24);
// before it, the original command runs.
const copilotRewrite = "1.0.24"

func copilotCheck(version string, _ []string, _, _ string) (string, bool) {
	if versionLess(version, copilotRewrite) {
		return "it ignores modifiedArgs (applied from " + copilotRewrite + "), so a command ctxguard binds would run unbound", false
	}
	return "", true
}

// copilotMatches reports whether a matcher lets a tool through: a regular expression anchored
// at both ends (https://docs.github.com/en/copilot/reference/hooks-reference); none matches
// every tool.
func copilotMatches(matcher, tool string) bool {
	if matcher == "" {
		return true
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	return err == nil && re.MatchString(tool)
}
