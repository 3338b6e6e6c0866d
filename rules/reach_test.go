package rules_test

import (
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// Made-up CLIs for the schema's later mechanisms. dock's global flags must precede its
// subcommand, and a variable makes it ignore its context (docker's shape). kube is switched by a
// separate switcher CLI that names its target (kubectx), and view reads kube's state (helm).
var (
	reachDock = &spec.Spec{
		Name: "dock", Commands: []string{"dock"}, Noun: "context", GlobalsFirst: true,
		ValueFlags: []string{"--ctx", "-c", "--host"},
		Context: spec.Context{Read: []spec.Step{{Flag: []string{"--ctx", "-c"}, OverriddenBy: []string{"DOCK_HOST", "--host"},
			File: spec.Strings{"/nonexistent/dock.json"}, Format: "json", Value: "current", Default: "default"}}},
		Bind:   &spec.Bind{Flags: []string{"--ctx", "-c"}, Place: "after-command"},
		Switch: []spec.Switch{{Command: "context use", Arg: 1}},
	}
	reachKube = &spec.Spec{
		Name: "kube", Commands: []string{"kube"}, Noun: "context",
		Context: spec.Context{Read: []spec.Step{{Value: "current"}}},
		Bind:    &spec.Bind{Flags: []string{"--ctx"}, Place: "end"},
		Switch:  []spec.Switch{{Command: "use", Arg: 1}},
		SwitchedBy: []spec.Switch{
			{Command: "kswitch", Arg: 1, Unless: []string{"-c"}},
			{Command: "maker create", Unknown: true},
		},
		Destructive: []spec.Destructive{{Match: "** purge-*", Tier: "ask", Why: "purges"}},
	}
	reachView = &spec.Spec{
		Name: "view", Commands: []string{"view"}, Noun: "context", Shares: "kube",
		Context: spec.Context{Read: []spec.Step{{Value: "current"}}},
		Bind:    &spec.Bind{Flags: []string{"--kube-ctx"}, Place: "end"},
	}
)

// reachState: dock's context comes from the real reader (its spec has no file), kube and view
// read one shared current context.
type reachState struct{ kube string }

func (f reachState) Resolve(s *spec.Spec, in spec.Input) (spec.Active, error) {
	if s.Name == "dock" {
		return providers.NewReader().Resolve(s, in)
	}
	return spec.Active{Value: f.kube, From: spec.From{Kind: spec.FromFile}, File: "/kubeconfig", Scope: "/kubeconfig"}, nil
}

func (f reachState) Target(s *spec.Spec, in spec.Input, sw *spec.Switch, t string) (string, bool, error) {
	return t, true, nil
}

func (f reachState) Exists(*spec.Spec, spec.Input, string) (bool, error) { return true, nil }

func TestReachMechanisms(t *testing.T) {
	// view has no section of its own: kube's applies to it, as it shares kube's state.
	pol := contexts(map[string]*rules.ContextPolicy{
		"dock": {Allow: allow("staging")},
		"kube": {Allow: allow("dev", "qa")},
	})
	tests := []struct {
		name    string
		line    string
		env     map[string]string
		mem     memory
		verdict rules.Verdict
		want    string // the line after the rewrite, for a rewrite
		reason  string // a substring of the reason
	}{
		// globals_first: the binding goes before the subcommand, and only counts there.
		{name: "bound before the subcommand", line: "dock ps -a", verdict: rules.VerdictRewrite, want: "dock --ctx staging ps -a"},
		{name: "a subcommand's own -c is no binding", line: "dock run -c 512 img", verdict: rules.VerdictRewrite,
			want: "dock --ctx staging run -c 512 img"},
		{name: "a global binding is checked", line: "dock -c prod ps", verdict: rules.VerdictDeny, reason: "dock.binding-not-allowed"},
		{name: "an allowed global binding passes", line: "dock --ctx staging ps", verdict: rules.VerdictAllow},
		// overridden_by: the variable makes the context unknown; the binding flag still wins.
		{name: "an overriding variable on the call", line: "DOCK_HOST=tcp://x dock ps", verdict: rules.VerdictRewrite,
			want: "DOCK_HOST=tcp://x dock --ctx staging ps", reason: "DOCK_HOST is set, and dock then ignores its own context"},
		{name: "an overriding variable in the environment", line: "dock ps", env: map[string]string{"DOCK_HOST": "tcp://x"},
			verdict: rules.VerdictRewrite, want: "dock --ctx staging ps", reason: "cannot be known"},
		{name: "an overridden context gives way to the session's own switch", line: "dock ps", env: map[string]string{"DOCK_HOST": "tcp://x"},
			mem:     remember("dock", "/nonexistent/dock.json", rules.Switched{Provider: "dock", Value: "staging", From: "dock context use staging"}),
			verdict: rules.VerdictRewrite, want: "dock --ctx staging ps", reason: "dock.bind"},
		{name: "an overriding flag", line: "dock --host tcp://x ps", verdict: rules.VerdictRewrite, want: "dock --ctx staging --host tcp://x ps"},
		// switched_by with a target: checked against the policy and carried.
		{name: "a switcher's target not allowed", line: "kswitch prod", verdict: rules.VerdictDeny, reason: "kube.switch-not-allowed"},
		{name: "a switcher's allowed target is carried", line: "kswitch qa && kube get", verdict: rules.VerdictRewrite,
			want: "kswitch qa && kube get --ctx qa"},
		{name: "a switcher's unless flag: no switch", line: "kswitch -c && kube get", verdict: rules.VerdictRewrite,
			want: "kswitch -c && kube get --ctx dev"},
		{name: "a switcher without a target makes the context unknown", line: "kswitch && kube get", verdict: rules.VerdictAsk,
			reason: "kube.context-unknown"},
		{name: "a writer without a target", line: "maker create x && kube get", verdict: rules.VerdictAsk, reason: "kube.context-unknown"},
		// A pattern word that ends in * matches a word's start.
		{name: "a verb prefix", line: "kube store purge-all x", verdict: rules.VerdictAsk, reason: "kube.destructive.any-purge-any"},
		{name: "a word that only starts alike", line: "kube purger x", verdict: rules.VerdictRewrite, want: "kube purger x --ctx dev"},
		// shares: a switch of kube moves view, in the line and in the session.
		{name: "kube's switch binds view", line: "kube use qa && view ls", verdict: rules.VerdictRewrite, want: "kube use qa && view ls --kube-ctx qa"},
		{name: "a switcher binds view", line: "kswitch qa; view ls", verdict: rules.VerdictRewrite, want: "kswitch qa; view ls --kube-ctx qa"},
		{name: "kube's policy guards view", line: "view ls --kube-ctx prod", verdict: rules.VerdictDeny, reason: "view.binding-not-allowed"},
		{name: "kube's remembered switch binds view", line: "view ls", verdict: rules.VerdictRewrite, want: "view ls --kube-ctx qa",
			mem: remember("kube", "/kubeconfig", rules.Switched{Provider: "kube", Value: "qa", From: "kube use qa"}), reason: "this session switched to with `kube use qa`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, err := shell.Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			in := rules.Input{Calls: calls, Policy: pol, Providers: []*spec.Spec{reachDock, reachKube, reachView},
				State: reachState{kube: "dev"}, Quote: shell.Quote, Cwd: "/repo", Home: "/home", System: unix,
				Env: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }}
			if tt.mem != nil {
				in.Remembered = tt.mem.recall
			}
			res := rules.Evaluate(in)
			if res.Verdict != tt.verdict {
				t.Fatalf("verdict %v, want %v (%s: %s)", res.Verdict, tt.verdict, res.Rule, res.Reason)
			}
			if !strings.Contains(res.Rule+" "+res.Reason, tt.reason) {
				t.Errorf("reason %q (%s) does not contain %q", res.Reason, res.Rule, tt.reason)
			}
			if tt.verdict == rules.VerdictRewrite {
				if got := rewritten(t, tt.line, res); got != tt.want {
					t.Errorf("rewrite %q, want %q", got, tt.want)
				}
			}
		})
	}
}
