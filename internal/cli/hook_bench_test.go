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
	vars := map[string]string{"CTXGUARD_MANAGED_POLICY": filepath.Join(testenv.TempDir(b), "none"), "XDG_STATE_HOME": testenv.TempDir(b)}
	env := testenv.Home(filepath.Join(machine, "home"), vars)
	for _, line := range []string{"go test ./...", "az group list -o table"} {
		payload, _ := json.Marshal(map[string]any{
			"session_id": "bench", "cwd": filepath.Join(machine, "repo"), "permission_mode": "default",
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": line},
		})
		b.Run(line, func(b *testing.B) {
			for b.Loop() {
				c := &runner{stdin: bytes.NewReader(payload), stdout: io.Discard, stderr: os.Stderr, env: env}
				if code := c.hook([]string{"--harness", "claude"}); code != hookAnswered {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
