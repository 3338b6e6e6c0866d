package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxguard/ctxguard/rules"
)

// Sample payloads of the harnesses beyond Claude Code, Copilot CLI, Gemini CLI, Cursor and
// Codex, each from the harness's own documentation or captured from the real client offline
// (ids made up).
const (
	// https://docs.windsurf.com/windsurf/cascade/hooks, "pre_run_command", with the common fields.
	windsurfSample = `{"agent_action_name":"pre_run_command","trajectory_id":"t-1","execution_id":"e-1","timestamp":"2026-08-22T10:15:00.653-04:00","tool_info":{"command_line":"az group list","cwd":"/home/dev/infra"}}`
	// Captured from the cline CLI 3.0.65 (SDK hooks): run_commands, parameters JSON-encoded.
	clineSDKSample = `{"clineVersion":"","timestamp":"2026-12-01T07:30:46.382Z","taskId":"conv_1","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/home/dev/infra"],"userId":"unknown","agent_id":"agent_1","parent_agent_id":null,"hookName":"tool_call","iteration":1,"tool_call":{"id":"call_01","name":"run_commands","input":{"commands":["az group list","cd sub && az version"]}},"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"az group list\",\"cd sub && az version\"]"}}}`
	// cline/cline docs: the legacy execute_command tool.
	clineLegacySample = `{"clineVersion":"3.x","hookName":"PreToolUse","timestamp":"2026-08-22T10:15:00Z","taskId":"t1","workspaceRoots":["/home/dev/infra"],"userId":"u1","preToolUse":{"toolName":"execute_command","parameters":{"command":"az group list","requires_approval":"false"}}}`
	// charmbracelet/crush docs/hooks/README.md, "Stdin payload — PreToolUse".
	crushSample = `{"event":"PreToolUse","session_id":"313909e","cwd":"/home/dev/infra","tool_name":"bash","tool_input":{"command":"az group list","timeout":60000}}`
	// block/goose hooks.md, "Hook Payload", for PreToolUse.
	gooseSample = `{"event":"PreToolUse","session_id":"abc-123","matcher_context":"developer__shell","tool_name":"developer__shell","tool_input":{"command":"az group list","timeout_secs":60},"working_dir":"/home/dev/infra","tool_call_id":"tc-1"}`
	// Captured from Qwen Code 0.24.4 headless.
	qwenSample = `{"session_id":"9214a9c0","transcript_path":"/home/dev/.qwen/projects/-home-dev-infra/chats/9214a9c0.jsonl","cwd":"/home/dev/infra","hook_event_name":"PreToolUse","timestamp":"2026-12-01T06:58:58.750Z","permission_mode":"yolo","prompt_id":"9214a9c0########0","tool_name":"run_shell_command","tool_input":{"command":"az group list","description":"x"},"tool_use_id":"toolu_1","tool_call_id":"call_01"}`
	// Captured from Factory Droid 0.225.2, droid exec.
	droidSample = `{"session_id":"6554299c","transcript_path":"/home/dev/.factory/sessions/-home-dev-infra/6554299c.jsonl","cwd":"/home/dev/infra","permission_mode":"auto-high","hook_event_name":"PreToolUse","tool_name":"Execute","tool_input":{"command":"az group list","riskLevelReason":"reads only","riskLevel":"low"}}`
	// What ctxguard's opencode plugin sends (shim/opencode.js) for opencode's bash tool.
	opencodeSample = `{"harness":"opencode","tool":"bash","session":"ses_1","cwd":"/home/dev/infra","args":{"command":"az group list","description":"List resource groups","timeout":120000}}`
	piSample       = `{"harness":"pi","tool":"bash","session":"","cwd":"/home/dev/infra","args":{"command":"az group list","timeout":30}}`
)

func TestDecodeAdded(t *testing.T) {
	req := func(harness, tool, shell, command, cwd, session, mode string) *Request {
		return &Request{Request: rules.Request{Harness: harness, Tool: tool, Shell: shell, Command: command, Cwd: cwd, Session: session, Mode: mode}}
	}
	tests := []struct {
		name, harness, payload string
		want                   *Request
	}{
		{"windsurf", "windsurf", windsurfSample, req("windsurf", "run_command", "bash", "az group list", "/home/dev/infra", "t-1", "")},
		{"cline SDK run_commands: subshells", "cline", clineSDKSample, req("cline", "run_commands", "bash", "(az group list)\n(cd sub && az version)", "/home/dev/infra", "conv_1", "")},
		{"cline one command", "cline", `{"hookName":"tool_call","workspaceRoots":["/w"],"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"az group list\"]"}}}`, req("cline", "run_commands", "bash", "az group list", "/w", "", "")},
		{"cline structured command", "cline", `{"hookName":"tool_call","preToolUse":{"toolName":"run_commands","parameters":{"commands":"[{\"command\":\"az\",\"args\":[\"group\",\"list\",\"--query\",\"[].name\"]}]"}}}`, req("cline", "run_commands", "bash", "az group list --query '[].name'", "", "", "")},
		{"cline legacy execute_command", "cline", clineLegacySample, req("cline", "execute_command", "bash", "az group list", "/home/dev/infra", "t1", "")},
		{"cline other tool", "cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"read_file","parameters":{"path":"x"}}}`, req("cline", "read_file", "", "", "", "", "")},
		{"crush", "crush", crushSample, req("crush", "bash", "bash", "az group list", "/home/dev/infra", "313909e", "")},
		{"crush snake_case event", "crush", `{"event":"pre_tool_use","tool_name":"bash","tool_input":{"command":"ls"}}`, req("crush", "bash", "bash", "ls", "", "", "")},
		{"crush other tool", "crush", `{"event":"PreToolUse","tool_name":"edit","tool_input":{"file_path":"x"}}`, req("crush", "edit", "", "", "", "", "")},
		{"goose", "goose", gooseSample, req("goose", "developer__shell", "bash", "az group list", "/home/dev/infra", "abc-123", "")},
		{"qwen", "qwen", qwenSample, req("qwen", "run_shell_command", "bash", "az group list", "/home/dev/infra", "9214a9c0", "yolo")},
		{"droid", "droid", droidSample, req("droid", "Execute", "bash", "az group list", "/home/dev/infra", "6554299c", "auto-high")},
		{"opencode", "opencode", opencodeSample, req("opencode", "bash", "bash", "az group list", "/home/dev/infra", "ses_1", "")},
		{"opencode workdir", "opencode", `{"harness":"opencode","tool":"bash","cwd":"/w","args":{"command":"ls","workdir":"infra"}}`, req("opencode", "bash", "bash", "ls", filepath.FromSlash("/w/infra"), "", "")},
		{"opencode other tool", "opencode", `{"harness":"opencode","tool":"read","cwd":"/w","args":{"filePath":"x"}}`, req("opencode", "read", "", "", "/w", "", "")},
		{"kilo", "kilo", strings.Replace(opencodeSample, `"opencode"`, `"kilo"`, 1), req("kilo", "bash", "bash", "az group list", "/home/dev/infra", "ses_1", "")},
		{"pi", "pi", piSample, req("pi", "bash", "bash", "az group list", "/home/dev/infra", "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			got, err := decodeOn(h, []byte(tt.payload), "linux")
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(Request{})); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
			if d, _, err := Detect([]byte(tt.payload)); err != nil || d.Name() != tt.harness {
				t.Errorf("Detect = %v, %v; want %s", d, err, tt.harness)
			}
		})
	}
}

// TestHostShell checks that the harnesses that do not say which shell runs a command read it as
// PowerShell on Windows.
func TestHostShell(t *testing.T) {
	for name, payload := range map[string]string{"windsurf": windsurfSample, "cline": clineLegacySample} {
		h, _ := Lookup(name)
		req, err := decodeOn(h, []byte(payload), "windows")
		if err != nil || req.Shell != "powershell" {
			t.Errorf("%s on Windows: %+v, %v; want shell powershell", name, req, err)
		}
	}
}

func TestDecodeErrorsAdded(t *testing.T) {
	tests := []struct{ name, harness, payload, want string }{
		{"windsurf other event", "windsurf", `{"agent_action_name":"pre_read_code","tool_info":{"file_path":"x"}}`, `read windsurf payload: hook event is "pre_read_code", want pre_run_command`},
		{"windsurf without tool_info", "windsurf", `{"agent_action_name":"pre_run_command"}`, "missing tool_info"},
		{"windsurf without command_line", "windsurf", `{"agent_action_name":"pre_run_command","tool_info":{"cwd":"/w"}}`, "tool_info has no command_line"},
		{"cline other hook", "cline", `{"hookName":"PostToolUse","preToolUse":{"toolName":"x"}}`, "read cline payload: hook is PostToolUse"},
		{"cline without preToolUse", "cline", `{"hookName":"PreToolUse"}`, "missing preToolUse"},
		{"cline without commands", "cline", `{"preToolUse":{"toolName":"run_commands","parameters":{}}}`, "has no commands"},
		{"cline empty commands", "cline", `{"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[]"}}}`, "no command"},
		{"cline bad entry", "cline", `{"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[1]"}}}`, "neither a command line nor {command, args}"},
		{"crush other event", "crush", `{"event":"PostToolUse","tool_name":"bash","tool_input":{"command":"ls"}}`, "read crush payload: hook event is PostToolUse"},
		{"goose without command", "goose", `{"event":"PreToolUse","tool_name":"developer__shell","tool_input":{}}`, "read goose payload: tool_input has no command"},
		{"qwen other event", "qwen", geminiSample, "read qwen payload: hook event is BeforeTool"},
		{"droid without command", "droid", `{"hook_event_name":"PreToolUse","tool_name":"Execute","tool_input":{}}`, "read droid payload: tool_input has no command"},
		{"opencode without tool", "opencode", `{"args":{"command":"ls"}}`, "read opencode payload: missing tool"},
		{"pi bash without command", "pi", `{"tool":"bash","args":{}}`, "read pi payload: args has no command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			_, err := Decode(h, []byte(tt.payload))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestEncodeAdded checks each added harness's answer to every verdict, as the harness reads it:
// what it may express it says, the rest is narrowed to a deny that says what to do.
func TestEncodeAdded(t *testing.T) {
	const fixed = "az group list --subscription dev"
	deny := Answer{Verdict: rules.VerdictDeny, Reason: "[ctxguard/x] no"}
	ask := Answer{Verdict: rules.VerdictAsk, Reason: "[ctxguard/x] sure?"}
	rewrite := Answer{Verdict: rules.VerdictRewrite, Reason: "[ctxguard/x] bound", Command: fixed}
	tests := []struct {
		name, harness, payload string
		answer                 Answer
		want                   string // the output, or "exit 2: REASON" for a Blocked answer
	}{
		{"windsurf deny", "windsurf", windsurfSample, deny, "exit 2: [ctxguard/x] no"},
		{"windsurf ask", "windsurf", windsurfSample, ask, "exit 2: [ctxguard/x] sure? — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves"},
		{"windsurf rewrite", "windsurf", windsurfSample, rewrite, "exit 2: [ctxguard/x] bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: " + fixed},
		{"cline deny", "cline", clineSDKSample, deny, `{"cancel":true,"errorMessage":"[ctxguard/x] no"}`},
		{"cline rewrite", "cline", clineLegacySample, rewrite, `{"cancel":true,"errorMessage":"[ctxguard/x] bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: ` + fixed + `"}`},
		{"crush deny", "crush", crushSample, deny, `{"decision":"deny","reason":"[ctxguard/x] no"}`},
		{"crush rewrite: no decision, so Crush's own prompt still applies", "crush", crushSample, rewrite, `{"context":"[ctxguard/x] bound","updated_input":{"command":"` + fixed + `","timeout":60000}}`},
		{"crush rewrite the policy wants confirmed: Crush cannot ask", "crush", crushSample, Answer{Verdict: rules.VerdictRewrite, Reason: "b", Command: fixed, ConfirmRewrite: true}, `{"decision":"deny","reason":"b — this harness cannot run a changed command in place of the one sent, so run exactly this instead: ` + fixed + `"}`},
		{"crush ask", "crush", crushSample, ask, `{"decision":"deny","reason":"[ctxguard/x] sure? — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves"}`},
		{"goose deny", "goose", gooseSample, deny, `{"decision":"block","reason":"[ctxguard/x] no"}`},
		{"goose rewrite", "goose", gooseSample, rewrite, `{"decision":"block","reason":"[ctxguard/x] bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: ` + fixed + `"}`},
		{"qwen ask", "qwen", qwenSample, ask, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"[ctxguard/x] sure?"}}`},
		{"qwen rewrite", "qwen", qwenSample, rewrite, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"[ctxguard/x] bound — this harness cannot run a changed command in place of the one sent, so run exactly this instead: ` + fixed + `"}}`},
		{"droid rewrite: no decision, so Droid's autonomy level still applies", "droid", droidSample, rewrite, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"` + fixed + `","riskLevelReason":"reads only","riskLevel":"low"},"additionalContext":"[ctxguard/x] bound"}}`},
		{"droid ask", "droid", droidSample, ask, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"[ctxguard/x] sure? — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves"}}`},
		{"opencode rewrite", "opencode", opencodeSample, rewrite, `{"decision":"rewrite","reason":"[ctxguard/x] bound","args":{"command":"` + fixed + `","description":"List resource groups","timeout":120000}}`},
		{"opencode ask", "opencode", opencodeSample, ask, `{"decision":"deny","reason":"[ctxguard/x] sure? — this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves"}`},
		{"pi ask with the bound command", "pi", piSample, Answer{Verdict: rules.VerdictAsk, Reason: "r", Command: fixed}, `{"decision":"ask","reason":"r","args":{"command":"` + fixed + `","timeout":30}}`},
		{"pi rewrite the policy wants shown", "pi", piSample, Answer{Verdict: rules.VerdictRewrite, Reason: "r", Command: fixed, ConfirmRewrite: true}, `{"decision":"ask","reason":"r","args":{"command":"` + fixed + `","timeout":30}}`},
		{"pi deny", "pi", piSample, deny, `{"decision":"deny","reason":"[ctxguard/x] no"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			req, err := Decode(h, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = h.Encode(&out, req, tt.answer)
			var b Blocked
			got := strings.TrimSuffix(out.String(), "\n")
			if errors.As(err, &b) {
				got = "exit 2: " + b.Reason
			} else if err != nil {
				t.Fatal(err)
			} else if !json.Valid(out.Bytes()) || strings.Count(out.String(), "\n") != 1 {
				t.Errorf("not one JSON object and a newline: %q", out.String())
			}
			if got != tt.want {
				t.Errorf("answer\n got %s\nwant %s", got, tt.want)
			}
			if out.Len() > 0 && b.Reason != "" {
				t.Errorf("wrote %q and blocked", out.String())
			}
			// Allow is silence for every harness.
			out.Reset()
			if err := h.Encode(&out, req, Answer{Verdict: rules.VerdictAllow}); err != nil || out.Len() != 0 {
				t.Errorf("allow: %q, %v; want silence", out.String(), err)
			}
		})
	}
}

func TestShim(t *testing.T) {
	got := string(shim(opencodeShim, "kilo", `C:\Program Files\ctx "guard"\ctxguard.exe`))
	if !strings.Contains(got, `const CTXGUARD = "C:\\Program Files\\ctx \"guard\"\\ctxguard.exe";`) {
		t.Errorf("the binary's path is not a JavaScript string:\n%s", got)
	}
	if !strings.Contains(got, `["hook", "--harness", "kilo"]`) || !strings.Contains(got, "function ask(") ||
		strings.Contains(got, "HARNESS") || strings.Contains(got, "CTXGUARD_BINARY") || strings.Contains(got, "ctxguard: call.js") {
		t.Errorf("placeholders left, or the harness or the shared part missing:\n%s", got)
	}
	for _, s := range Setups() {
		if s.Script == nil {
			continue
		}
		out, err := s.Script("/opt/bin/ctxguard", Options{GOOS: "linux"})
		if err != nil || !IsScript(out) || !strings.Contains(string(out), "--harness") || !strings.Contains(string(out), s.Harness) {
			t.Errorf("%s: Script = %q, %v: want a file that runs ctxguard hook --harness %s and says it is ctxguard's", s.Harness, out, err, s.Harness)
		}
	}
}
