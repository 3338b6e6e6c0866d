package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

// TestRememberOnlyWhatRuns checks that only a line the hook lets run is remembered, only with
// memory on, and for a subagent apart from its session.
func TestRememberOnlyWhatRuns(t *testing.T) {
	dir := testenv.TempDir(t)
	env := testenv.Home(dir, map[string]string{"XDG_STATE_HOME": dir})
	sw := []rules.Switched{{Provider: "az", Value: "B", From: "az account set -s B", Scope: "s"}}
	for _, tt := range []struct {
		name     string
		verdict  rules.Verdict
		remember bool
		want     bool
	}{
		{"allow", rules.VerdictAllow, true, true},
		{"rewrite", rules.VerdictRewrite, true, true},
		{"ask: the human may decline", rules.VerdictAsk, true, false},
		{"deny", rules.VerdictDeny, true, false},
		{"memory off", rules.VerdictAllow, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := rules.Request{Session: "session " + tt.name}
			o := Outcome{Result: rules.Result{Verdict: tt.verdict, Switches: sw}}
			if tt.remember {
				o.mem, _ = openMemory(req, env, &policy.Policy{})
			}
			if err := o.Remember(); err != nil {
				t.Fatal(err)
			}
			m, _ := openMemory(req, env, &policy.Policy{})
			if _, got := m.recall("az", "s"); got != tt.want {
				t.Errorf("remembered = %v, want %v", got, tt.want)
			}
		})
	}

	parent := rules.Request{Session: "p"}
	child := rules.Request{Session: "p", Agent: "a1"}
	sibling := rules.Request{Session: "p", Agent: "a2"}
	remember := func(req rules.Request, sw []rules.Switched) {
		t.Helper()
		m, _ := openMemory(req, env, &policy.Policy{})
		o := Outcome{Result: rules.Result{Switches: sw}, mem: m}
		must(t, o.Remember())
	}
	remember(parent, sw)
	remember(child, []rules.Switched{{Provider: "az", Value: "C", Scope: "s"}})
	for _, tt := range []struct {
		req  rules.Request
		want string
	}{{parent, "B"}, {child, "C"}, {sibling, "B"}} {
		m, _ := openMemory(tt.req, env, &policy.Policy{})
		if got, _ := m.recall("az", "s"); got.Value != tt.want {
			t.Errorf("%+v remembers %q, want %q", tt.req, got.Value, tt.want)
		}
	}
	if m, note := openMemory(parent, env, &policy.Policy{Forget: true}); m != nil || note == "" {
		t.Errorf("memory turned off: %v, note %q", m, note)
	}
	if _, err := os.Stat(filepath.Join(dir, "ctxguard", "sessions")); err != nil {
		t.Error(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
