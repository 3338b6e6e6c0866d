package cli

import (
	"bytes"
	"os"
	"testing"
)

func TestColour(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer devnull.Close()
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	tests := []struct {
		name string
		c    *runner
		want colour
	}{
		{"character device", &runner{stdout: devnull}, true},
		{"NO_COLOR", &runner{stdout: devnull}, false},
		{"NO_COLOR empty is unset", &runner{stdout: devnull}, true},
		{"a buffer", &runner{stdout: new(bytes.Buffer)}, false},
	}
	tests[0].c.env.Lookup = env(nil)
	tests[1].c.env.Lookup = env(map[string]string{"NO_COLOR": "1"})
	tests[2].c.env.Lookup = env(map[string]string{"NO_COLOR": ""})
	tests[3].c.env.Lookup = env(nil)
	for _, tt := range tests {
		if got := tt.c.colour(); got != tt.want {
			t.Errorf("%s: colour = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := colour(true).bad("x"); got != "\x1b[31mx\x1b[0m" {
		t.Errorf("bad = %q", got)
	}
	if got := colour(false).bad("x"); got != "x" {
		t.Errorf("bad without colour = %q", got)
	}
}
