package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// The specs below are made up, like decide_test.go's: each stands for one shape of CLI that
// session memory has to handle. sub binds with a flag (az), ws with a variable and only to a
// workspace that exists in the call's directory (terraform), acct cannot bind (gh), cfg switches
// a configuration that holds the context (gcloud), and kube is switched by other CLIs (kubectl,
// switched by `az aks get-credentials`).
var (
	memSub = &spec.Spec{
		Name: "sub", Commands: []string{"sub"}, Noun: "subscription",
		Context: spec.Context{Read: []spec.Step{{Value: "current"}}, CaseInsensitive: true},
		Bind:    &spec.Bind{Flags: []string{"--sub"}, Place: "end", Reject: []string{"login", "use"}},
		Switch:  []spec.Switch{{Command: "use", Arg: 1}, {Command: "login", Unknown: true}},
		Exempt:  []string{"show"},
	}
	memWs = &spec.Spec{
		Name: "ws", Commands: []string{"ws"}, Noun: "workspace",
		Context: spec.Context{Read: []spec.Step{{Value: "ws"}}, Exists: []spec.Exists{{Path: "x"}}},
		Bind:    &spec.Bind{Env: []string{"WS"}, Reject: []string{"select"}},
		Switch:  []spec.Switch{{Command: "select", Arg: 1}},
	}
	memAcct = &spec.Spec{
		Name: "acct", Commands: []string{"acct"}, Noun: "account",
		Context: spec.Context{Read: []spec.Step{{Value: "user"}}},
		Switch:  []spec.Switch{{Command: "switch", Flags: []string{"-u"}}},
	}
	memCfg = &spec.Spec{
		Name: "cfg", Commands: []string{"cfg"}, Noun: "project",
		Context: spec.Context{Read: []spec.Step{{Let: "config", Default: "main"}, {Value: "project"}}},
		Bind:    &spec.Bind{Flags: []string{"--project"}, Place: "end"},
		Switch:  []spec.Switch{{Command: "activate", Sets: "config"}},
		Exempt:  []string{"get"},
	}
	memKube = &spec.Spec{
		Name: "kube", Commands: []string{"kube"}, Noun: "context",
		Context:    spec.Context{Read: []spec.Step{{Value: "current"}}},
		Bind:       &spec.Bind{Flags: []string{"--ctx"}, Place: "end"},
		Switch:     []spec.Switch{{Command: "use", Arg: 1}},
		SwitchedBy: []spec.Switch{{Command: "sub creds", Unknown: true}},
	}
	memSpecs = []*spec.Spec{memSub, memWs, memAcct, memCfg, memKube}
)

var memKnown = []spec.Known{{ID: "id-a", Name: "A"}, {ID: "id-b", Name: "B"}, {ID: "id-c", Name: "C"}, {ID: "id-x", Name: "X"}}

// memState is the shared state: each provider's active context. A call's scope is its provider's
// state file, which for ws is per directory. Workspaces exist as listed per directory.
type memState struct {
	active   map[string]string          // provider (cfg: "cfg/<config>") -> active value
	existing map[string]map[string]bool // directory -> workspaces
}

func (f memState) Resolve(s *spec.Spec, in spec.Input) (spec.Active, error) {
	key, scope := s.Name, "/state/"+s.Name
	switch s.Name {
	case "ws":
		scope = in.Dir + "/.ws"
	case "cfg":
		cfg := "main"
		if v, ok := in.Vars["config"]; ok {
			cfg = v
		}
		key = "cfg/" + cfg
	}
	return spec.Active{Value: f.active[key], From: spec.From{Kind: spec.FromFile}, File: scope, Known: memKnown, Scope: scope}, nil
}

func (f memState) Target(s *spec.Spec, in spec.Input, sw *spec.Switch, t string) (string, bool, error) {
	return t, true, nil
}

func (f memState) Exists(s *spec.Spec, in spec.Input, v string) (bool, error) {
	return f.existing[in.Dir][v], nil
}

// memory is a session's memory, keyed the way the engine asks for it.
type memory map[string]rules.Switched

func (m memory) recall(provider, scope string) (rules.Switched, bool) {
	sw, ok := m[provider+" "+scope]
	return sw, ok
}

func remember(provider, scope string, sw rules.Switched) memory {
	return memory{provider + " " + scope: sw}
}

func evaluate(t *testing.T, line string, pol *rules.Policy, st memState, mem memory) rules.Result {
	t.Helper()
	calls, err := shell.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	in := rules.Input{System: unix, Calls: calls, Policy: pol, Providers: memSpecs, State: st, Quote: shell.Quote, Cwd: "/repo"}
	if mem != nil {
		in.Remembered = mem.recall
	}
	return rules.Evaluate(in)
}

func rewritten(t *testing.T, line string, res rules.Result) string {
	t.Helper()
	if len(res.Edits) == 0 {
		return ""
	}
	out, err := shell.Rewrite(line, res.Edits)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func contexts(m map[string]*rules.ContextPolicy) *rules.Policy {
	return &rules.Policy{Files: []rules.PolicyFile{{Layer: "project", File: "/repo/.ctxguard.yaml"}}, Contexts: m}
}

// TestBindingOrder checks the order in which an unbound call's binding target is chosen: carried
// in the line, remembered for the session, active (if allowed), the policy's default, the only
// allowed value; and that an explicit binding beats all of them.
func TestBindingOrder(t *testing.T) {
	ab := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: allow("A", "B", "C")}})
	abDefaultC := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: allow("A", "B", "C"), Defaults: []rules.Valued{{Value: "C"}}}})
	onlyC := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: allow("C")}})
	bOrC := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: allow("B", "C")}})
	activeA := memState{active: map[string]string{"sub": "id-a"}}
	activeX := memState{active: map[string]string{"sub": "id-x"}}
	sessionB := remember("sub", "/state/sub", rules.Switched{Provider: "sub", Value: "B", From: "sub use B"})
	sessionX := remember("sub", "/state/sub", rules.Switched{Provider: "sub", Value: "X", From: "sub use X"})
	tests := []struct {
		name   string
		line   string
		policy *rules.Policy
		state  memState
		mem    memory
		want   string       // the bound line
		source rules.Origin // the context's source in the trace
		reason string       // a substring of the reason
	}{
		{name: "carried beats remembered", line: "sub use C && sub list", policy: ab, state: activeA, mem: sessionB,
			want: "sub use C && sub list --sub C", source: "carried"},
		{name: "remembered beats active", line: "sub list", policy: ab, state: activeA, mem: sessionB,
			want: "sub list --sub B", source: "remembered", reason: "which this session switched to with `sub use B`"},
		{name: "remembered beats the default", line: "sub list", policy: abDefaultC, state: activeX, mem: sessionB,
			want: "sub list --sub B", source: "remembered"},
		{name: "active without memory", line: "sub list", policy: ab, state: activeA,
			want: "sub list --sub id-a", source: "state"},
		{name: "a remembered context no longer allowed falls back to the active one", line: "sub list", policy: ab, state: activeA, mem: sessionX,
			want: "sub list --sub id-a", source: "state"},
		{name: "then to the default", line: "sub list", policy: abDefaultC, state: activeX, mem: sessionX,
			want: "sub list --sub C", source: "state", reason: "sub.rebind"},
		{name: "then to the only allowed value", line: "sub list", policy: onlyC, state: activeX, mem: sessionX,
			want: "sub list --sub C", source: "state"},
		{name: "memory of another state does not apply", line: "sub list", policy: ab, state: activeA,
			mem:  remember("sub", "/elsewhere", rules.Switched{Provider: "sub", Value: "B"}),
			want: "sub list --sub id-a", source: "state"},
		{name: "an explicit binding wins", line: "sub list --sub=C", policy: bOrC, state: activeA, mem: sessionB, source: "flag"},
		{name: "a remembered switch is also carried through the line", line: "sub list && sub show", policy: ab, state: activeA, mem: sessionB,
			want: "sub list --sub B && sub show --sub B", source: "remembered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluate(t, tt.line, tt.policy, tt.state, tt.mem)
			if got := rewritten(t, tt.line, res); got != tt.want {
				t.Errorf("line = %q, want %q (verdict %s: %s)", got, tt.want, res.Verdict, res.Reason)
			}
			last := res.Calls[len(res.Calls)-1]
			if tt.line == "sub list && sub show" {
				last = res.Calls[len(res.Calls)-2]
			}
			if last.Context == nil || last.Context.Source != tt.source {
				t.Errorf("context %+v, want source %q", last.Context, tt.source)
			}
			if !strings.Contains(res.Rule+" "+res.Reason, tt.reason) {
				t.Errorf("reason %q (%s), want it to contain %q", res.Reason, res.Rule, tt.reason)
			}
		})
	}
}

// TestRememberedWorkspace checks a provider whose state is per directory and whose targets must
// exist: the session's switch applies in the directory it was made in, and a remembered
// workspace that is gone gives way to the active one before the default.
func TestRememberedWorkspace(t *testing.T) {
	pol := contexts(map[string]*rules.ContextPolicy{"ws": {Allow: allow("dev", "staging", "prod"), Defaults: []rules.Valued{{Value: "dev"}}}})
	st := memState{
		active:   map[string]string{"ws": "prod"},
		existing: map[string]map[string]bool{"/repo": {"dev": true, "prod": true, "staging": true}, "/repo/other": {"dev": true, "prod": true}},
	}
	mem := remember("ws", "/repo/.ws", rules.Switched{Provider: "ws", Value: "staging", From: "ws select staging"})
	for _, tt := range []struct{ line, want string }{
		{"ws plan", "WS=staging ws plan"},
		{"cd other && ws plan", "cd other && WS=prod ws plan"},
	} {
		res := evaluate(t, tt.line, pol, st, mem)
		if got := rewritten(t, tt.line, res); got != tt.want {
			t.Errorf("%s: got %q, want %q (%s)", tt.line, got, tt.want, res.Reason)
		}
	}
	// staging is remembered for /repo/other too, but does not exist there: the active one next.
	mem = remember("ws", "/repo/other/.ws", rules.Switched{Provider: "ws", Value: "staging", From: "ws select staging"})
	line := "cd other && ws plan"
	res := evaluate(t, line, pol, st, mem)
	if got, want := rewritten(t, line, res), "cd other && WS=prod ws plan"; got != want {
		t.Errorf("remembered workspace gone: got %q, want %q (%s)", got, want, res.Reason)
	}
}

// TestRememberedConfiguration checks a switch that selects a configuration: the session's
// configuration is re-read for its context.
func TestRememberedConfiguration(t *testing.T) {
	pol := contexts(map[string]*rules.ContextPolicy{"cfg": {Allow: allow("p-main", "p-dev")}})
	st := memState{active: map[string]string{"cfg/main": "p-main", "cfg/dev": "p-dev"}}
	mem := remember("cfg", "/state/cfg", rules.Switched{Provider: "cfg", Vars: map[string]string{"config": "dev"}, From: "cfg activate dev"})
	for _, tt := range []struct{ line, want string }{
		{"cfg list", "cfg list --project p-dev"},
		// Self-inspection shows the session's project, not the shared one.
		{"cfg get project", "cfg get project --project p-dev"},
	} {
		res := evaluate(t, tt.line, pol, st, mem)
		if got := rewritten(t, tt.line, res); got != tt.want {
			t.Errorf("%s: got %q, want %q (%s)", tt.line, got, tt.want, res.Reason)
		}
	}
}

// TestInspection checks that self-inspection (an exempt call that can bind) is bound only to a
// switch of the line or the session, so that it reports the context this session selected.
func TestInspection(t *testing.T) {
	pol := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: allow("A", "B")}})
	st := memState{active: map[string]string{"sub": "id-a"}}
	sessionB := remember("sub", "/state/sub", rules.Switched{Provider: "sub", Value: "B", From: "sub use B"})
	tests := []struct {
		name, line string
		mem        memory
		want       string
	}{
		{"no switch: left alone", "sub show", nil, ""},
		{"remembered", "sub show -o tsv", sessionB, "sub show -o tsv --sub B"},
		{"carried", "sub use A && sleep 1 && sub show", nil, "sub use A && sleep 1 && sub show --sub A"},
		{"already bound", "sub show --sub A", sessionB, ""},
		{"unknown after a login: left alone, it is how to find out", "sub login && sub show", nil, ""},
		{"a call that rejects the binding", "sub login", sessionB, ""},
		{"inside a quoted string: left alone", "bash -c 'sub show'", sessionB, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluate(t, tt.line, pol, st, tt.mem)
			if got := rewritten(t, tt.line, res); got != tt.want {
				t.Errorf("got %q, want %q (%s: %s)", got, tt.want, res.Verdict, res.Reason)
			}
			if res.Verdict > rules.VerdictRewrite {
				t.Errorf("self-inspection got %s (%s)", res.Verdict, res.Reason)
			}
		})
	}
}

// TestSessionMoved checks a CLI that cannot be bound: when another session has moved the shared
// context away from the one this session selected, the call is denied with the switch to run
// first, in the same command.
func TestSessionMoved(t *testing.T) {
	pol := contexts(map[string]*rules.ContextPolicy{"acct": {Allow: allow("alice", "bob")}})
	mem := remember("acct", "/state/acct", rules.Switched{Provider: "acct", Value: "bob", From: "acct switch -u bob"})
	res := evaluate(t, "acct pr list", pol, memState{active: map[string]string{"acct": "alice"}}, mem)
	if res.Verdict != rules.VerdictDeny || res.Rule != "acct.session-moved" {
		t.Fatalf("got %s (%s), want deny acct.session-moved", res.Verdict, res.Rule)
	}
	for _, want := range []string{"switched the acct account to bob", "the active one is now alice", "acct switch -u bob && acct pr list"} {
		if !strings.Contains(res.Reason, want) {
			t.Errorf("reason %q lacks %q", res.Reason, want)
		}
	}
	if res := evaluate(t, "acct pr list", pol, memState{active: map[string]string{"acct": "bob"}}, mem); res.Verdict != rules.VerdictAllow {
		t.Errorf("unmoved: got %s (%s), want allow", res.Verdict, res.Reason)
	}
	if res := evaluate(t, "acct switch -u bob && acct pr list", pol, memState{active: map[string]string{"acct": "alice"}}, mem); res.Verdict != rules.VerdictAllow {
		t.Errorf("the fix itself: got %s (%s), want allow", res.Verdict, res.Reason)
	}
}

// TestExternalSwitch checks the writers that change another CLI's context as a side effect: in
// the line and, remembered, in the session, the other CLI's later calls are not trusted to its
// state file.
func TestExternalSwitch(t *testing.T) {
	two := contexts(map[string]*rules.ContextPolicy{"sub": {}, "kube": {Allow: allow("dev", "prod")}})
	one := contexts(map[string]*rules.ContextPolicy{"sub": {}, "kube": {Allow: allow("dev")}})
	st := memState{active: map[string]string{"sub": "id-a", "kube": "dev"}}
	unknown := remember("kube", "/state/kube", rules.Switched{Provider: "kube", Unknown: true, From: "sub creds -n c1"})

	// In the line: the switch is recorded, with kube's scope, for the session to remember.
	line := "sub creds -n c1 && kube get pods"
	res := evaluate(t, line, two, st, nil)
	if res.Verdict != rules.VerdictAsk || res.Rule != "kube.context-unknown" {
		t.Errorf("in the line: got %s (%s), want ask kube.context-unknown", res.Verdict, res.Rule)
	}
	want := []rules.Switched{{Provider: "kube", Unknown: true, From: "sub creds -n c1", Scope: "/state/kube"}}
	if diff := cmp.Diff(want, res.Switches); diff != "" {
		t.Errorf("Switches (-want +got):\n%s", diff)
	}

	// In a later call of the session: asked, with the exact commands that would run.
	res = evaluate(t, "kube get pods", two, st, unknown)
	if res.Verdict != rules.VerdictAsk || res.Rule != "kube.context-unknown" {
		t.Fatalf("in the session: got %s (%s), want ask kube.context-unknown", res.Verdict, res.Rule)
	}
	for _, want := range []string{"this session ran `sub creds -n c1`", "`kube get pods --ctx dev` or `kube get pods --ctx prod`"} {
		if !strings.Contains(res.Reason, want) {
			t.Errorf("reason %q lacks %q", res.Reason, want)
		}
	}
	// With one allowed context it is bound to that, never trusted to the file.
	res = evaluate(t, "kube get pods", one, st, unknown)
	if got := rewritten(t, "kube get pods", res); got != "kube get pods --ctx dev" || res.Rule != "kube.rebind" {
		t.Errorf("one allowed: got %q (%s: %s)", got, res.Rule, res.Reason)
	}
	// An explicit binding needs no trust, and a new switch replaces the unknown one.
	if res := evaluate(t, "kube get pods --ctx prod", two, st, unknown); res.Verdict != rules.VerdictAllow {
		t.Errorf("explicit: got %s (%s)", res.Verdict, res.Reason)
	}
	if got := rewritten(t, "kube use prod && kube get pods", evaluate(t, "kube use prod && kube get pods", two, st, unknown)); got != "kube use prod && kube get pods --ctx prod" {
		t.Errorf("switch after: got %q", got)
	}
}

// TestSwitchesRecorded checks what a line gives session memory: every switch it lets through,
// in order, with the state it changed.
func TestSwitchesRecorded(t *testing.T) {
	pol := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: allow("A", "B")}, "cfg": {}, "ws": {}})
	st := memState{active: map[string]string{"sub": "id-a", "cfg/dev": "p-dev"}, existing: map[string]map[string]bool{"/repo/infra": {"staging": true}}}
	res := evaluate(t, "sub use B && cfg activate dev && cd infra && ws select staging && sub login", pol, st, nil)
	want := []rules.Switched{
		{Provider: "sub", Value: "B", From: "sub use B", Scope: "/state/sub"},
		{Provider: "cfg", Value: "p-dev", Vars: map[string]string{"config": "dev"}, From: "cfg activate dev", Scope: "/state/cfg"},
		{Provider: "ws", Value: "staging", From: "ws select staging", Scope: "/repo/infra/.ws"},
		{Provider: "sub", Unknown: true, From: "sub login", Scope: "/state/sub"},
	}
	if diff := cmp.Diff(want, res.Switches); diff != "" {
		t.Errorf("Switches (-want +got):\n%s", diff)
	}
	// A switch that is denied is not among them.
	res = evaluate(t, "sub use C", pol, st, nil)
	if res.Verdict != rules.VerdictDeny || len(res.Switches) != 0 {
		t.Errorf("denied switch: %s, Switches %v", res.Verdict, res.Switches)
	}
	if !strings.Contains(res.Reason, "e.g. `sub use A`") {
		t.Errorf("the deny does not say which switch would do: %s", res.Reason)
	}
}

// unix is the system of the tests' lines: their paths are Unix paths, whatever system runs the
// tests.
var unix = paths.Env{OS: "linux"}

// BenchmarkEvaluate is the engine alone on lines of 1, 100 and 1000 calls of a provider that binds
// (the line already parsed, the state in memory): the per-call work, and that it grows linearly.
func BenchmarkEvaluate(b *testing.B) {
	pol := contexts(map[string]*rules.ContextPolicy{"sub": {Allow: []rules.AllowList{{Patterns: []string{"id-a"}}}}})
	st := memState{active: map[string]string{"sub": "id-b"}}
	for _, n := range []int{1, 100, 1000} {
		calls, err := shell.Parse(strings.Repeat("sub vm list -o table && ", n-1) + "sub vm list -o table")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := rules.Input{System: unix, Calls: calls, Policy: pol, Providers: memSpecs, State: st, Quote: shell.Quote, Cwd: "/repo"}
				if res := rules.Evaluate(in); len(res.Edits) != n {
					b.Fatalf("%d edits, want %d (%s)", len(res.Edits), n, res.Reason)
				}
			}
		})
	}
}
