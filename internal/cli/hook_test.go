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

// panicky is a stream that panics when written: a stand-in for a bug anywhere outside the guard.
type panicky struct{}

func (panicky) Write([]byte) (int, error) { panic("boom") }

// TestHookPanic: a panic outside guard.Decide (here, writing the answer) refuses the call with
// exit 2 and a reason that says what broke, not a goroutine dump; both when the decision answers
// and when the deadline does (the panic is then on the timer's goroutine).
func TestHookPanic(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "guard", "testdata", "machine"))
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	for _, tc := range []struct {
		name, budget string
		calls        int
	}{
		{"the decision answers", "10s", 1},
		// 10 ms is the least budget, and 3,000 calls take several times longer to analyse.
		{"the deadline answers", "10ms", 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := strings.TrimSuffix(strings.Repeat("az group list && ", tc.calls), " && ")
			data, err := json.Marshal(map[string]any{"session_id": "s", "cwd": repo, "hook_event_name": "PreToolUse",
				"tool_name": "Bash", "tool_input": map[string]any{"command": line}})
			if err != nil {
				t.Fatal(err)
			}
			env := testenv.Home(filepath.Join(root, "home"), map[string]string{
				"CTXGUARD_MANAGED_POLICY": filepath.Join(root, "managed.yaml"),
				"XDG_STATE_HOME":          testenv.TempDir(t),
				"CTXGUARD_BUDGET":         tc.budget,
			})
			var stderr bytes.Buffer
			c := &runner{stdin: bytes.NewReader(data), stdout: panicky{}, stderr: &stderr, env: env, getwd: os.Getwd}
			if code := c.hook([]string{"--harness", "claude"}); code != hookBlocked {
				t.Errorf("exit %d, want %d", code, hookBlocked)
			}
			got := stderr.String()
			if !strings.HasPrefix(got, "ctxguard: [ctxguard/hook.internal-error] ctxguard failed on this command (boom); please report it") || strings.Contains(got, "goroutine ") {
				t.Errorf("stderr = %q, want the internal error naming the panic", got)
			}
		})
	}
}
