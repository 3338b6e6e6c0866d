package rules_test

import (
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// acme is a made-up CLI: the engine must decide from its spec alone.
var acme = &spec.Spec{
	Name: "acme", Commands: []string{"acme"}, Noun: "account", ValueFlags: []string{"--region"},
	Context: spec.Context{
		Read:            []spec.Step{{Let: "config", Default: "main"}, {Value: "account"}},
		CaseInsensitive: true,
	},
	Bind: &spec.Bind{Flags: []string{"--account"}, Place: "end", Reject: []string{"login"}},
	Switch: []spec.Switch{
		{Command: "use", Arg: 1},
		{Command: "logout", Unknown: true},
		{Command: "config activate", Sets: "config"},
	},
	SwitchedBy: []spec.Switch{{Command: "other get-creds", Unknown: true}},
	Help:       []string{"--help"},
	Exempt:     []string{"whoami"},
	Destructive: []spec.Destructive{
		{Match: "** delete", Tier: "ask", Why: "deletes a thing"},
		{Match: "nuke", Tier: "deny", Why: "destroys everything"},
	},
}

// envy binds with a variable, like terraform.
var envy = &spec.Spec{
	Name: "envy", Commands: []string{"envy"}, Noun: "workspace",
	Context: spec.Context{Read: []spec.Step{{Value: "ws"}}, Exists: []spec.Exists{{Equals: "default"}, {Path: "x"}}},
	Bind:    &spec.Bind{Env: []string{"ENVY_WS"}},
}

// fakeState answers from fixed values: acme's active account per configuration, envy's
// workspace, and which envy workspaces exist.
type fakeState struct {
	acme     map[string]string // config -> active account
	envy     string
	existing []string
}

var known = []spec.Known{{ID: "id-dev", Name: "Dev"}, {ID: "id-prod", Name: "Prod"}, {ID: "id-qa", Name: "QA"}}

func (f fakeState) Resolve(s *spec.Spec, in spec.Input) (spec.Active, error) {
	if s.Name == "envy" {
		return spec.Active{Value: f.envy, From: spec.From{Kind: spec.FromFile}, File: "/ws"}, nil
	}
	cfg := "main"
	if v, ok := in.Vars["config"]; ok {
		cfg = v
	}
	if v, ok := in.Flag([]string{"--config"}); ok {
		cfg = v
	}
	return spec.Active{Value: f.acme[cfg], From: spec.From{Kind: spec.FromFile}, File: "/state/" + cfg, Key: "account", Known: known}, nil
}

func (f fakeState) Target(s *spec.Spec, in spec.Input, sw *spec.Switch, t string) (string, bool, error) {
	return t, true, nil
}

func (f fakeState) Exists(s *spec.Spec, in spec.Input, v string) (bool, error) {
	if v == "default" {
		return true, nil
	}
	for _, e := range f.existing {
		if e == v {
			return true, nil
		}
	}
	return false, nil
}

func policy(ctx map[string]*rules.ContextPolicy, destructive rules.Setting, user ...rules.UserRule) *rules.Policy {
	return &rules.Policy{Files: []rules.PolicyFile{{Layer: "project", File: "/p/.ctxguard.yaml"}}, Contexts: ctx, Destructive: destructive, Rules: user}
}

func allow(p ...string) []rules.AllowList { return []rules.AllowList{{Patterns: p}} }

func TestDecide(t *testing.T) {
	devOnly := map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev")}}
	devProd := map[string]*rules.ContextPolicy{"acme": {Allow: allow("id-dev", "prod")}}
	withDefault := map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev", "QA"), Defaults: []rules.Valued{{Value: "QA"}}}}
	state := fakeState{acme: map[string]string{"main": "id-prod", "alt": "id-dev"}, envy: "prod", existing: []string{"staging"}}
	tests := []struct {
		name    string
		line    string
		policy  *rules.Policy
		state   fakeState
		verdict rules.Verdict
		rule    string
		want    string // the line after the rewrite ("" = unchanged)
		reason  string // a substring of the reason
	}{
		{name: "no context active: the reason names the file read", line: "acme list",
			policy:  policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev", "QA")}}, rules.SettingUnset),
			state:   fakeState{acme: map[string]string{}},
			verdict: rules.VerdictDeny, rule: "acme.context-not-allowed", reason: "no acme account is active (/state/main selects none)"},
		{name: "unchecked provider", line: "acme list", policy: policy(nil, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "active not allowed, only allowed value", line: "acme list", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictRewrite, rule: "acme.rebind", want: "acme list --account Dev", reason: "Prod (id-prod)"},
		{name: "active allowed, fix binds it", line: "acme list -o x", policy: policy(devProd, rules.SettingUnset),
			verdict: rules.VerdictRewrite, rule: "acme.bind", want: "acme list -o x --account id-prod"},
		{name: "default beats the only rule", line: "acme list", policy: policy(withDefault, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "acme list --account QA"},
		{name: "no target: deny with the allowed list", line: "acme list",
			policy:  policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev", "QA")}}, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "acme.context-not-allowed", reason: "allowed: Dev, QA"},
		{name: "unbound allow leaves allowed calls alone", line: "acme list",
			policy: policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("prod"), Unbound: rules.SettingAllow}}, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "unbound ask carries the binding", line: "acme list",
			policy:  policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("prod"), Unbound: rules.SettingAsk}}, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "acme.unbound-ask", want: "acme list --account id-prod"},
		{name: "unbound deny names the fixed command", line: "acme list",
			policy:  policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("prod"), Unbound: rules.SettingDeny}}, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "acme.unbound-deny", reason: "run: acme list --account id-prod"},
		{name: "explicit binding allowed, by name in any case", line: "acme list --account=dev", policy: policy(devOnly, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "explicit binding allowed, by id", line: "acme --account id-dev list", policy: policy(devOnly, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "explicit binding not allowed", line: "acme list --account Prod", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "acme.binding-not-allowed", reason: "run: acme list --account Dev"},
		{name: "explicit binding not literal", line: `acme list --account "$A"`, policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "acme.binding-dynamic"},
		{name: "switch allowed is carried", line: "acme use dev && acme list | wc -l", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "acme use dev && acme list --account dev | wc -l"},
		{name: "switch carried through a subshell", line: "(acme use dev); acme list", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "(acme use dev); acme list --account dev"},
		{name: "switch not allowed", line: "acme use prod && acme list", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "acme.switch-not-allowed", reason: "allowed: Dev"},
		{name: "switch target not literal", line: "acme use $X", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "acme.switch-dynamic"},
		{name: "switch setting a configuration re-reads it", line: "acme config activate alt && acme list", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "acme config activate alt && acme list --account id-dev"},
		{name: "unknown switch: later calls bound to the target", line: "acme logout; acme list", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "acme logout; acme list --account Dev"},
		{name: "unknown switch without a target asks", line: "acme logout; acme list",
			policy:  policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev", "QA")}}, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "acme.context-unknown", reason: "`acme logout`"},
		{name: "another CLI's writer makes the context unknown", line: "other get-creds --name c && acme list",
			policy:  policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev", "QA")}}, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "acme.context-unknown"},
		{name: "exempt", line: "acme whoami", policy: policy(devOnly, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "help does nothing, even on a destructive command", line: "acme thing delete --help", policy: policy(devOnly, rules.SettingDeny), verdict: rules.VerdictAllow},
		{name: "exempt still meets destructive rules", line: "acme whoami delete", policy: policy(devOnly, rules.SettingUnset), verdict: rules.VerdictAsk},
		{name: "rejecting subcommand cannot be bound", line: "acme login", policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "acme.context-not-allowed"},
		{name: "destructive ask keeps the binding", line: "acme thing delete x", policy: policy(devProd, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "acme.destructive.any-delete", want: "acme thing delete x --account id-prod"},
		{name: "destructive deny tier", line: "acme nuke", policy: policy(devProd, rules.SettingUnset), verdict: rules.VerdictDeny, rule: "acme.destructive.nuke"},
		{name: "destructive: deny caps every entry", line: "acme a b delete", policy: policy(devProd, rules.SettingDeny), verdict: rules.VerdictDeny},
		{name: "destructive: allow turns packs off", line: "acme nuke", policy: policy(nil, rules.SettingAllow), verdict: rules.VerdictAllow},
		{name: "value flag's value is not a subcommand", line: "acme --region delete list", policy: policy(nil, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "a flag ends the path", line: "acme show --name delete", policy: policy(nil, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "user rule", line: "acme grant all", policy: policy(nil, rules.SettingUnset, rules.UserRule{ID: "no-grants", Match: "acme grant", Decision: rules.SettingDeny, Reason: "grants need a human"}),
			verdict: rules.VerdictDeny, rule: "no-grants", reason: "grants need a human"},
		{name: "user rule on an unguarded command", line: "rm -rf /tmp/x", policy: policy(nil, rules.SettingUnset, rules.UserRule{ID: "no-rm", Match: "rm -rf", Decision: rules.SettingAsk, Reason: "rm"}),
			verdict: rules.VerdictAsk, rule: "no-rm"},
		{name: "nested call denied with the fix", line: `bash -c "acme list"`, policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "acme.bind-nested", reason: "acme list --account Dev"},
		{name: "dynamic command word naming a guarded CLI", line: `$ACME list`, policy: policy(devOnly, rules.SettingUnset),
			verdict: rules.VerdictAsk, rule: "parse.dynamic-command"},
		{name: "data is not a call", line: `echo "acme nuke" # acme nuke`, policy: policy(devOnly, rules.SettingUnset), verdict: rules.VerdictAllow},
		{name: "env binding", line: "envy plan", policy: policy(map[string]*rules.ContextPolicy{"envy": {Allow: allow("staging", "default"), Defaults: []rules.Valued{{Value: "staging"}}}}, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "ENVY_WS=staging envy plan"},
		{name: "env binding through a wrapper uses env", line: "sudo envy plan", policy: policy(map[string]*rules.ContextPolicy{"envy": {Allow: allow("staging"), Defaults: []rules.Valued{{Value: "staging"}}}}, rules.SettingUnset),
			verdict: rules.VerdictRewrite, want: "sudo env ENVY_WS=staging envy plan"},
		{name: "env binding only to a target that exists", line: "envy plan", policy: policy(map[string]*rules.ContextPolicy{"envy": {Allow: allow("qa"), Defaults: []rules.Valued{{Value: "qa"}}}}, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "envy.context-not-allowed"},
		{name: "explicit env binding checked", line: "ENVY_WS=prod envy plan", policy: policy(map[string]*rules.ContextPolicy{"envy": {Allow: allow("staging")}}, rules.SettingUnset),
			verdict: rules.VerdictDeny, rule: "envy.binding-not-allowed"},
		{name: "strictest of several calls wins", line: "acme list; acme nuke", policy: policy(devOnly, rules.SettingUnset), verdict: rules.VerdictDeny, rule: "acme.destructive.nuke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.state
			if st.acme == nil {
				st = state
			}
			calls, err := shell.Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			res := rules.Evaluate(rules.Input{System: unix, Calls: calls, Policy: tt.policy, Providers: []*spec.Spec{acme, envy}, State: st, Quote: shell.Quote, Cwd: "/w", Home: "/h"})
			if res.Verdict != tt.verdict {
				t.Fatalf("verdict %v, want %v (rule %s: %s)", res.Verdict, tt.verdict, res.Rule, res.Reason)
			}
			if tt.rule != "" && res.Rule != tt.rule {
				t.Errorf("rule %q, want %q (%s)", res.Rule, tt.rule, res.Reason)
			}
			if !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", res.Reason, tt.reason)
			}
			if res.Verdict != rules.VerdictAllow && !strings.HasPrefix(res.Reason, "[ctxguard/"+res.Rule+"]") {
				t.Errorf("reason %q does not start with its rule id %q", res.Reason, res.Rule)
			}
			got := ""
			if len(res.Edits) > 0 {
				if got, err = shell.Rewrite(tt.line, res.Edits); err != nil {
					t.Fatal(err)
				}
			}
			if tt.verdict == rules.VerdictDeny {
				return
			}
			if got != tt.want {
				t.Errorf("rewrite %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVerdictNames: every verdict has a name that reads back as it, and there is no name
// beyond the strictest verdict.
func TestVerdictNames(t *testing.T) {
	for v := rules.VerdictAllow; v <= rules.VerdictDeny; v++ {
		if got, ok := rules.ParseVerdict(v.String()); !ok || got != v {
			t.Errorf("ParseVerdict(%q) = %v, %v", v.String(), got, ok)
		}
	}
	if n := len(spec.Decisions); n != int(rules.VerdictDeny)+1 {
		t.Errorf("spec.Decisions has %d names for %d verdicts", n, rules.VerdictDeny+1)
	}
	if _, ok := rules.ParseVerdict("block"); ok {
		t.Error("ParseVerdict(block) is a verdict")
	}
}

// TestLayeredAllowList: when a user's (or the managed) policy and the repository's both list the
// allowed contexts, a context must be in both, and a denied switch says which ones that leaves:
// the entries every list allows, not the repository's list alone.
func TestLayeredAllowList(t *testing.T) {
	state := fakeState{acme: map[string]string{"main": "id-dev"}}
	for _, tt := range []struct {
		name          string
		user, project []string
		want          string
	}{
		{"literals", []string{"Dev", "QA"}, []string{"QA", "Prod", "Dev"}, "(allowed: QA, Dev)"},
		{"an id and a name of one account", []string{"id-qa"}, []string{"QA", "Dev"}, "(allowed: QA)"},
		{"nothing in common", []string{"Dev"}, []string{"QA"}, "(allowed: none: no context is in every policy's list)"},
		{"everything, then a list", []string{"*"}, []string{"Dev", "QA"}, "(allowed: Dev, QA)"},
		{"a pattern inside another", []string{"q*"}, []string{"*"}, "(allowed: q*)"},
		{"patterns that overlap", []string{"D*", "Prod"}, []string{"*v", "QA"}, "(allowed: what matches each of *v and D*)"},
		{"patterns that do not", []string{"D*"}, []string{"q*"}, "(allowed: none: no context is in every policy's list)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pol := policy(map[string]*rules.ContextPolicy{"acme": {Allow: []rules.AllowList{
				{Patterns: tt.user, Src: rules.Source{File: "/h/.config/ctxguard/policy.yaml"}},
				{Patterns: tt.project, Src: rules.Source{File: "/p/.ctxguard.yaml"}},
			}}}, rules.SettingUnset)
			calls, err := shell.Parse("acme use Prod")
			if err != nil {
				t.Fatal(err)
			}
			res := rules.Evaluate(rules.Input{System: unix, Calls: calls, Policy: pol, Providers: []*spec.Spec{acme}, State: state, Quote: shell.Quote, Cwd: "/w", Home: "/h"})
			if res.Verdict != rules.VerdictDeny || !strings.Contains(res.Reason, tt.want) {
				t.Errorf("%v %s: %s; want a deny with %q", res.Verdict, res.Rule, res.Reason, tt.want)
			}
		})
	}
}

// TestHintInDialect: a deny that tells the agent how to name a context says it in the line's
// own language: a variable binding is VAR=value in bash, $env:VAR='value' in PowerShell, which
// has no VAR=value prefix.
func TestHintInDialect(t *testing.T) {
	pol := policy(map[string]*rules.ContextPolicy{"envy": {Allow: allow("qa")}}, rules.SettingUnset)
	state := fakeState{acme: map[string]string{}, envy: "prod"}
	for _, tt := range []struct {
		shell string
		parse func(string) ([]rules.Call, error)
		quote func(string) string
		want  string
	}{
		{rules.ShellBash, shell.Parse, shell.Quote, "(ENVY_WS=<workspace>)"},
		{rules.ShellPowerShell, shell.ParsePowerShell, shell.QuotePowerShell, "($env:ENVY_WS='<workspace>')"},
	} {
		calls, err := tt.parse("envy plan")
		if err != nil {
			t.Fatal(err)
		}
		res := rules.Evaluate(rules.Input{System: unix, Calls: calls, Policy: pol, Providers: []*spec.Spec{envy}, State: state, Quote: tt.quote, Shell: tt.shell, Cwd: "/w", Home: "/h"})
		if res.Verdict != rules.VerdictDeny || !strings.Contains(res.Reason, tt.want) {
			t.Errorf("%s: %v %s: %s; want a deny with %q", tt.shell, res.Verdict, res.Rule, res.Reason, tt.want)
		}
	}
}
