package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxguard/ctxguard/rules"
)

// Sample payloads of Claude Code, Copilot CLI, Gemini CLI, Cursor and Codex, each as the
// harness's hook documentation shows it (ids made up).
const (
	claudeSample        = `{"session_id":"7b1e2c9a-5d1f","transcript_path":"/home/dev/.claude/projects/-home-dev-infra/7b1e2c9a.jsonl","cwd":"/home/dev/infra","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"az group list","description":"List resource groups","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01AbCd"}`
	codexSample         = `{"session_id":"s1","turn_id":"t1","transcript_path":null,"cwd":"/home/dev/infra","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_use_id":"c1","tool_input":{"command":"az group list"}}`
	copilotSample       = `{"sessionId":"c0ffee00-1111","timestamp":1787400000000,"cwd":"/home/dev/infra","toolName":"bash","toolArgs":"{\"command\":\"az group list\",\"description\":\"List resource groups\"}"}`
	copilotObjectSample = `{"sessionId":"c0ffee00-1111","timestamp":1787400000000,"cwd":"/home/dev/infra","toolName":"bash","toolArgs":{"command":"az group list","description":"List resource groups"}}`
	// Copilot's VS Code-compatible payload, for a hook configured under PascalCase PreToolUse.
	copilotSnakeSample = `{"hook_event_name":"PreToolUse","session_id":"c0ffee00-2222","timestamp":"2026-08-22T10:15:00.000Z","cwd":"/home/dev/infra","tool_name":"Bash","tool_input":{"command":"az group list","description":"List resource groups"}}`
	geminiSample       = `{"session_id":"a1b2c3","transcript_path":"/x.json","cwd":"/home/dev/infra","hook_event_name":"BeforeTool","timestamp":"2026-08-22T10:15:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"az group list"}}`
	geminiFullSample   = `{"session_id":"a1b2c3","transcript_path":"/home/dev/.gemini/tmp/ab12/chats/session-a1b2c3.json","cwd":"/home/dev/infra","hook_event_name":"BeforeTool","timestamp":"2026-08-22T10:15:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"az group list","description":"List resource groups"}}`
	cursorShellSample  = `{"conversation_id":"conv-9f2","generation_id":"gen-77a","model":"default","hook_event_name":"beforeShellExecution","cursor_version":"3.21.16","workspace_roots":["/home/dev/infra"],"user_email":null,"transcript_path":null,"command":"az group list","cwd":"/home/dev/infra","sandbox":false}`
	cursorToolSample   = `{"conversation_id":"conv-9f2","generation_id":"gen-77a","model":"default","hook_event_name":"preToolUse","cursor_version":"3.21.16","workspace_roots":["/home/dev/infra"],"tool_name":"Shell","tool_input":{"command":"az group list","working_directory":"/home/dev/infra/sub"}}`
)

// claudeInput is a Claude Code payload in the given permission mode with the given tool_input.
func claudeInput(mode, toolInput string) string {
	return `{"session_id":"s","cwd":"/w","permission_mode":"` + mode + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":` + toolInput + `}`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		harness string
		payload string
		want    *Request
	}{
		{"claude sample", "claude", claudeSample, &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "7b1e2c9a-5d1f", Mode: "default"}}},
		{"claude powershell", "claude", `{"session_id":"s","cwd":"C:\\w","permission_mode":"auto","tool_name":"PowerShell","tool_input":{"command":"Get-AzContext"}}`, &Request{Request: rules.Request{Harness: "claude", Tool: "PowerShell", Shell: "powershell", Command: "Get-AzContext", Cwd: `C:\w`, Session: "s", Mode: "auto"}}},
		{"claude without mode", "claude", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "ls"}}},
		{"claude non-shell tool", "claude", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}`, &Request{Request: rules.Request{Harness: "claude", Tool: "Read", Cwd: "/w", Session: "s"}}},
		{"claude non-shell tool without input", "claude", `{"tool_name":"TaskStop"}`, &Request{Request: rules.Request{Harness: "claude", Tool: "TaskStop"}}},
		{"codex", "claude", codexSample, &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "s1", Mode: "default"}}},
		{"claude duplicate command: the last wins", "claude", claudeInput("default", `{"command":"echo a","command":"az group delete"}`), &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "az group delete", Cwd: "/w", Session: "s", Mode: "default"}}},
		{"claude Command is not command", "claude", claudeInput("default", `{"Command":"echo a","command":"az group delete"}`), &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "az group delete", Cwd: "/w", Session: "s", Mode: "default"}}},
		{"claude empty command", "claude", claudeInput("default", `{"command":""}`), &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Cwd: "/w", Session: "s", Mode: "default"}}},
		{"claude escaped U+FFFD is kept", "claude", claudeInput("default", `{"command":"echo \ufffd"}`), &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "echo \uFFFD", Cwd: "/w", Session: "s", Mode: "default"}}},
		{"copilot sample, string toolArgs", "copilot", copilotSample, &Request{Request: rules.Request{Harness: "copilot", Tool: "bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "c0ffee00-1111"}}},
		{"copilot object toolArgs", "copilot", copilotObjectSample, &Request{Request: rules.Request{Harness: "copilot", Tool: "bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "c0ffee00-1111"}}},
		{"copilot powershell", "copilot", `{"sessionId":"p","cwd":"C:\\w","toolName":"powershell","toolArgs":"{\"command\":\"Get-AzContext\"}"}`, &Request{Request: rules.Request{Harness: "copilot", Tool: "powershell", Shell: "powershell", Command: "Get-AzContext", Cwd: `C:\w`, Session: "p"}}},
		{"copilot snake_case", "copilot", copilotSnakeSample, &Request{Request: rules.Request{Harness: "copilot", Tool: "Bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "c0ffee00-2222"}}},
		{"copilot snake_case string tool_input", "copilot", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":"{\"command\":\"ls\"}"}`, &Request{Request: rules.Request{Harness: "copilot", Tool: "Bash", Shell: "bash", Command: "ls", Session: "s"}}},
		{"copilot create names its file", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"create","toolArgs":{"path":"/w/.ctxguard.yaml","file_text":"x"}}`, &Request{Request: rules.Request{Harness: "copilot", Tool: "create", Cwd: "/w", Session: "s", Paths: []string{"/w/.ctxguard.yaml"}}}},
		{"copilot edit names its file, toolArgs a string", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"edit","toolArgs":"{\"path\":\"/w/a\",\"old_str\":\"x\",\"new_str\":\"y\"}"}`, &Request{Request: rules.Request{Harness: "copilot", Tool: "edit", Cwd: "/w", Session: "s", Paths: []string{"/w/a"}}}},
		{"claude Monitor is a shell tool", "claude", `{"tool_name":"Monitor","tool_input":{"description":"d","timeout_ms":300000,"command":"az group list"}}`, &Request{Request: rules.Request{Harness: "claude", Tool: "Monitor", Shell: "bash", Command: "az group list"}}},
		{"copilot non-shell tool, args not read", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"view","toolArgs":"not json"}`, &Request{Request: rules.Request{Harness: "copilot", Tool: "view", Cwd: "/w", Session: "s"}}},
		{"claude adapter reads copilot snake_case", "claude", copilotSnakeSample, &Request{Request: rules.Request{Harness: "claude", Tool: "Bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "c0ffee00-2222"}}},
		{"gemini sample", "gemini", geminiFullSample, &Request{Request: rules.Request{Harness: "gemini", Tool: "run_shell_command", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "a1b2c3"}}},
		{"gemini dir_path relative", "gemini", `{"cwd":"/w","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"infra/prod"}}`, &Request{Request: rules.Request{Harness: "gemini", Tool: "run_shell_command", Shell: "bash", Command: "ls", Cwd: filepath.FromSlash("/w/infra/prod")}}},
		{"gemini dir_path absolute", "gemini", `{"cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"/srv"}}`, &Request{Request: rules.Request{Harness: "gemini", Tool: "run_shell_command", Shell: "bash", Command: "ls", Cwd: "/srv"}}},
		{"gemini other tool", "gemini", `{"cwd":"/w","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"path":"x"}}`, &Request{Request: rules.Request{Harness: "gemini", Tool: "read_file", Cwd: "/w"}}},
		{"cursor beforeShellExecution", "cursor", cursorShellSample, &Request{Request: rules.Request{Harness: "cursor", Tool: "Shell", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "conv-9f2"}}},
		{"cursor working_directory relative", "cursor", `{"conversation_id":"c","hook_event_name":"preToolUse","cwd":"/w","tool_name":"Shell","tool_input":{"command":"ls","working_directory":"infra/prod"}}`, &Request{Request: rules.Request{Harness: "cursor", Tool: "Shell", Shell: "bash", Command: "ls", Cwd: filepath.FromSlash("/w/infra/prod"), Session: "c"}}},
		{"cursor beforeShellExecution without cwd", "cursor", `{"conversation_id":"c","hook_event_name":"beforeShellExecution","workspace_roots":["/r"],"command":"ls"}`, &Request{Request: rules.Request{Harness: "cursor", Tool: "Shell", Shell: "bash", Command: "ls", Cwd: "/r", Session: "c"}}},
		{"cursor preToolUse", "cursor", cursorToolSample, &Request{Request: rules.Request{Harness: "cursor", Tool: "Shell", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra/sub", Session: "conv-9f2"}}},
		{"cursor preToolUse other tool", "cursor", `{"hook_event_name":"preToolUse","tool_name":"Read","tool_input":{"file_path":"x"}}`, &Request{Request: rules.Request{Harness: "cursor", Tool: "Read"}}},
		{"codex sample", "codex", codexSample, &Request{Request: rules.Request{Harness: "codex", Tool: "Bash", Shell: "bash", Command: "az group list", Cwd: "/home/dev/infra", Session: "s1", Mode: "default"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			got, err := decodeOn(h, []byte(tt.payload), "linux")
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			// The facts for conditions are TestDecodeFacts', what file tools write TestFileChanges'.
			facts := cmpopts.IgnoreFields(rules.Request{}, "Unattended", "Subagent", "Changes")
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(Request{}), facts); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeShellOnWindows: on Windows the shell tool of Codex, Gemini CLI, Cursor and
// Copilot CLI (whose snake_case payload calls every shell tool Bash) runs PowerShell; Claude
// Code's Bash tool is Git Bash, and its PowerShell tool PowerShell.
func TestDecodeShellOnWindows(t *testing.T) {
	tests := []struct {
		name, harness, payload, want string
	}{
		{"claude Bash is Git Bash", "claude", claudeSample, "bash"},
		{"claude PowerShell", "claude", `{"tool_name":"PowerShell","tool_input":{"command":"ls"}}`, "powershell"},
		{"copilot bash tool", "copilot", copilotSample, "bash"},
		{"copilot powershell tool", "copilot", `{"toolName":"powershell","toolArgs":{"command":"ls"}}`, "powershell"},
		{"copilot snake_case Bash", "copilot", copilotSnakeSample, "powershell"},
		{"codex", "codex", codexSample, "powershell"},
		{"gemini", "gemini", geminiSample, "powershell"},
		{"cursor beforeShellExecution", "cursor", cursorShellSample, "powershell"},
		{"cursor preToolUse", "cursor", cursorToolSample, "powershell"},
	}
	for _, tt := range tests {
		h, _ := Lookup(tt.harness)
		req, err := decodeOn(h, []byte(tt.payload), "windows")
		if err != nil || req.Shell != tt.want {
			t.Errorf("%s: Shell = %q, %v; want %q", tt.name, req.Shell, err, tt.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		harness string
		payload string
		want    string // a substring of the error
	}{
		{"empty", "claude", ``, "read claude payload: empty payload"},
		{"invalid json", "claude", `{"tool_name":`, "invalid json"},
		{"array", "claude", `[1]`, "not a json object"},
		{"trailing data", "claude", claudeSample + `{}`, "data after the object"},
		{"two objects", "copilot", copilotSample + "\n" + copilotSample, "data after the object"},
		{"missing tool_name", "claude", `{"tool_input":{"command":"ls"}}`, "missing tool_name"},
		{"tool_name not a string", "claude", `{"tool_name":1,"tool_input":{"command":"ls"}}`, "tool_name is not a string"},
		{"cwd not a string", "claude", `{"tool_name":"Bash","cwd":["/"],"tool_input":{"command":"ls"}}`, "cwd is not a string"},
		{"missing tool_input", "claude", `{"tool_name":"Bash"}`, "missing tool_input"},
		{"null tool_input", "claude", `{"tool_name":"Bash","tool_input":null}`, "missing tool_input"},
		{"tool_input not an object", "claude", `{"tool_name":"Bash","tool_input":[]}`, "tool_input: payload is not a json object"},
		{"missing command", "claude", claudeInput("default", `{"description":"x"}`), "tool_input has no command"},
		{"null command", "claude", claudeInput("default", `{"command":null}`), "tool_input has no command"},
		{"command not a string", "claude", claudeInput("default", `{"command":["az"]}`), "tool_input: command is not a string"},
		{"lone surrogate", "claude", claudeInput("default", `{"command":"echo \ud800"}`), "command is not valid unicode"},
		{"invalid utf-8", "claude", claudeInput("default", "{\"command\":\"echo \xff\"}"), "command is not valid unicode"},
		{"other event", "claude", geminiSample, "hook event is BeforeTool, want PreToolUse"},
		{"copilot missing toolName", "copilot", `{"toolArgs":"{\"command\":\"ls\"}"}`, "read copilot payload: missing toolName"},
		{"copilot toolArgs string not json", "copilot", `{"toolName":"bash","toolArgs":"az group list"}`, "toolArgs: invalid json"},
		{"copilot toolArgs missing", "copilot", `{"toolName":"bash"}`, "missing toolArgs"},
		{"copilot toolArgs without command", "copilot", `{"toolName":"bash","toolArgs":"{}"}`, "toolArgs has no command"},
		{"copilot neither shape", "copilot", `{"sessionId":"s"}`, "missing toolName"},
		{"copilot edit without a path", "copilot", `{"toolName":"edit","toolArgs":{"old_str":"a"}}`, "toolArgs of edit names no file"},
		{"copilot create without args", "copilot", `{"toolName":"create"}`, "missing toolArgs for create"},
		{"gemini other event", "gemini", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, "read gemini payload: hook event is AfterTool, want BeforeTool"},
		{"gemini without command", "gemini", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{}}`, "tool_input has no command"},
		{"gemini dir_path not a string", "gemini", `{"tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":1}}`, "tool_input: dir_path is not a string"},
		{"cursor other event", "cursor", `{"hook_event_name":"afterFileEdit"}`, "read cursor payload: hook event is afterFileEdit"},
		{"cursor shell without command", "cursor", `{"hook_event_name":"beforeShellExecution","cwd":"/w"}`, "beforeShellExecution payload has no command"},
		{"cursor command not a string", "cursor", `{"hook_event_name":"beforeShellExecution","command":["ls"]}`, "command is not a string"},
		{"cursor preToolUse without tool_input", "cursor", `{"hook_event_name":"preToolUse","tool_name":"Shell"}`, "missing tool_input"},
		{"cursor workspace root not unicode", "cursor", "{\"hook_event_name\":\"beforeShellExecution\",\"workspace_roots\":[\"/r\xff\"],\"command\":\"ls\"}", "workspace_roots is not valid unicode"},
		{"cline workspace root not unicode", "cline", "{\"hookName\":\"PreToolUse\",\"workspaceRoots\":[\"/w\\udc00\"],\"preToolUse\":{\"toolName\":\"execute_command\",\"parameters\":{\"command\":\"ls\"}}}", "workspaceRoots is not valid unicode"},
		{"codex other event", "codex", geminiSample, "read codex payload: hook event is BeforeTool, want PreToolUse"},
		{"codex apply_patch naming no file", "codex", codexPatchPayload("*** Begin Patch\n*** End Patch\n"), "tool_input of apply_patch names no file"},
		{"codex apply_patch without input", "codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch"}`, "missing tool_input for apply_patch"},
		{"codex apply_patch not a string", "codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":["x"]}}`, "tool_input: command is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			req, err := Decode(h, []byte(tt.payload))
			if err == nil {
				t.Fatalf("Decode = %+v, want an error containing %q", req, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	const bound = "az group list --subscription dev-sub"
	tests := []struct {
		name    string
		harness string
		payload string
		answer  Answer
		want    string // the exact output; "" is silence
	}{
		{"claude allow is silence", "claude", claudeSample, Answer{Verdict: rules.VerdictAllow, Reason: "fine"}, ""},
		{"claude allow with a command is silence", "claude", claudeSample, Answer{Verdict: rules.VerdictAllow, Command: bound}, ""},
		{
			"claude deny sample", "claude", claudeSample,
			Answer{Verdict: rules.VerdictDeny, Reason: "ctxguard: active az subscription is prod-sub, repo expects dev-sub. Add --subscription dev-sub or run az account set -s dev-sub"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"ctxguard: active az subscription is prod-sub, repo expects dev-sub. Add --subscription dev-sub or run az account set -s dev-sub"}}`,
		},
		{
			"claude deny without a reason gets one", "claude", claudeSample, Answer{Verdict: rules.VerdictDeny},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"ctxguard denied this command"}}`,
		},
		{
			"claude deny never carries a command", "claude", claudeSample, Answer{Verdict: rules.VerdictDeny, Reason: "no", Command: bound},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
		},
		{
			"claude ask", "claude", claudeSample, Answer{Verdict: rules.VerdictAsk, Reason: "az group delete is destructive"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"az group delete is destructive"}}`,
		},
		{
			"claude ask with the bound line", "claude", claudeSample, Answer{Verdict: rules.VerdictAsk, Reason: "r", Command: bound},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"r","updatedInput":{"command":"az group list --subscription dev-sub","description":"List resource groups","timeout":120000,"run_in_background":false}}}`,
		},
		{
			"claude rewrite sample: no decision", "claude", claudeSample,
			Answer{Verdict: rules.VerdictRewrite, Reason: "ctxguard pinned --subscription dev-sub", Command: bound},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"az group list --subscription dev-sub","description":"List resource groups","timeout":120000,"run_in_background":false},"additionalContext":"ctxguard pinned --subscription dev-sub"}}`,
		},
		{
			"claude rewrite keeps every field byte for byte", "claude",
			claudeInput("auto", `{"description":"Deploy","command":"kubectl apply -f x && echo done","timeout":600000,"run_in_background":true,"x_future":{"n":[1.50,1e3,-0],"s":"\u00e9<&>"}}`),
			Answer{Verdict: rules.VerdictRewrite, Command: "kubectl apply -f x --context dev && echo done"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"description":"Deploy","command":"kubectl apply -f x --context dev && echo done","timeout":600000,"run_in_background":true,"x_future":{"n":[1.50,1e3,-0],"s":"\u00e9<&>"}}}}`,
		},
		{
			"claude rewrite drops a duplicate command", "claude", claudeInput("auto", `{"command":"echo a","timeout":5,"command":"az group list"}`),
			Answer{Verdict: rules.VerdictRewrite, Command: bound},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"az group list --subscription dev-sub","timeout":5}}}`,
		},
		{
			"copilot deny sample", "copilot", copilotSample, Answer{Verdict: rules.VerdictDeny, Reason: "ctxguard: az subscription prod-sub != dev-sub"},
			`{"permissionDecision":"deny","permissionDecisionReason":"ctxguard: az subscription prod-sub != dev-sub"}`,
		},
		{
			"copilot deny without a reason gets one", "copilot", copilotSample, Answer{Verdict: rules.VerdictDeny},
			`{"permissionDecision":"deny","permissionDecisionReason":"ctxguard denied this command"}`,
		},
		{"copilot allow is silence", "copilot", copilotSample, Answer{Verdict: rules.VerdictAllow}, ""},
		{
			"copilot ask", "copilot", copilotSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive"},
			`{"permissionDecision":"ask","permissionDecisionReason":"destructive"}`,
		},
		{
			"copilot ask with the bound line", "copilot", copilotSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive", Command: bound},
			`{"permissionDecision":"ask","permissionDecisionReason":"destructive","modifiedArgs":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}`,
		},
		{
			"copilot rewrite sample", "copilot", copilotSample, Answer{Verdict: rules.VerdictRewrite, Command: bound},
			`{"modifiedArgs":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}`,
		},
		{
			"copilot rewrite, object toolArgs: the reason goes to the model", "copilot", copilotObjectSample, Answer{Verdict: rules.VerdictRewrite, Reason: "bound", Command: bound},
			`{"modifiedArgs":{"command":"az group list --subscription dev-sub","description":"List resource groups"},"additionalContext":"bound"}`,
		},
		{
			"copilot rewrite, policy says ask", "copilot", copilotSample, Answer{Verdict: rules.VerdictRewrite, Command: bound, ConfirmRewrite: true},
			`{"permissionDecision":"ask","modifiedArgs":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}`,
		},
		{
			"copilot rewrite, snake_case payload", "copilot", copilotSnakeSample, Answer{Verdict: rules.VerdictRewrite, Command: bound},
			`{"modifiedArgs":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}`,
		},
		{
			"gemini deny sample", "gemini", geminiFullSample, Answer{Verdict: rules.VerdictDeny, Reason: "ctxguard: az subscription prod-sub != dev-sub"},
			`{"decision":"deny","reason":"ctxguard: az subscription prod-sub != dev-sub"}`,
		},
		{"gemini allow is silence", "gemini", geminiFullSample, Answer{Verdict: rules.VerdictAllow}, ""},
		{
			"gemini ask", "gemini", geminiFullSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive"},
			`{"decision":"ask","reason":"destructive"}`,
		},
		{
			"gemini rewrite sends no decision", "gemini", geminiFullSample, Answer{Verdict: rules.VerdictRewrite, Reason: "bound", Command: bound},
			`{"systemMessage":"bound","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}}`,
		},
		{
			"gemini rewrite, policy says ask", "gemini", geminiFullSample, Answer{Verdict: rules.VerdictRewrite, Reason: "bound", Command: bound, ConfirmRewrite: true},
			`{"decision":"ask","reason":"bound","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}}`,
		},
		{
			"gemini ask with the bound line", "gemini", geminiFullSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive", Command: bound},
			`{"decision":"ask","reason":"destructive","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"az group list --subscription dev-sub","description":"List resource groups"}}}`,
		},
		{
			"cursor shell deny", "cursor", cursorShellSample, Answer{Verdict: rules.VerdictDeny, Reason: "wrong subscription"},
			`{"permission":"deny","user_message":"wrong subscription","agent_message":"wrong subscription"}`,
		},
		{"cursor shell allow is silence", "cursor", cursorShellSample, Answer{Verdict: rules.VerdictAllow}, ""},
		{
			"cursor shell ask", "cursor", cursorShellSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive"},
			`{"permission":"ask","user_message":"destructive","agent_message":"destructive"}`,
		},
		{
			"cursor shell cannot rewrite: deny with the fixed command", "cursor", cursorShellSample, Answer{Verdict: rules.VerdictRewrite, Reason: "[ctxguard/az.rebind] bound", Command: bound},
			`{"permission":"deny","user_message":"[ctxguard/az.rebind] bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: az group list --subscription dev-sub","agent_message":"[ctxguard/az.rebind] bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: az group list --subscription dev-sub"}`,
		},
		{
			"cursor shell ask with a bound line: deny with the fixed command", "cursor", cursorShellSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive", Command: bound},
			`{"permission":"deny","user_message":"destructive — this harness cannot run a changed command in place of the one sent, so run exactly this instead: az group list --subscription dev-sub","agent_message":"destructive — this harness cannot run a changed command in place of the one sent, so run exactly this instead: az group list --subscription dev-sub"}`,
		},
		{
			"cursor preToolUse rewrite", "cursor", cursorToolSample, Answer{Verdict: rules.VerdictRewrite, Command: bound},
			`{"permission":"allow","updated_input":{"command":"az group list --subscription dev-sub","working_directory":"/home/dev/infra/sub"}}`,
		},
		{
			"cursor preToolUse cannot ask", "cursor", cursorToolSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive"},
			`{"permission":"deny","user_message":"destructive — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves","agent_message":"destructive — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves"}`,
		},
		{
			"codex deny", "codex", codexSample, Answer{Verdict: rules.VerdictDeny, Reason: "no"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
		},
		{"codex allow is silence", "codex", codexSample, Answer{Verdict: rules.VerdictAllow}, ""},
		{
			"codex rewrite is allow with updatedInput, whatever the mode", "codex", codexSample, Answer{Verdict: rules.VerdictRewrite, Command: bound},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"az group list --subscription dev-sub"}}}`,
		},
		{
			"codex cannot ask", "codex", codexSample, Answer{Verdict: rules.VerdictAsk, Reason: "destructive", Command: bound},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"destructive — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves, as: az group list --subscription dev-sub"}}`,
		},
		{
			"codex rewrite the policy wants shown: deny with the fixed command", "codex", codexSample, Answer{Verdict: rules.VerdictRewrite, Reason: "bound", Command: bound, ConfirmRewrite: true},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: az group list --subscription dev-sub"}}`,
		},
		{
			"copilot rewrite keeps unknown args", "copilot",
			`{"toolName":"bash","toolArgs":"{\"command\":\"az group list\",\"mode\":\"async\",\"initial_wait\":600000,\"x\":{\"y\":null}}"}`,
			Answer{Verdict: rules.VerdictRewrite, Command: bound},
			`{"modifiedArgs":{"command":"az group list --subscription dev-sub","mode":"async","initial_wait":600000,"x":{"y":null}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			req, err := Decode(h, []byte(tt.payload))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			var out bytes.Buffer
			if err := h.Encode(&out, req, tt.answer); err != nil {
				t.Fatalf("Encode: %v", err)
			}
			want := tt.want
			if want != "" {
				want += "\n"
				if !json.Valid(out.Bytes()) {
					t.Errorf("output is not valid json: %s", out.String())
				}
			}
			if got := out.String(); got != want {
				t.Errorf("Encode output:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestClaudeRewriteModes checks that a rewrite carries no permission decision in any mode, so
// that Claude Code's own mode and rules decide on the bound command (principle 5: never widen,
// never nag); only a policy that wants every rewrite confirmed (rewrite: ask) asks.
func TestClaudeRewriteModes(t *testing.T) {
	tests := []struct {
		mode    string
		confirm bool
		want    string
	}{
		{"default", false, ""},
		{"plan", false, ""},
		{"acceptEdits", false, ""},
		{"", false, ""},
		{"someFutureMode", false, ""},
		{"auto", false, ""},
		{"dontAsk", false, ""},
		{"bypassPermissions", false, ""},
		{"bypassPermissions", true, "ask"},
	}
	h, _ := Lookup("claude")
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/confirm=%v", tt.mode, tt.confirm), func(t *testing.T) {
			payload := `{"permission_mode":"` + tt.mode + `","tool_name":"Bash","tool_input":{"command":"kubectl get pods"}}`
			if tt.mode == "" {
				payload = `{"tool_name":"Bash","tool_input":{"command":"kubectl get pods"}}`
			}
			req, err := Decode(h, []byte(payload))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := h.Encode(&out, req, Answer{Verdict: rules.VerdictRewrite, Command: "kubectl get pods --context dev", ConfirmRewrite: tt.confirm}); err != nil {
				t.Fatal(err)
			}
			var got struct {
				HookSpecificOutput map[string]json.RawMessage
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			var decision, command string
			json.Unmarshal(got.HookSpecificOutput["permissionDecision"], &decision)
			var input struct{ Command string }
			json.Unmarshal(got.HookSpecificOutput["updatedInput"], &input)
			command = input.Command
			if decision != tt.want {
				t.Errorf("permissionDecision = %q, want %q (%s)", decision, tt.want, out.String())
			}
			if _, ok := got.HookSpecificOutput["permissionDecisionReason"]; ok && tt.want == "" {
				t.Errorf("a rewrite without a decision carries a permissionDecisionReason, which Claude Code reads only with a decision: %s", out.String())
			}
			if command != "kubectl get pods --context dev" {
				t.Errorf("updatedInput.command = %q", command)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	decoded := func(h Harness, payload string) *Request {
		req, err := Decode(h, []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	// Harnesses that cannot rewrite answer a rewrite with a deny, which needs no request.
	cannotRewrite := map[string]bool{"windsurf": true, "cline": true, "qwen": true, "goose": true}
	for _, name := range Names() {
		h, _ := Lookup(name)
		payload := map[string]string{
			"claude": claudeSample, "copilot": copilotSample, "gemini": geminiSample, "cursor": cursorToolSample, "codex": codexSample,
		}[name]
		if payload == "" {
			s, _ := SetupFor(name)
			payload = string(s.Probe(probeEntries(s)[0].Event, "ls", "/w"))
		}
		tests := []struct {
			name   string
			req    *Request
			answer Answer
			want   string
		}{
			{"rewrite without a command", decoded(h, payload), Answer{Verdict: rules.VerdictRewrite}, "rewrite without a command"},
			{"rewrite without a request", nil, Answer{Verdict: rules.VerdictRewrite, Command: "ls"}, "needs the decoded request"},
			{"rewrite of a hand-made request", &Request{Request: rules.Request{Command: "ls"}}, Answer{Verdict: rules.VerdictRewrite, Command: "ls -a"}, "needs the decoded request"},
		}
		for _, tt := range tests {
			if cannotRewrite[name] && strings.Contains(tt.want, "needs the decoded request") {
				continue
			}
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				var out bytes.Buffer
				err := h.Encode(&out, tt.req, tt.answer)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Encode error = %v, want it to contain %q", err, tt.want)
				}
				if !strings.HasPrefix(err.Error(), "answer "+name+": ") {
					t.Errorf("Encode error = %q, want the prefix %q", err, "answer "+name+": ")
				}
				if out.Len() != 0 {
					t.Errorf("Encode wrote %q on error", out.String())
				}
			})
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, payload, want string
	}{
		{"claude", claudeSample, "claude"},
		{"codex: the claude shape with turn_id", codexSample, "codex"},
		{"codex without a model", `{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "codex"},
		{"claude, non-shell tool", `{"hook_event_name":"PreToolUse","tool_name":"Read","permission_mode":"default"}`, "claude"},
		{"gemini", geminiSample, "gemini"},
		{"cursor beforeShellExecution", cursorShellSample, "cursor"},
		{"cursor preToolUse", cursorToolSample, "cursor"},
		{"cursor without an event name", `{"conversation_id":"c","command":"ls","cwd":"/w"}`, "cursor"},
		{"copilot string toolArgs", copilotSample, "copilot"},
		{"copilot object toolArgs", copilotObjectSample, "copilot"},
		{"copilot snake_case", copilotSnakeSample, "copilot"},
		{"snake_case with a timestamp and a permission mode", `{"hook_event_name":"PreToolUse","timestamp":"x","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`, "claude"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _, err := Detect([]byte(tt.payload))
			if err != nil {
				t.Fatalf("Detect: %v", err)
			}
			if h.Name() != tt.want {
				t.Errorf("Detect = %s, want %s", h.Name(), tt.want)
			}
		})
	}
	for _, payload := range []string{``, `{`, `[]`, `{}`, `{"tool_name":"Bash","command":"ls"}`} {
		if h, _, err := Detect([]byte(payload)); err == nil {
			t.Errorf("Detect(%q) = %s, want an error", payload, h.Name())
		} else if !strings.HasPrefix(err.Error(), "detect harness: ") {
			t.Errorf("Detect(%q) error = %q, want the prefix %q", payload, err, "detect harness: ")
		}
	}
}

func TestLookup(t *testing.T) {
	all := []string{"claude", "copilot", "gemini", "cursor", "codex", "windsurf", "cline", "opencode", "kilo", "pi", "qwen", "droid", "crush", "goose"}
	for _, name := range all {
		h, ok := Lookup(name)
		if !ok || h.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, h, ok)
		}
	}
	if h, ok := Lookup("Claude"); ok {
		t.Errorf("Lookup(%q) = %v, want none", "Claude", h)
	}
	if diff := cmp.Diff(all, Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}
