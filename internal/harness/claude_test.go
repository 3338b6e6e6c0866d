package harness

import (
	"slices"
	"testing"
)

func TestClaudeFileTools(t *testing.T) {
	tests := []struct {
		payload string
		paths   []string
		err     bool
	}{
		{`{"hook_event_name":"PreToolUse","tool_name":"Write","cwd":"/r","tool_input":{"file_path":"/r/.ctxguard.yaml","content":"x"}}`, []string{"/r/.ctxguard.yaml"}, false},
		{`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"a","old_string":"x","new_string":"y"}}`, []string{"a"}, false},
		{`{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[]}}`, []string{"a"}, false},
		{`{"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb","new_source":""}}`, []string{"n.ipynb"}, false},
		// Other tools are not read at all.
		{`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/r/.ctxguard.yaml"}}`, nil, false},
		{`{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":7}`, nil, false},
		// A file tool that names no file cannot be checked.
		{`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}`, nil, true},
		{`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":7}}`, nil, true},
	}
	for _, tt := range tests {
		req, err := Decode(claude, []byte(tt.payload))
		if (err != nil) != tt.err {
			t.Errorf("Decode(%s): error %v, want error %v", tt.payload, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if req.Shell != "" || !slices.Equal(req.Paths, tt.paths) {
			t.Errorf("Decode(%s): shell %q paths %q, want paths %q", tt.payload, req.Shell, req.Paths, tt.paths)
		}
	}
}
