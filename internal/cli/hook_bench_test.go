package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

// BenchmarkHook is one hook run in process: reading the payload, deciding, answering. The
// whole-process cost adds the Go runtime's start (go run ./internal/cmd/bench).
func BenchmarkHook(b *testing.B) {
	machine, err := filepath.Abs(filepath.Join("..", "guard", "testdata", "machine"))
	if err != nil {
		b.Fatal(err)
	}
	// The managed policy of the "audit trail on" cases turns the trail on, and nothing else.
	trail := filepath.Join(testenv.TempDir(b), "managed.yaml")
	if err := os.WriteFile(trail, []byte("audit: {path: "+filepath.Join(testenv.TempDir(b), "audit.jsonl")+"}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, line, managed string }{
		{"go test ./...", "go test ./...", filepath.Join(testenv.TempDir(b), "none")},
		{"az group list -o table", "az group list -o table", filepath.Join(testenv.TempDir(b), "none")},
		{"az group list -o table, audit trail on", "az group list -o table", trail},
	} {
		vars := map[string]string{"CTXGUARD_MANAGED_POLICY": tc.managed, "XDG_STATE_HOME": testenv.TempDir(b)}
		env := testenv.Home(filepath.Join(machine, "home"), vars)
		payload, _ := json.Marshal(map[string]any{
			"session_id": "bench", "cwd": filepath.Join(machine, "repo"), "permission_mode": "default",
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": tc.line},
		})
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				c := &runner{stdin: bytes.NewReader(payload), stdout: io.Discard, stderr: os.Stderr, env: env}
				if code := c.hook([]string{"--harness", "claude"}); code != hookAnswered {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
