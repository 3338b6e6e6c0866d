package rules_test

import (
	"slices"
	"testing"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// TestLifted: a lifted rule adds nothing to the call, which is then decided as if the rule did
// not exist (a rewrite stays a rewrite), and the trace says which lift let it through; other
// rules on the same call still apply.
func TestLifted(t *testing.T) {
	devProd := map[string]*rules.ContextPolicy{"acme": {Allow: allow("id-dev", "prod")}}
	state := fakeState{acme: map[string]string{"main": "id-prod"}}
	noGrants := rules.UserRule{ID: "no-grants", Match: "acme grant", Decision: rules.SettingDeny, Reason: "grants need a human"}
	for _, tt := range []struct {
		name, line string
		lifted     []string
		verdict    rules.Verdict
		rule       string
		lifts      []string
	}{
		{"not lifted", "acme thing delete x", nil, rules.VerdictAsk, "acme.destructive.any-delete", nil},
		{"a destructive entry lifted", "acme thing delete x", []string{"acme.destructive.any-delete"}, rules.VerdictRewrite, "acme.bind",
			[]string{"acme.destructive.any-delete lifted for the test"}},
		{"another entry's lift does not count", "acme nuke", []string{"acme.destructive.any-delete"}, rules.VerdictDeny, "acme.destructive.nuke", nil},
		{"a user rule lifted", "acme grant all", []string{"no-grants"}, rules.VerdictRewrite, "acme.bind", []string{"no-grants lifted for the test"}},
		{"one of two rules lifted", "acme grant delete", []string{"acme.destructive.any-delete"}, rules.VerdictDeny, "no-grants",
			[]string{"acme.destructive.any-delete lifted for the test"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls, err := shell.Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			in := rules.Input{Calls: calls, Policy: policy(devProd, rules.SettingUnset, noGrants), Providers: []*spec.Spec{acme}, State: state,
				Quote: shell.Quote, Cwd: "/w", Home: "/h", System: unix,
				Lifted: func(rule string) (string, bool) { return "lifted for the test", slices.Contains(tt.lifted, rule) }}
			res := rules.Evaluate(in)
			if res.Verdict != tt.verdict || res.Rule != tt.rule {
				t.Fatalf("%v (%s), want %v (%s): %s", res.Verdict, res.Rule, tt.verdict, tt.rule, res.Reason)
			}
			if got := res.Calls[0].Lifted; !slices.Equal(got, tt.lifts) {
				t.Errorf("Lifted = %q, want %q", got, tt.lifts)
			}
		})
	}
	if got := rules.DestructiveRule("az", "group delete"); got != "az.destructive.group-delete" {
		t.Errorf("DestructiveRule = %q", got)
	}
}

// TestLiftCommand: an agent's line may read the lifts or take them away, never grant one, also
// when it hides the command in a string another program runs.
func TestLiftCommand(t *testing.T) {
	pol := policy(nil, rules.SettingUnset)
	for _, tt := range []struct {
		line string
		deny bool
	}{
		{"ctxguard lift destructive --for 10m", true},
		{"/usr/local/bin/ctxguard lift az.destructive.group-delete", true},
		{`ctx"guard" lift destructive`, true},
		{"sudo ctxguard.exe lift destructive", true},
		{"bash -c 'ctxguard lift destructive'", true},
		{`script -qc "ctxguard lift destructive --reason x" /dev/null`, true},
		{`python3 -c "import os; os.system('CtxGuard lift no-prod')"`, true},
		{"ctxguard lift --list", false},
		{"ctxguard lift --clear", false},
		{"ctxguard lift --clear az.destructive.group-delete", false},
		{`script -qc "ctxguard lift --list" /dev/null`, false},
		{"ctxguard explain 'az group delete -n rg'", false},
		{"ctxguard log --since 1h", false},
		{"echo lift", false},
	} {
		calls, err := shell.Parse(tt.line)
		if err != nil {
			t.Fatal(err)
		}
		res := rules.Evaluate(rules.Input{Calls: calls, Policy: pol, Providers: []*spec.Spec{acme}, State: fakeState{}, Quote: shell.Quote,
			Cwd: "/w", Home: "/h", System: unix, Self: noSelf{}})
		if got := res.Verdict == rules.VerdictDeny && res.Rule == rules.RuleLift; got != tt.deny {
			t.Errorf("%s: %v (%s), want deny by %s: %v", tt.line, res.Verdict, res.Rule, rules.RuleLift, tt.deny)
		}
	}
}

// noSelf protects no file.
type noSelf struct{}

func (noSelf) Match(string, bool, []string) (rules.Protection, bool) {
	return rules.Protection{}, false
}
func (noSelf) Mentions(string) bool { return false }

func TestIsDestructiveRule(t *testing.T) {
	for rule, want := range map[string]bool{
		rules.DestructiveRule("az", "group delete"): true,
		"kubectl.destructive.delete":                true,
		rules.RuleDestructive:                       false, // the word for all of them, not an entry
		"self.policy-write":                         false,
		"az.other.destructive.x":                    false,
		"destructive.x":                             false,
	} {
		if got := rules.IsDestructiveRule(rule); got != want {
			t.Errorf("IsDestructiveRule(%q) = %v, want %v", rule, got, want)
		}
	}
}
