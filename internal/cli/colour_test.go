package cli

import (
	"bytes"
	"os"
	"testing"

	"github.com/ctxguard/ctxguard/internal/paths"
)

// TestColour: colour only for a terminal, and not with NO_COLOR set. /dev/null is a character
// device but no terminal, and gets plain text, as a pipe or a file does.
func TestColour(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	for _, tt := range []struct {
		name string
		c    *runner
		want colour
	}{
		{"/dev/null", &runner{stdout: devnull, env: paths.Env{Lookup: env(nil)}}, false},
		{"a buffer", &runner{stdout: new(bytes.Buffer), env: paths.Env{Lookup: env(nil)}}, false},
	} {
		if got := tt.c.colour(); got != tt.want {
			t.Errorf("%s: colour = %v, want %v", tt.name, got, tt.want)
		}
	}
	t.Run("terminal", func(t *testing.T) {
		tty := openTerminal(t)
		for _, tt := range []struct {
			name string
			vars map[string]string
			want colour
		}{
			{"plain", nil, true},
			{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, false},
			{"NO_COLOR empty is unset", map[string]string{"NO_COLOR": ""}, true},
		} {
			c := &runner{stdout: tty, env: paths.Env{Lookup: env(tt.vars)}}
			if got := c.colour(); got != tt.want {
				t.Errorf("%s: colour = %v, want %v", tt.name, got, tt.want)
			}
		}
	})
	if got := colour(true).bad("x"); got != "\x1b[31mx\x1b[0m" {
		t.Errorf("bad = %q", got)
	}
	if got := colour(false).bad("x"); got != "x" {
		t.Errorf("bad without colour = %q", got)
	}
}
