package rules_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// Made-up CLIs for the schema's later mechanisms. dock's global flags must precede its
// subcommand, and a variable makes it ignore its context (docker's shape). kube is switched by a
// separate switcher CLI that names its target (kubectx), by one whose target follows from its
// flags, variable and default (kind), by one that names a part of it (pro: p-<region>-NAME), by
// one whose target is not known (aws eks update-kubeconfig) and by a writer that only drops it;
// kns changes its current context's namespace (kubens). view reads kube's state (helm), and its
// own switches move kube's.
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
			{Command: "kmake create", ValueFlags: []string{"-v"}, Read: []spec.Step{
				{Let: "name", Flag: []string{"--name"}, OverriddenBy: []string{"--config"}, Env: spec.Strings{"KMAKE_NAME"}, Default: "one"},
				{Default: "km-${name}"},
			}},
			{Command: "pro use", Arg: 1, Read: []spec.Step{{Let: "region", Flag: []string{"--region"}}, {Default: "p-${region}-${target}"}}},
			{Command: "kfetch save", Unknown: true, Asks: true, Unless: []string{"--switch=false"}},
		},
		RedefinedBy: []spec.Redefine{{Command: "kns *", CurrentAlways: true}},
		Destructive: []spec.Destructive{{Match: "** purge-*", Tier: "ask", Why: "purges"}},
	}
	reachView = &spec.Spec{
		Name: "view", Commands: []string{"view"}, Noun: "context", Shares: "kube",
		Context: spec.Context{Read: []spec.Step{{Value: "current"}}},
		Bind:    &spec.Bind{Flags: []string{"--kube-ctx"}, Place: "end"},
		Switch:  []spec.Switch{{Command: "goto", Arg: 1}, {Command: "project *", Unknown: true, Asks: true}},
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
	if len(sw.Read) > 0 {
		return providers.NewReader().Target(s, in, sw, t)
	}
	return t, true, nil
}

func (f reachState) Exists(*spec.Spec, spec.Input, string) (bool, error) { return true, nil }

func TestReachMechanisms(t *testing.T) {
	// view has no section of its own: kube's applies to it, as it shares kube's state.
	pol := contexts(map[string]*rules.ContextPolicy{
		"dock": {Allow: allow("staging")},
		"kube": {Allow: allow("dev", "qa", "km-qa")},
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
		// A switcher's fix is the switcher itself, to an allowed target.
		{name: "a switcher's fix", line: "kswitch prod", verdict: rules.VerdictDeny, reason: "(e.g. `kswitch dev`)"},
		// read: the target follows from the call's flag, else its variable, else the default.
		{name: "a worked-out default not allowed", line: "kmake create", verdict: rules.VerdictDeny, reason: "to km-one, which this repository does not allow"},
		{name: "a worked-out flag is carried", line: "kmake create --name qa && kube get", verdict: rules.VerdictRewrite,
			want: "kmake create --name qa && kube get --ctx km-qa"},
		{name: "a worked-out variable is carried", line: "KMAKE_NAME=qa kmake create && kube get", verdict: rules.VerdictRewrite,
			want: "KMAKE_NAME=qa kmake create && kube get --ctx km-qa"},
		{name: "a worked-out variable that is not literal", line: "KMAKE_NAME=$N kmake create", verdict: rules.VerdictAsk, reason: "kube.switch-dynamic"},
		{name: "a flag that makes the worked-out target unknown", line: "kmake create --config c.yaml && kube get", verdict: rules.VerdictAsk,
			reason: "kube.switch-unknown"},
		// value_flags and the steps' flags: their values are no subcommand words.
		{name: "the switcher's own value flag", line: "kmake -v 3 create --name qa && kube get", verdict: rules.VerdictRewrite,
			want: "kmake -v 3 create --name qa && kube get --ctx km-qa"},
		{name: "a step's flag before the subcommand", line: "kmake --name prod create", verdict: rules.VerdictDeny, reason: "to km-prod"},
		{name: "${target} in a worked-out target", line: "pro use shop --region eu", verdict: rules.VerdictDeny, reason: "to p-eu-shop"},
		{name: "a worked-out target missing a part asks", line: "pro use shop", verdict: rules.VerdictAsk, reason: "kube.switch-unknown"},
		// asks: an unknown target that is another context; unless with a value.
		{name: "an unknown target is asked about", line: "kfetch save", verdict: rules.VerdictAsk, reason: "kube.switch-unknown"},
		{name: "an unless flag with its value", line: "kfetch save --switch=false && kube get", verdict: rules.VerdictRewrite,
			want: "kfetch save --switch=false && kube get --ctx dev"},
		{name: "an unless flag with another value", line: "kfetch save --switch=true", verdict: rules.VerdictAsk, reason: "kube.switch-unknown"},
		// redefined_by: another CLI changes the current (allowed) context.
		{name: "a redefinition of the current context", line: "kns team-b", verdict: rules.VerdictAsk, reason: "kube.redefine] `kns team-b` changes the allowed context dev"},
		{name: "no redefinition without the word", line: "kns", verdict: rules.VerdictAllow},
		// A switch of view's moves kube's shared state: kube's policy judges it, and one to an
		// unknown context is asked about.
		{name: "a sharer's switch under the shared policy", line: "view goto prod", verdict: rules.VerdictDeny, reason: "view.switch-not-allowed"},
		{name: "a sharer's unknown switch asks", line: "view project x", verdict: rules.VerdictAsk, reason: "view.switch-unknown"},
		{name: "no switch without the word", line: "view project", verdict: rules.VerdictRewrite, want: "view project --kube-ctx dev"},
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

// TestSwitchPolicies checks whose policy a switch answers to: a switch of view's moves kube's
// state, so both sections must allow its target; and an unknown target is asked about only
// where a policy restricts the contexts (anywhere is then allowed).
func TestSwitchPolicies(t *testing.T) {
	both := contexts(map[string]*rules.ContextPolicy{"view": {Allow: allow("prod", "dev")}, "kube": {Allow: allow("dev")}})
	open := contexts(map[string]*rules.ContextPolicy{"kube": {}})
	tests := []struct {
		name, line string
		pol        *rules.Policy
		verdict    rules.Verdict
		reason     string
	}{
		{name: "allowed by view's own section, not by kube's", line: "view goto prod", pol: both, verdict: rules.VerdictDeny, reason: "view.switch-not-allowed"},
		{name: "allowed by both", line: "view goto dev", pol: both, verdict: rules.VerdictAllow},
		{name: "an unknown target where any context is allowed", line: "kfetch save", pol: open, verdict: rules.VerdictAllow},
		{name: "a sharer's unknown target where any context is allowed", line: "view project x", pol: open, verdict: rules.VerdictAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, err := shell.Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			res := rules.Evaluate(rules.Input{Calls: calls, Policy: tt.pol, Providers: []*spec.Spec{reachKube, reachView},
				State: reachState{kube: "dev"}, Quote: shell.Quote, Cwd: "/repo", Home: "/home", System: unix})
			if res.Verdict != tt.verdict || !strings.Contains(res.Rule, tt.reason) {
				t.Errorf("%s (%s: %s), want %s %s", res.Verdict, res.Rule, res.Reason, tt.verdict, tt.reason)
			}
		})
	}
}

// TestFixDialect checks the commands a reason offers: written in the line's shell (PowerShell
// has no `VAR=x cmd` and, in Windows PowerShell 5.1, no &&), recorded in the trace, and
// runnable from where the agent is, after the line's `cd`.
func TestFixDialect(t *testing.T) {
	pol := contexts(map[string]*rules.ContextPolicy{"envy": {Allow: allow("default", "staging", "qa"), Defaults: []rules.Valued{{Value: "qa"}}}})
	withSwitch := *envy
	withSwitch.Switch = []spec.Switch{{Command: "ws select", Arg: 1}, {Command: "ws new", Arg: 1, Creates: true}}
	tests := []struct {
		name, shell, line string
		fixes             []string
		hint              string // a part of the reason that is no command
	}{
		{name: "bash", line: "cd infra && envy plan", hint: "(ENVY_WS=<workspace>)",
			fixes: []string{"cd infra && ENVY_WS=default envy plan", "cd infra && ENVY_WS=staging envy plan", "cd infra && envy ws new qa"}},
		{name: "powershell", shell: rules.ShellPowerShell, line: "cd infra; envy plan", hint: "($env:ENVY_WS='<workspace>')",
			fixes: []string{"cd infra; if ($?) { $env:ENVY_WS='default'; envy plan }", "cd infra; if ($?) { $env:ENVY_WS='staging'; envy plan }",
				"cd infra; if ($?) { envy ws new qa }"}},
		{name: "no cd", line: "envy plan", fixes: []string{"ENVY_WS=default envy plan", "ENVY_WS=staging envy plan", "envy ws new qa"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse, quote := shell.Parse, shell.Quote
			if tt.shell == rules.ShellPowerShell {
				parse, quote = shell.ParsePowerShell, shell.QuotePowerShell
			}
			calls, err := parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			res := rules.Evaluate(rules.Input{Calls: calls, Policy: pol, Providers: []*spec.Spec{&withSwitch}, Shell: tt.shell,
				State: fakeState{envy: "prod", existing: []string{"staging"}}, Quote: quote, Cwd: "/repo", Home: "/home", System: unix})
			if res.Verdict != rules.VerdictDeny || len(res.Calls) != 1 {
				t.Fatalf("%s (%s: %s), want one call denied", res.Verdict, res.Rule, res.Reason)
			}
			if got := res.Calls[0].Fixes; !slices.Equal(got, tt.fixes) {
				t.Errorf("fixes %q, want %q", got, tt.fixes)
			}
			for _, f := range tt.fixes {
				if !strings.Contains(res.Reason, "`"+f+"`") {
					t.Errorf("reason %q does not offer `%s`", res.Reason, f)
				}
			}
			if !strings.Contains(res.Reason, tt.hint) {
				t.Errorf("reason %q does not contain %q", res.Reason, tt.hint)
			}
		})
	}
}

// TestStandaloneFix: a fix runs on its own, where the line's variables and a script's arguments
// are not set, so the words the line gave a call are written out; a binding that one expansion
// wrote among other words ("$@") has no word of its own to replace, and is not offered.
func TestStandaloneFix(t *testing.T) {
	pol := policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev")}}, rules.SettingUnset)
	tests := []struct {
		line  string
		fixes []string
	}{
		{line: "g=acme; $g list --account Prod", fixes: []string{"acme list --account Dev"}},
		{line: `sh -c 'acme "$@"' _ list`, fixes: []string{"acme list --account Dev"}},
		{line: `sh -c 'acme "$@"' _ list --account Prod`},
	}
	for _, tt := range tests {
		calls, err := shell.Parse(tt.line)
		if err != nil {
			t.Fatal(err)
		}
		res := rules.Evaluate(rules.Input{Calls: calls, Policy: pol, Providers: []*spec.Spec{acme}, Quote: shell.Quote, Cwd: "/repo", System: unix,
			State: fakeState{acme: map[string]string{"main": "id-prod"}}})
		var got []string
		for _, c := range res.Calls {
			got = append(got, c.Fixes...)
		}
		if res.Verdict != rules.VerdictDeny || !slices.Equal(got, tt.fixes) {
			t.Errorf("%s: %s (%s), fixes %q; want deny with %q", tt.line, res.Verdict, res.Reason, got, tt.fixes)
		}
	}
}
