package suite_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/suite"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// env is a machine without policy, providers or state of its own: every case brings its own.
func env(t *testing.T) paths.Env {
	home := testenv.TempDir(t)
	vars := map[string]string{"CTXGUARD_MANAGED_POLICY": filepath.Join(home, "none.yaml"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	return paths.Env{Home: home, OS: "linux", Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

// TestBuiltinExamples runs every built-in provider's examples (CI runs `ctxguard test` over
// them too), and checks that they show each kind of entry the provider has: its binding, its
// switches, its exempt and help entries, and both tiers of its destructive ones.
func TestBuiltinExamples(t *testing.T) {
	e := env(t)
	names, err := fs.Glob(builtin.Providers(), "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := fs.ReadFile(builtin.Providers(), name)
			if err != nil {
				t.Fatal(err)
			}
			s, pos, err := catalog.Decode(data, "builtin:providers/"+name)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, c := range suite.Examples(s, pos, testenv.TempDir(t), false) {
				r := suite.Run(c, e)
				if !r.Passed() {
					t.Errorf("%s:%d %s:\n  %s", c.File, c.Line, c.What, strings.Join(r.Problems, "\n  "))
				}
				for _, ct := range r.Outcome.Calls {
					if ct.Provider != s.Name {
						continue
					}
					seen[string(ct.Kind)] = true
					if ct.Verdict == rules.VerdictRewrite {
						seen["binding"] = true
					}
					for _, m := range ct.Matched {
						for _, d := range s.Destructive {
							if m == rules.DestructiveRule(s.Name, d.Match) {
								seen[string(d.Tier)] = true
							}
						}
					}
				}
			}
			want := []string{string(rules.KindExempt)}
			if len(s.Help) > 0 {
				want = append(want, string(rules.KindHelp))
			}
			if s.Bind != nil {
				want = append(want, "binding")
			}
			if len(s.Switch) > 0 {
				want = append(want, string(rules.KindSwitch))
			}
			for _, d := range s.Destructive {
				if !slices.Contains(want, string(d.Tier)) {
					want = append(want, string(d.Tier))
				}
			}
			for _, w := range want {
				if !seen[w] {
					t.Errorf("no example of %s shows a %s", s.Name, w)
				}
			}
		})
	}
}

// TestRun checks the runner itself: a case passes only when every part of the answer it names
// is the one it expects, and a failure says what differs.
func TestRun(t *testing.T) {
	e := env(t)
	dir := testenv.TempDir(t)
	file := filepath.Join(dir, ".ctxguard.yaml")
	src := `contexts:
  kubectl:
    allow: [dev]
rules:
  - id: no-prod-deploys-unattended
    match: kubectl apply
    when: {unattended: true}
    decision: deny
tests:
  - command: kubectl get pods
    active: {kubectl: prod}
    expect: {decision: rewrite, command: kubectl get pods --context dev, rule: kubectl.rebind}
  - command: kubectl apply -f k8s/
    active: {kubectl: dev}
    when: {harness: claude, permission_mode: dontAsk}
    expect: {decision: deny, rule: no-prod-deploys-unattended}
  - command: kubectl apply -f k8s/
    active: {kubectl: dev}
    when: {harness: claude, permission_mode: default}
    expect: {decision: rewrite}
  - command: kubectl get pods
    active: {kubectl: prod}
    expect: {decision: allow, command: kubectl get pods, rule: x, reason: nothing}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := suite.Policy([]byte(src), file, policy.Project, catalog.New().Names())
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 4 {
		t.Fatalf("%d cases", len(cases))
	}
	for i, c := range cases[:3] {
		if r := suite.Run(c, e); !r.Passed() {
			t.Errorf("case %d (line %d) failed: %v", i, c.Line, r.Problems)
		}
	}
	r := suite.Run(cases[3], e)
	if r.Passed() || cases[3].Line != 21 {
		t.Fatalf("a wrong expectation passed (line %d)", cases[3].Line)
	}
	got := strings.Join(r.Problems, "\n")
	for _, want := range []string{"decision: got rewrite, want allow", `command: got "kubectl get pods --context dev", want "kubectl get pods"`, "rule: got kubectl.rebind, want x", "does not contain \"nothing\""} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
}

// TestState checks the faked state: names stand for the listed ids, lookups and configurations
// find their targets in the list, and a workspace exists when it is listed.
func TestState(t *testing.T) {
	sp := &spec.Spec{Name: "x", Context: spec.Context{Exists: []spec.Exists{{Equals: "default"}, {Path: "ws/${value}"}}}}
	st := suite.State{
		Active: map[string]spec.ContextValue{"x": {ID: "Prod"}},
		Known:  map[string][]spec.ContextValue{"x": {{ID: "id-dev", Name: "Dev"}, {ID: "id-prod", Name: "Prod"}}},
	}
	a, _ := st.Resolve(sp, spec.Input{})
	if a.Value != "id-prod" || a.Name != "Prod" {
		t.Errorf("active %q %q, want the listed id-prod", a.Value, a.Name)
	}
	if a, _ := st.Resolve(sp, spec.Input{Vars: map[string]string{"config": "Dev"}}); a.Value != "id-dev" {
		t.Errorf("configuration Dev selects %q", a.Value)
	}
	if v, ok, _ := st.Target(sp, spec.Input{}, &spec.Switch{Lookup: "p", IndexBase: 1}, "2"); !ok || v != "id-prod" {
		t.Errorf("--index 2: %q %v", v, ok)
	}
	if _, ok, _ := st.Target(sp, spec.Input{}, &spec.Switch{Lookup: "p", IndexBase: 1}, "3"); ok {
		t.Error("--index 3 of 2 found something")
	}
	if v, ok, _ := st.Target(sp, spec.Input{}, &spec.Switch{Lookup: "p"}, "Dev"); !ok || v != "id-dev" {
		t.Errorf("--name Dev: %q %v", v, ok)
	}
	for v, want := range map[string]bool{"default": true, "Dev": true, "id-prod": true, "qa": false} {
		if got, _ := st.Exists(sp, spec.Input{}, v); got != want {
			t.Errorf("Exists(%q) = %v", v, got)
		}
	}
}
