package rules_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the windows below name zones; the test does not depend on the machine's zoneinfo

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// fieldState is acme's state with fields on its known contexts, as pac's profiles have an
// environment type.
type fieldState struct{ fakeState }

var fieldKnown = []spec.Known{
	{ID: "id-dev", Name: "Dev", Fields: map[string]string{"tier": "sandbox"}},
	{ID: "id-prod", Name: "Prod", Fields: map[string]string{"tier": "production"}},
	{ID: "id-qa", Name: "QA"},
}

func (f fieldState) Resolve(s *spec.Spec, in spec.Input) (spec.Active, error) {
	a, err := f.fakeState.Resolve(s, in)
	a.Known = fieldKnown
	return a, err
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// condCase is one decision of `acme deploy` (or line) under a deny rule with one condition.
type condCase struct {
	name  string
	line  string // default "acme deploy"
	cwd   string // default "/repo"
	os    string
	when  []rules.Condition
	not   []rules.Condition // unless
	every bool              // the rule has no match: it is about every guarded call
	facts rules.Facts
	env   map[string]string
	ctx   map[string]*rules.ContextPolicy
	want  rules.Verdict // VerdictDeny when the rule applies
	note  string        // a substring of the call's conditions note
}

func (tt condCase) run(t *testing.T) {
	t.Helper()
	line := tt.line
	if line == "" {
		line = "acme deploy"
	}
	cwd := tt.cwd
	if cwd == "" {
		cwd = "/repo"
	}
	goos := tt.os
	if goos == "" {
		goos = "linux"
	}
	rule := rules.UserRule{ID: "r", Match: "acme deploy", Decision: rules.SettingDeny, Reason: "no deploys now", When: tt.when, Unless: tt.not, Src: rules.Source{File: "/repo/.ctxguard.yaml", Line: 9}}
	if tt.every {
		rule.Match = ""
	}
	calls, err := shell.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
	st := fieldState{fakeState{acme: map[string]string{"main": "id-prod"}}}
	res := rules.Evaluate(rules.Input{
		Calls: calls, Policy: policy(tt.ctx, rules.SettingAllow, rule), Providers: []*spec.Spec{acme}, State: st,
		Quote: shell.Quote, Cwd: cwd, Home: "/home/u", System: paths.Env{OS: goos}, Env: env, Facts: tt.facts,
	})
	if res.Verdict != tt.want {
		t.Fatalf("verdict %v, want %v (%s: %s; %v)", res.Verdict, tt.want, res.Rule, res.Reason, notes(res))
	}
	if tt.want == rules.VerdictDeny && res.Rule == "r" && !strings.Contains(res.Reason, "rule at /repo/.ctxguard.yaml:9") {
		t.Errorf("reason %q does not name the rule's place", res.Reason)
	}
	if tt.note != "" && !strings.Contains(strings.Join(notes(res), "\n"), tt.note) {
		t.Errorf("notes %q lack %q", notes(res), tt.note)
	}
}

func notes(res rules.Result) []string {
	var out []string
	for _, c := range res.Calls {
		out = append(out, c.Conditions...)
	}
	return out
}

func TestConditionFacts(t *testing.T) {
	deny, allowed := rules.VerdictDeny, rules.VerdictAllow
	unattended := []rules.Condition{{Unattended: ptr(true)}}
	for _, tt := range []condCase{
		{name: "no condition: the rule applies", want: deny},
		{name: "unattended, and it is", when: unattended, facts: rules.Facts{Unattended: ptr(true)}, want: deny, note: "applied: when unattended: true holds"},
		{name: "unattended, and a human confirms", when: unattended, facts: rules.Facts{Unattended: ptr(false)}, want: allowed, note: "not applied: when unattended: true does not hold"},
		{name: "unattended not known: the rule applies", when: unattended, want: deny, note: "applied, though unattended is not known"},
		{name: "attended not known: the rule applies too", when: []rules.Condition{{Unattended: ptr(false)}}, want: deny},
		{name: "permission mode", when: []rules.Condition{{Modes: []string{"dontAsk", "auto"}}}, facts: rules.Facts{Mode: "auto"}, want: deny},
		{name: "other permission mode", when: []rules.Condition{{Modes: []string{"dontAsk"}}}, facts: rules.Facts{Mode: "default"}, want: allowed},
		{name: "permission mode not sent", when: []rules.Condition{{Modes: []string{"dontAsk"}}}, want: deny, note: "permission_mode is not known"},
		{name: "subagent", when: []rules.Condition{{Agents: []string{rules.AgentSubagent}}}, facts: rules.Facts{Subagent: ptr(true)}, want: deny},
		{name: "main agent", when: []rules.Condition{{Agents: []string{rules.AgentSubagent}}}, facts: rules.Facts{Subagent: ptr(false)}, want: allowed},
		{name: "agent not known", when: []rules.Condition{{Agents: []string{rules.AgentMain}}}, want: deny},
		{name: "harness", when: []rules.Condition{{Harnesses: []string{"copilot"}}}, facts: rules.Facts{Harness: "copilot"}, want: deny},
		{name: "other harness", when: []rules.Condition{{Harnesses: []string{"copilot"}}}, facts: rules.Facts{Harness: "claude"}, want: allowed},
		{name: "env set", when: []rules.Condition{{Env: []rules.EnvPattern{{Name: "CI", Globs: []string{"*"}}}}}, env: map[string]string{"CI": ""}, want: deny},
		{name: "env not set", when: []rules.Condition{{Env: []rules.EnvPattern{{Name: "CI", Globs: []string{"*"}}}}}, want: allowed},
		{name: "env value glob", when: []rules.Condition{{Env: []rules.EnvPattern{{Name: "STAGE", Globs: []string{"prod*"}}}}}, env: map[string]string{"STAGE": "production"}, want: deny},
		{name: "env value is case-sensitive", when: []rules.Condition{{Env: []rules.EnvPattern{{Name: "STAGE", Globs: []string{"prod*"}}}}}, env: map[string]string{"STAGE": "Prod"}, want: allowed},
		{name: "every env entry must hold", when: []rules.Condition{{Env: []rules.EnvPattern{{Name: "A", Globs: []string{"*"}}, {Name: "B", Globs: []string{"*"}}}}}, env: map[string]string{"A": "1"}, want: allowed},
		{name: "all keys must hold", when: []rules.Condition{{Harnesses: []string{"claude"}, Modes: []string{"dontAsk"}}}, facts: rules.Facts{Harness: "claude", Mode: "default"}, want: allowed},
		{name: "one item of the list suffices", when: []rules.Condition{{Harnesses: []string{"copilot"}}, {Modes: []string{"dontAsk"}}}, facts: rules.Facts{Harness: "claude", Mode: "dontAsk"}, want: deny},
		{name: "a known yes beats an unknown item", when: []rules.Condition{{Unattended: ptr(true)}, {Harnesses: []string{"claude"}}}, facts: rules.Facts{Harness: "claude"}, want: deny, note: "applied: when harness: claude holds"},
		{name: "a known no beats an unknown fact in the same item", when: []rules.Condition{{Unattended: ptr(true), Harnesses: []string{"copilot"}}}, facts: rules.Facts{Harness: "claude"}, want: allowed},
	} {
		t.Run(tt.name, tt.run)
	}
}

func TestConditionMachine(t *testing.T) {
	deny, allowed := rules.VerdictDeny, rules.VerdictAllow
	host := func(h string) func() (string, error) { return func() (string, error) { return h, nil } }
	groups := func(g ...string) func() ([]string, error) { return func() ([]string, error) { return g, nil } }
	broken := func() ([]string, error) { return nil, errors.New("open /etc/group: permission denied") }
	for _, tt := range []condCase{
		{name: "host glob, any case", when: []rules.Condition{{Hosts: []string{"build-*"}}}, facts: rules.Facts{Host: host("BUILD-07")}, want: deny},
		{name: "other host", when: []rules.Condition{{Hosts: []string{"build-*"}}}, facts: rules.Facts{Host: host("laptop")}, want: allowed},
		{name: "host not known", when: []rules.Condition{{Hosts: []string{"build-*"}}}, want: deny},
		{name: "in the group", when: []rules.Condition{{Groups: []string{"deployers"}}}, facts: rules.Facts{Groups: groups("1000", "staff", "deployers")}, want: deny},
		{name: "by id", when: []rules.Condition{{Groups: []string{"1001"}}}, facts: rules.Facts{Groups: groups("1000", "1001")}, want: deny},
		{name: "not in the group", when: []rules.Condition{{Groups: []string{"deployers"}}}, facts: rules.Facts{Groups: groups("staff")}, want: allowed},
		{name: "group names are case-sensitive on Linux", when: []rules.Condition{{Groups: []string{"Deployers"}}}, facts: rules.Facts{Groups: groups("deployers")}, want: allowed},
		{name: "and not on Windows", os: "windows", cwd: `C:\repo`, when: []rules.Condition{{Groups: []string{"pp-deployment"}}}, facts: rules.Facts{Groups: groups(`CONTOSO\PP-Deployment`, "PP-Deployment")}, want: deny},
		{name: "a group database that cannot be read denies", when: []rules.Condition{{Groups: []string{"deployers"}}}, facts: rules.Facts{Groups: broken}, want: deny, note: ""},
		{name: "only members may deploy (unless)", not: []rules.Condition{{Groups: []string{"deployers"}}}, facts: rules.Facts{Groups: groups("deployers")}, want: allowed, note: "not applied: unless groups: deployers holds"},
		{name: "a non-member may not", not: []rules.Condition{{Groups: []string{"deployers"}}}, facts: rules.Facts{Groups: groups("staff")}, want: deny},
		{name: "unless on a fact not known does not exempt", not: []rules.Condition{{Groups: []string{"deployers"}}}, want: deny, note: "an unless counts only when ctxguard can tell"},
	} {
		t.Run(tt.name, tt.run)
	}
	t.Run("a condition that cannot be read is a deny with the error", func(t *testing.T) {
		calls, _ := shell.Parse("acme deploy")
		res := rules.Evaluate(rules.Input{
			Calls: calls, Policy: policy(nil, rules.SettingAllow, rules.UserRule{ID: "r", Match: "acme deploy", Decision: rules.SettingAsk, When: []rules.Condition{{Groups: []string{"x"}}}, Src: rules.Source{File: "/p", Line: 3}}),
			Providers: []*spec.Spec{acme}, State: fakeState{acme: map[string]string{}}, Quote: shell.Quote, Cwd: "/w", System: unix, Facts: rules.Facts{Groups: broken},
		})
		if res.Verdict != rules.VerdictDeny || res.Rule != "policy.condition-error" || !strings.Contains(res.Reason, "permission denied") || !strings.Contains(res.Reason, "/p:3") {
			t.Errorf("got %v %s: %s", res.Verdict, res.Rule, res.Reason)
		}
	})
	t.Run("a rule without a reason says what it refuses and where it is written", func(t *testing.T) {
		calls, _ := shell.Parse("acme deploy")
		res := rules.Evaluate(rules.Input{
			Calls: calls, Policy: policy(nil, rules.SettingAllow, rules.UserRule{ID: "r", Match: "acme deploy", Decision: rules.SettingDeny, Src: rules.Source{File: "/p", Line: 3}}),
			Providers: []*spec.Spec{acme}, State: fakeState{acme: map[string]string{}}, Quote: shell.Quote, Cwd: "/w", System: unix,
		})
		want := "[ctxguard/r] the policy refuses `acme deploy`: if it is really wanted, ask the user to do it themselves (rule at /p:3)"
		if res.Verdict != rules.VerdictDeny || res.Reason != want {
			t.Errorf("got %v: %s\nwant deny: %s", res.Verdict, res.Reason, want)
		}
	})
	t.Run("the machine is read only when a condition needs it", func(t *testing.T) {
		reads := 0
		count := func() ([]string, error) { reads++; return []string{"deployers"}, nil }
		calls, _ := shell.Parse("acme deploy && acme list && ls")
		cond := []rules.Condition{{Harnesses: []string{"copilot"}, Groups: []string{"deployers"}}}
		in := rules.Input{
			Calls: calls, Policy: policy(nil, rules.SettingAllow, rules.UserRule{ID: "r", Match: "acme deploy", Decision: rules.SettingDeny, When: cond}),
			Providers: []*spec.Spec{acme}, State: fakeState{acme: map[string]string{}}, Quote: shell.Quote, Cwd: "/w", System: unix,
			Facts: rules.Facts{Harness: "claude", Groups: count},
		}
		if res := rules.Evaluate(in); res.Verdict != rules.VerdictAllow || reads != 0 {
			t.Errorf("verdict %v after %d group reads; the harness test fails first, so no read", res.Verdict, reads)
		}
		in.Facts.Harness = "copilot"
		if res := rules.Evaluate(in); res.Verdict != rules.VerdictDeny || reads != 1 {
			t.Errorf("verdict %v after %d group reads, want deny after 1", res.Verdict, reads)
		}
	})
}

func TestConditionCwd(t *testing.T) {
	deny, allowed := rules.VerdictDeny, rules.VerdictAllow
	infra := []rules.Condition{{Cwd: []rules.PathPattern{{Glob: "infra/**", Dir: "/repo"}}}}
	for _, tt := range []condCase{
		{name: "under the folder", cwd: "/repo/infra/prod", when: infra, want: deny},
		{name: "the folder itself", cwd: "/repo/infra", when: infra, want: deny},
		{name: "elsewhere", cwd: "/repo/app", when: infra, want: allowed},
		{name: "a cd in the line moves the call", cwd: "/repo", line: "cd infra && acme deploy", when: infra, want: deny},
		{name: "a cd ctxguard cannot follow: not known", cwd: "/repo", line: `cd "$D" && acme deploy`, when: infra, want: deny, note: "the working directory is not known"},
		{name: "a name without a slash matches at any depth", cwd: "/srv/x/prod", when: []rules.Condition{{Cwd: []rules.PathPattern{{Glob: "prod", Dir: "/repo"}}}}, want: deny},
		{name: "** in the middle", cwd: "/repo/a/b/prod/c", when: []rules.Condition{{Cwd: []rules.PathPattern{{Glob: "/repo/**/prod/**"}}}}, want: deny},
		{name: "* stays in one folder", cwd: "/repo/a/b", when: []rules.Condition{{Cwd: []rules.PathPattern{{Glob: "/repo/*"}}}}, want: allowed},
		{name: "~ is the home folder", cwd: "/home/u/work/prod", when: []rules.Condition{{Cwd: []rules.PathPattern{{Glob: "~/work/**"}}}}, want: deny},
		{name: "Linux paths are case-sensitive", cwd: "/repo/Infra", when: infra, want: allowed},
		{name: "Windows paths are not, either separator", os: "windows", cwd: `C:\Repo\Infra\prod`, when: []rules.Condition{{Cwd: []rules.PathPattern{{Glob: "infra/**", Dir: "C:/repo"}}}}, want: deny},
	} {
		t.Run(tt.name, tt.run)
	}
}

func TestConditionContext(t *testing.T) {
	deny, rewrite := rules.VerdictDeny, rules.VerdictRewrite
	prod := []rules.Condition{{Context: []rules.ContextPattern{{{Globs: []string{"*prod*"}}}}}}
	production := []rules.Condition{{Context: []rules.ContextPattern{{{Field: "tier", Globs: []string{"production"}}}}}}
	devQA := map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev", "QA"), Defaults: []rules.Valued{{Value: "Dev"}}}}
	for _, tt := range []condCase{
		{name: "the active context, by display name, any case", when: prod, want: deny},
		{name: "by id", when: []rules.Condition{{Context: []rules.ContextPattern{{{Globs: []string{"id-prod"}}}}}}, want: deny},
		{name: "the context after binding: rebound to Dev, so not prod", when: prod, ctx: devQA, want: rewrite},
		{name: "a context named on the call", line: "acme deploy --account id-dev", when: prod, want: rules.VerdictAllow},
		{name: "a context a switch earlier in the line selects", line: "acme use prod && acme deploy", when: prod, want: deny},
		{name: "a field of the context", when: production, want: deny},
		{name: "a field of another context", line: "acme deploy --account Dev", when: production, want: rules.VerdictAllow},
		{name: "a context without the field: not known", line: "acme deploy --account QA", when: production, want: deny, note: "the context's fields are not known"},
		{name: "a context the state does not list: not known", line: "acme deploy --account other", when: production, want: deny},
		{name: "a context ctxguard cannot know", line: `acme deploy --account "$A"`, when: prod, want: deny, note: "the context is not known"},
		{name: "the id field alone", when: []rules.Condition{{Context: []rules.ContextPattern{{{Field: "id", Globs: []string{"Prod"}}}}}}, want: rules.VerdictAllow},
		{name: "the name field alone", when: []rules.Condition{{Context: []rules.ContextPattern{{{Field: "name", Globs: []string{"Prod"}}}}}}, want: deny},
		{name: "a command no provider guards acts in no context", line: "make deploy", when: prod, want: rules.VerdictAllow},
	} {
		t.Run(tt.name, tt.run)
	}
}

func TestConditionClock(t *testing.T) {
	deny, allowed := rules.VerdictDeny, rules.VerdictAllow
	berlin, la := zone(t, "Europe/Berlin"), zone(t, "America/Los_Angeles")
	const monFri = 0b0111110
	office := []rules.Condition{{Times: []rules.Window{{Days: monFri, From: 9 * 60, To: 17 * 60, Loc: berlin, Text: "mon-fri 09:00-17:00 Europe/Berlin"}}}}
	fridayNight := []rules.Condition{{Times: []rules.Window{{Days: 1 << time.Friday, From: 22 * 60, To: 6 * 60, Loc: time.UTC}}}}
	freeze := []rules.Condition{{Dates: []rules.DateRange{{From: rules.Date{Year: 2026, Month: 12, Day: 20}, To: rules.Date{Year: 2027, Month: 1, Day: 4}, Loc: time.UTC}}}}
	freezeLA := []rules.Condition{{Dates: []rules.DateRange{{From: rules.Date{Year: 2026, Month: 12, Day: 20}, To: rules.Date{Year: 2027, Month: 1, Day: 4}, Loc: la}}}}
	for _, tt := range []condCase{
		{name: "inside office hours", when: office, facts: rules.Facts{Now: at(t, "2026-12-04T15:00:00+01:00")}, want: deny},
		{name: "the window's start is inside", when: office, facts: rules.Facts{Now: at(t, "2026-12-04T09:00:00+01:00")}, want: deny},
		{name: "its end is not", when: office, facts: rules.Facts{Now: at(t, "2026-12-04T17:00:00+01:00")}, want: allowed},
		{name: "in the window's time zone: 08:30 UTC is 09:30 in Berlin", when: office, facts: rules.Facts{Now: at(t, "2026-12-04T08:30:00Z")}, want: deny},
		{name: "and in summer 07:30 UTC is 09:30", when: office, facts: rules.Facts{Now: at(t, "2026-07-03T07:30:00Z")}, want: deny},
		{name: "Saturday", when: office, facts: rules.Facts{Now: at(t, "2026-12-05T11:00:00+01:00")}, want: allowed},
		{name: "the time not known", when: office, want: deny, note: "the time is not known"},
		{name: "overnight: Friday evening", when: fridayNight, facts: rules.Facts{Now: at(t, "2026-12-04T23:00:00Z")}, want: deny},
		{name: "overnight: the Saturday morning after", when: fridayNight, facts: rules.Facts{Now: at(t, "2026-12-05T05:59:00Z")}, want: deny},
		{name: "overnight: Friday morning belongs to Thursday", when: fridayNight, facts: rules.Facts{Now: at(t, "2026-12-04T03:00:00Z")}, want: allowed},
		{name: "freeze: its last day is inside", when: freeze, facts: rules.Facts{Now: at(t, "2027-01-04T23:59:59Z")}, want: deny},
		{name: "freeze: the day after is not", when: freeze, facts: rules.Facts{Now: at(t, "2027-01-05T00:00:00Z")}, want: allowed},
		{name: "freeze: the day before is not", when: freeze, facts: rules.Facts{Now: at(t, "2026-12-19T23:00:00Z")}, want: allowed},
		{name: "freeze: days in its own zone (05:00 UTC on the 5th is the 4th in LA)", when: freezeLA, facts: rules.Facts{Now: at(t, "2027-01-05T05:00:00Z")}, want: deny},
		{name: "freeze: date not known", when: freeze, want: deny},
	} {
		t.Run(tt.name, tt.run)
	}
}

// TestRuleScope checks what a rule is about: a rule with conditions alone applies to every call a
// provider guards and to nothing else, and tool narrows a rule to the harness's tools.
func TestRuleScope(t *testing.T) {
	freeze := []rules.Condition{{Env: []rules.EnvPattern{{Name: "FREEZE", Globs: []string{"*"}}}}}
	env := map[string]string{"FREEZE": "1"}
	for _, tt := range []condCase{
		{name: "every guarded call", line: "acme list", every: true, when: freeze, env: env, want: rules.VerdictDeny},
		{name: "even an exempt one", line: "acme whoami", every: true, when: freeze, env: env, want: rules.VerdictDeny},
		{name: "not a command no provider guards", line: "ls -la", every: true, when: freeze, env: env, want: rules.VerdictAllow},
		{name: "a match still narrows", line: "acme list", when: freeze, env: env, want: rules.VerdictAllow},
	} {
		t.Run(tt.name, tt.run)
	}
	run := func(tool string, tools []string) rules.Verdict {
		calls, _ := shell.Parse("acme deploy")
		return rules.Evaluate(rules.Input{
			Calls: calls, Policy: policy(nil, rules.SettingAllow, rules.UserRule{ID: "r", Match: "acme deploy", Tools: tools, Decision: rules.SettingDeny}),
			Providers: []*spec.Spec{acme}, State: fakeState{acme: map[string]string{}}, Quote: shell.Quote, Cwd: "/w", System: unix, Facts: rules.Facts{Tool: tool},
		}).Verdict
	}
	if v := run("Bash", []string{"PowerShell"}); v != rules.VerdictAllow {
		t.Errorf("a rule for PowerShell on a Bash call: %v", v)
	}
	if v := run("PowerShell", []string{"PowerShell"}); v != rules.VerdictDeny {
		t.Errorf("a rule for PowerShell on a PowerShell call: %v", v)
	}
	if v := run("", []string{"PowerShell"}); v != rules.VerdictDeny {
		t.Errorf("a tool rule when the tool is not known (explain): %v", v)
	}
}

func TestFileRules(t *testing.T) {
	bicep := rules.UserRule{ID: "public", Paths: []rules.PathPattern{{Glob: "*.bicep"}}, Content: regexp.MustCompile(`publicNetworkAccess:\s*'Enabled'`),
		Decision: rules.SettingDeny, Reason: "no public endpoints", Src: rules.Source{File: "/repo/.ctxguard.yaml", Line: 4}}
	anon := rules.UserRule{ID: "anon", Tools: []string{"create", "edit"}, Paths: []rules.PathPattern{{Glob: "config/storage*.json", Dir: "/repo"}}, Content: regexp.MustCompile(`"anonymous"`),
		Decision: rules.SettingAsk, Src: rules.Source{File: "/repo/.ctxguard.yaml", Line: 9}}
	prodFiles := rules.UserRule{ID: "tfvars", Paths: []rules.PathPattern{{Glob: "/repo/env/prod/**"}}, Decision: rules.SettingAsk, When: []rules.Condition{{Unattended: ptr(true)}}, Src: rules.Source{File: "/etc/ctxguard/policy.yaml", Line: 2}}
	onlyNotebooks := rules.UserRule{ID: "no-notebooks", Tools: []string{"NotebookEdit"}, Decision: rules.SettingAsk, Src: rules.Source{File: "/repo/.ctxguard.yaml", Line: 20}}
	everyCall := rules.UserRule{ID: "every", Decision: rules.SettingDeny, When: []rules.Condition{{Harnesses: []string{"claude"}}}}
	tests := []struct {
		name       string
		tool, path string
		text       string
		unattended *bool
		want       rules.Verdict
		rule       string
		reason     string
	}{
		{"content in a bicep file", "Write", "/repo/infra/main.bicep", "resource s 'x' = {\n  publicNetworkAccess: 'Enabled'\n}", nil, rules.VerdictDeny, "public", "contains `publicNetworkAccess: 'Enabled'`"},
		{"the same text in another file", "Write", "/repo/README.md", "publicNetworkAccess: 'Enabled'", nil, rules.VerdictAllow, "", ""},
		{"a bicep file without it", "Edit", "/repo/infra/main.bicep", "publicNetworkAccess: 'Disabled'", nil, rules.VerdictAllow, "", ""},
		{"the tool matters", "Write", "/repo/config/storage.json", `{"access": "anonymous"}`, nil, rules.VerdictAllow, "", ""},
		{"Copilot's create", "create", "/repo/config/storage-prod.json", `{"access": "anonymous"}`, nil, rules.VerdictAsk, "anon", "rule at /repo/.ctxguard.yaml:9"},
		{"a path rule without content, unattended", "Edit", "/repo/env/prod/main.tfvars", "x", ptr(true), rules.VerdictAsk, "tfvars", ""},
		{"the same, attended", "Edit", "/repo/env/prod/main.tfvars", "x", ptr(false), rules.VerdictAllow, "", ""},
		{"a rule that names only a tool", "NotebookEdit", "/repo/x.ipynb", "", nil, rules.VerdictAsk, "no-notebooks", "the write to /repo/x.ipynb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rules.Call{NameWord: rules.Word{Value: tt.tool, Pos: -1, End: -1}, Writes: []rules.Word{{Value: tt.path, Literal: true, Pos: -1, End: -1}}}
			res := rules.Evaluate(rules.Input{
				Calls: []rules.Call{c}, Policy: policy(nil, rules.SettingAllow, bicep, anon, prodFiles, onlyNotebooks, everyCall), Providers: []*spec.Spec{acme},
				State: fakeState{}, Quote: shell.Quote, Cwd: "/repo", System: unix,
				Facts: rules.Facts{Tool: tt.tool, Harness: "claude", Unattended: tt.unattended}, Writes: []rules.Write{{Path: tt.path, Text: tt.text}},
			})
			if res.Verdict != tt.want || tt.rule != "" && res.Rule != tt.rule || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("got %v %s: %s; want %v %s containing %q", res.Verdict, res.Rule, res.Reason, tt.want, tt.rule, tt.reason)
			}
		})
	}
}

// BenchmarkConditions measures the engine on one call under a rule whose every condition is
// evaluated (and holds), against the same rule without conditions: the cost conditions add to a
// decision, the machine's facts faked (reading them is the guard's, measured by
// internal/guard's BenchmarkDecideConditions).
func BenchmarkConditions(b *testing.B) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		b.Fatal(err)
	}
	every := []rules.Condition{{
		Unattended: ptr(false), Modes: []string{"default", "plan"}, Agents: []string{rules.AgentMain}, Harnesses: []string{"claude"},
		Cwd:     []rules.PathPattern{{Glob: "**"}},
		Context: []rules.ContextPattern{{{Globs: []string{"*"}}}, {{Field: "tier", Globs: []string{"sandbox"}}}},
		Env:     []rules.EnvPattern{{Name: "CI", Globs: []string{"*"}}},
		Hosts:   []string{"*"}, Groups: []string{"*"},
		Times: []rules.Window{{Days: 0x7f, From: 0, To: 24 * 60, Loc: berlin}},
		Dates: []rules.DateRange{{From: rules.Date{Year: 2000, Month: 1, Day: 1}, To: rules.Date{Year: 2999, Month: 12, Day: 31}, Loc: time.UTC}},
	}}
	calls, err := shell.Parse("acme deploy --region eu")
	if err != nil {
		b.Fatal(err)
	}
	facts := rules.Facts{
		Harness: "claude", Mode: "default", Unattended: ptr(false), Subagent: ptr(false), Now: time.Now(),
		Host:   func() (string, error) { return "laptop", nil },
		Groups: func() ([]string, error) { return []string{"1000", "staff"}, nil },
	}
	st := fieldState{fakeState{acme: map[string]string{"main": "id-dev"}}}
	for _, tc := range []struct {
		name string
		when []rules.Condition
	}{{"none", nil}, {"every", every}} {
		rule := rules.UserRule{ID: "r", Match: "acme deploy", Decision: rules.SettingAsk, When: tc.when}
		in := rules.Input{
			Calls: calls, Policy: policy(map[string]*rules.ContextPolicy{"acme": {Allow: allow("Dev")}}, rules.SettingAllow, rule), Providers: []*spec.Spec{acme},
			State: st, Quote: shell.Quote, Cwd: "/repo", System: unix, Env: func(string) (string, bool) { return "1", true }, Facts: facts,
		}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if res := rules.Evaluate(in); res.Verdict != rules.VerdictAsk {
					b.Fatal(res.Verdict, res.Reason)
				}
			}
		})
	}
}
