package guard_test

import (
	"testing"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/rules"
)

// TestDestructiveUnless checks a destructive entry's unless flags: a kubectl dry run deletes
// nothing, but only the last --dry-run counts, and a word that is not literal could add one.
func TestDestructiveUnless(t *testing.T) {
	env, repo := machine(t)
	tests := []struct{ line, verdict string }{
		{"kubectl delete pod x", "ask"},
		{"kubectl delete pod x --dry-run=client", "rewrite"},
		{"kubectl delete ns payments --dry-run=server", "rewrite"},
		{"kubectl delete pod x --dry-run=Client", "rewrite"},
		{"kubectl delete pod x --dry-run=client --dry-run=none", "ask"},
		{"kubectl delete ns payments --dry-run=server --dry-run=none", "deny"},
		{"kubectl delete pod x --dry-run=client $MORE", "ask"},
		{"kubectl delete pod x --dry-run=none", "ask"},
		{"kubectl drain node-1 --dry-run=client", "rewrite"},
	}
	for _, tt := range tests {
		o := guard.Decide(rules.Request{Command: tt.line, Cwd: repo}, env)
		if o.Verdict.String() != tt.verdict {
			t.Errorf("%s: %s (%s), want %s", tt.line, o.Verdict, o.Reason, tt.verdict)
		}
	}
}
