package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

// hookSeeds are payloads of every harness shape, well formed and not.
var hookSeeds = []string{
	`{"session_id":"s","cwd":"REPO","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"az group list"}}`,
	`{"sessionId":"s","timestamp":1,"cwd":"REPO","toolName":"bash","toolArgs":"{\"command\":\"kubectl delete ns x\"}"}`,
	`{"sessionId":"s","timestamp":1,"cwd":"REPO","toolName":"bash","toolArgs":{"command":"terraform destroy"}}`,
	`{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"gcloud projects delete p"}}`,
	`{"conversation_id":"c","hook_event_name":"beforeShellExecution","command":"gh repo delete x","cwd":"REPO"}`,
	`{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"pac auth select --index 2"}}`,
	`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}`,
	`{"tool_name":"Bash","tool_input":{"command":"az group list"},"tool_input":{"command":"az group delete -n x"}}`,
	``, `{`, `[]`, `null`, `"x"`, `{"tool_name":1}`, `{"tool_name":"Bash","tool_input":"az"}`, "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"a\xffz\"}}",
	// Bytes that are not UTF-8 inside Copilot's toolArgs string were once replaced silently and
	// the replaced command handed back in a rewrite.
	"{\"toolName\":\"bash\",\"cwd\":\"REPO\",\"toolArgs\":\"{\\\"command\\\":\\\"az group \xff\xfelist\\\"}\"}",
	`{"toolName":"bash","toolArgs":"{\"command\":\"` + strings.Repeat("$(", 1001) + `\"}"}`,
}

// FuzzHook feeds arbitrary bytes to the hook, as stdin (and, when wrap is set, as the command of
// a well-formed payload), under each harness flag. Whatever comes in, the hook exits 0 or 2
// and prints nothing or exactly one JSON object: a crash, exit 1 or half an answer would let
// the call through.
func FuzzHook(f *testing.F) {
	root, err := filepath.Abs(filepath.Join("..", "guard", "testdata", "machine"))
	if err != nil {
		f.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	for _, s := range hookSeeds {
		f.Add([]byte(strings.ReplaceAll(s, "REPO", repo)), uint8(0), false)
	}
	for _, s := range []string{"az group list", "kubectl delete ns x && terraform plan", "$(($((", "bash -c 'az vm delete'"} {
		f.Add([]byte(s), uint8(1), true)
		f.Add([]byte(s), uint8(2), true)
	}
	vars := map[string]string{
		"CTXGUARD_MANAGED_POLICY": filepath.Join(root, "managed.yaml"),
		"XDG_STATE_HOME":          testenv.TempDir(f),
	}
	env := testenv.Home(filepath.Join(root, "home"), vars)
	harnesses := []string{"", "claude", "copilot", "gemini", "cursor", "codex"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8, wrap bool) {
		name := harnesses[int(which)%len(harnesses)]
		if wrap {
			data = wrapCommand(name, string(data), repo)
		}
		var stdout, stderr bytes.Buffer
		c := &runner{stdin: bytes.NewReader(data), stdout: &stdout, stderr: &stderr, env: env, getwd: os.Getwd}
		args := []string{}
		if name != "" {
			args = append(args, "--harness", name)
		}
		code := c.hook(args)
		switch code {
		case hookAnswered:
			if stderr.Len() > 0 && stdout.Len() == 0 {
				t.Fatalf("exit 0 with only stderr %q", stderr.String())
			}
		case hookBlocked:
			if stdout.Len() > 0 {
				t.Fatalf("exit 2 with an answer on stdout %q", stdout.String())
			}
			if stderr.Len() == 0 {
				t.Fatalf("exit 2 without a reason on stderr")
			}
			return
		default:
			t.Fatalf("exit %d, want 0 or 2 (stderr %q)", code, stderr.String())
		}
		if stdout.Len() == 0 {
			return
		}
		out := stdout.Bytes()
		if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("answer is not one line: %q", out)
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(out))
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("answer is not a json object: %v: %q", err, out)
		}
		if dec.More() {
			t.Fatalf("answer holds more than one json value: %q", out)
		}
	})
}

// wrapCommand returns a well-formed payload of the harness (claude for "") that runs command.
func wrapCommand(name, command, cwd string) []byte {
	var p any
	switch name {
	case "copilot":
		args, _ := json.Marshal(map[string]string{"command": command})
		p = map[string]any{"timestamp": 1, "cwd": cwd, "toolName": "bash", "toolArgs": string(args)}
	case "gemini":
		p = map[string]any{"cwd": cwd, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]string{"command": command}}
	case "cursor":
		p = map[string]any{"hook_event_name": "beforeShellExecution", "command": command, "cwd": cwd}
	default:
		p = map[string]any{"cwd": cwd, "permission_mode": "default", "transcript_path": "t", "tool_use_id": "u",
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]string{"command": command}}
	}
	data, _ := json.Marshal(p)
	return data
}
