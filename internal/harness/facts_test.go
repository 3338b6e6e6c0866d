package harness

import (
	"encoding/json"
	"testing"

	"github.com/ctxguard/ctxguard/rules"
	"github.com/google/go-cmp/cmp"
)

// TestDecodeFacts checks the facts a policy's conditions read from each harness's payload: what
// it says, and nil where it says nothing, so that a rule never stops applying on a guess.
func TestDecodeFacts(t *testing.T) {
	yes, no := known(true), known(false)
	claude := func(mode, tool, extra string) string {
		return `{"session_id":"s","cwd":"/w","permission_mode":"` + mode + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `",` + extra + `"tool_input":{"command":"ls","file_path":"/w/f","content":"x"}}`
	}
	tests := []struct {
		name, harness, payload string
		unattended, subagent   *bool
	}{
		{"claude default: a human confirms", "claude", claude("default", "Bash", ""), no, no},
		{"claude plan", "claude", claude("plan", "Bash", ""), no, no},
		{"claude acceptEdits asks about a command", "claude", claude("acceptEdits", "Bash", ""), no, no},
		{"claude acceptEdits does not ask about an edit", "claude", claude("acceptEdits", "Write", ""), yes, no},
		{"claude auto", "claude", claude("auto", "Bash", ""), yes, no},
		{"claude dontAsk", "claude", claude("dontAsk", "PowerShell", ""), yes, no},
		{"claude bypassPermissions", "claude", claude("bypassPermissions", "Bash", ""), yes, no},
		{"claude mode it never documented", "claude", claude("yolo", "Bash", ""), nil, no},
		{"claude without a mode", "claude", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, nil, no},
		{"claude subagent", "claude", claude("default", "Bash", `"agent_id":"a1","agent_type":"Explore",`), no, yes},
		{"claude main agent run with --agent", "claude", claude("default", "Bash", `"agent_type":"reviewer",`), no, no},
		{"codex exec never asks", "codex", `{"session_id":"s","turn_id":"t","model":"m","permission_mode":"bypassPermissions","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, yes, nil},
		{"codex default runs sandboxed commands unasked", "codex", `{"session_id":"s","turn_id":"t","model":"m","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, nil, nil},
		{"copilot sends no mode", "copilot", copilotSample, nil, nil},
		{"copilot subagent", "copilot", `{"sessionId":"s","agentId":"sub-1","cwd":"/w","toolName":"bash","toolArgs":{"command":"ls"}}`, nil, yes},
		{"gemini sends no mode", "gemini", geminiFullSample, nil, nil},
		{"cursor sends no mode", "cursor", cursorShellSample, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			req, err := Decode(h, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.unattended, req.Unattended); diff != "" {
				t.Errorf("Unattended (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.subagent, req.Subagent); diff != "" {
				t.Errorf("Subagent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnattended is the same fact for a harness and mode given by name (explain's and the
// tests' flags).
func TestUnattended(t *testing.T) {
	for _, tt := range []struct {
		harness, mode, tool string
		want                *bool
	}{
		{"claude", "dontAsk", "Bash", known(true)},
		{"claude", "default", "Bash", known(false)},
		{"claude", "acceptEdits", "Edit", known(true)},
		{"claude", "acceptEdits", "", known(false)},
		{"claude", "", "Bash", nil},
		{"copilot", "dontAsk", "bash", nil},
		{"", "dontAsk", "", nil},
	} {
		if diff := cmp.Diff(tt.want, Unattended(tt.harness, tt.mode, tt.tool)); diff != "" {
			t.Errorf("Unattended(%q, %q, %q) (-want +got):\n%s", tt.harness, tt.mode, tt.tool, diff)
		}
	}
}

// TestFileChanges checks what each harness's file tools are read to write, for the rules about
// content.
func TestFileChanges(t *testing.T) {
	tests := []struct {
		name, harness, payload string
		paths                  []string
		changes                []rules.Change
	}{
		{"claude Write", "claude", `{"tool_name":"Write","tool_input":{"file_path":"/w/main.bicep","content":"x = 1\n"}}`,
			[]string{"/w/main.bicep"}, []rules.Change{{New: "x = 1\n"}}},
		{"claude Edit", "claude", `{"tool_name":"Edit","tool_input":{"file_path":"/w/a","old_string":"'Disabled'","new_string":"'Enabled'"}}`,
			[]string{"/w/a"}, []rules.Change{{Old: "'Disabled'", New: "'Enabled'"}}},
		{"claude Edit replace_all", "claude", `{"tool_name":"Edit","tool_input":{"file_path":"/w/a","old_string":"a","new_string":"b","replace_all":true}}`,
			[]string{"/w/a"}, []rules.Change{{Old: "a", New: "b", All: true}}},
		{"claude MultiEdit", "claude", `{"tool_name":"MultiEdit","tool_input":{"file_path":"/w/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d","replace_all":true}]}}`,
			[]string{"/w/a"}, []rules.Change{{Old: "a", New: "b"}, {Old: "c", New: "d", All: true}}},
		{"claude NotebookEdit", "claude", `{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"/w/n.ipynb","new_source":"print(1)"}}`,
			[]string{"/w/n.ipynb"}, []rules.Change{{New: "print(1)"}}},
		{"claude Write without content is still a write", "claude", `{"tool_name":"Write","tool_input":{"file_path":"/w/a"}}`,
			[]string{"/w/a"}, nil},
		{"copilot create", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"create","toolArgs":"{\"path\":\"/w/storage.json\",\"file_text\":\"{\\\"access\\\":\\\"anonymous\\\"}\"}"}`,
			[]string{"/w/storage.json"}, []rules.Change{{New: `{"access":"anonymous"}`}}},
		{"copilot edit", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"edit","toolArgs":{"path":"/w/a","old_str":"x","new_str":"y"}}`,
			[]string{"/w/a"}, []rules.Change{{Old: "x", New: "y"}}},
		{"gemini write_file", "gemini", `{"cwd":"/w","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"/w/a","content":"c"}}`,
			[]string{"/w/a"}, []rules.Change{{New: "c"}}},
		{"gemini replace, several occurrences", "gemini", `{"cwd":"/w","hook_event_name":"BeforeTool","tool_name":"replace","tool_input":{"file_path":"/w/a","old_string":"o","new_string":"n","expected_replacements":3}}`,
			[]string{"/w/a"}, []rules.Change{{Old: "o", New: "n", All: true}}},
		{"codex apply_patch: every file it adds, updates, moves to or deletes, each change with its file", "codex", codexPatchPayload(
			"*** Begin Patch\n*** Add File: infra/new.bicep\n+a = 1\n+b = 2\n*** Update File: infra/main.bicep\n*** Move to: infra/moved.bicep\n" +
				"@@ resource x\n ctx\n-publicNetworkAccess: 'Disabled'\n+publicNetworkAccess: 'Enabled'\n*** End of File\n@@\n-gone\n*** Delete File: old.txt\n*** End Patch\n"),
			[]string{"infra/new.bicep", "infra/main.bicep", "infra/moved.bicep", "old.txt"},
			[]rules.Change{{New: "a = 1\nb = 2\n", Path: "infra/new.bicep"}, {Old: "ctx\npublicNetworkAccess: 'Disabled'\n", New: "ctx\npublicNetworkAccess: 'Enabled'\n", Path: "infra/moved.bicep"}, {Old: "gone\n", Path: "infra/moved.bicep"}}},
		{"codex apply_patch with CRLF and indented headers", "codex", codexPatchPayload("*** Begin Patch\r\n  *** Update File: a.txt\r\n@@\r\n-x\r\n+y\r\n*** End Patch"),
			[]string{"a.txt"}, []rules.Change{{Old: "x\n", New: "y\n", Path: "a.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := Lookup(tt.harness)
			req, err := Decode(h, []byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.paths, req.Paths); diff != "" {
				t.Errorf("Paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.changes, req.Changes); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{
		`{"tool_name":"Write","tool_input":{"file_path":"/w/a","content":7}}`,
		`{"tool_name":"MultiEdit","tool_input":{"file_path":"/w/a","edits":"nope"}}`,
		`{"tool_name":"MultiEdit","tool_input":{"file_path":"/w/a","edits":[{"old_string":"a","new_string":false}]}}`,
	} {
		if _, err := Decode(claude, []byte(bad)); err == nil {
			t.Errorf("Decode(%s) = nil error; a content a rule cannot read must be refused", bad)
		}
	}
}

// codexPatchPayload is a Codex apply_patch payload with this patch as its input.
func codexPatchPayload(patch string) string {
	b, _ := json.Marshal(patch)
	return `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":` + string(b) + `}}`
}
