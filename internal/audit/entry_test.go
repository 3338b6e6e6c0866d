package audit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/rules"
)

// TestEntryRequest: what a line keeps of a request reads back as the same request, so that
// `explain --id` decides the call it logged.
func TestEntryRequest(t *testing.T) {
	req := rules.Request{
		Harness: "claude", Session: "s1", Agent: "a1", Cwd: "/w", Tool: "Bash", Shell: "bash",
		Mode: "auto", Command: "az group list", Paths: []string{"/w/x"},
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e := NewEntry(req, now)
	if !e.Time.Equal(now) || len(e.ID) != 12 {
		t.Errorf("NewEntry: time %v, id %q", e.Time, e.ID)
	}
	if d := cmp.Diff(req, e.Request()); d != "" {
		t.Errorf("NewEntry(req).Request() differs from req (-want +got):\n%s", d)
	}
}
