package harness

import "fmt"

// claudeFileTools are Claude Code's tools that write a file, and the tool_input fields that name
// it (https://code.claude.com/docs/en/hooks, "PreToolUse input"). ctxguard reads them for one
// purpose: an agent must not rewrite ctxguard's own policy or hooks, which would switch the guard
// off. Every other tool that is not a shell stays unread, and the hook stays silent on it.
//
// Copilot CLI's file-editing tools are not listed: its hook reference names only the shell
// tools' arguments, so there is nothing documented to read. TODO(v1): add them once documented.
var claudeFileTools = map[string][]string{
	"Write":        {"file_path"},
	"Edit":         {"file_path"},
	"MultiEdit":    {"file_path"},
	"NotebookEdit": {"notebook_path", "file_path"},
}

// withFilePaths fills req.Paths for a file-writing tool. A file tool whose path cannot be read is
// an error, which the hook answers with a deny: a hook that cannot tell which file is written
// must not wave the write through.
func withFilePaths(req *Request, top object, tools map[string][]string) (*Request, error) {
	fields, ok := tools[req.Tool]
	if !ok || req.Shell != "" {
		return req, nil
	}
	raw, _ := top.get("tool_input")
	if raw == nil || isNull(raw) {
		return nil, fmt.Errorf("missing tool_input for %s", req.Tool)
	}
	obj, err := argsObject(raw, "tool_input")
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		p, present, err := obj.str(f)
		if err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		if present && p != "" {
			req.Paths = append(req.Paths, p)
		}
	}
	if len(req.Paths) == 0 {
		return nil, fmt.Errorf("tool_input of %s names no file (%v)", req.Tool, fields)
	}
	return req, nil
}
