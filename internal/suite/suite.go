package suite

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// Case is one test or example, ready to run.
type Case struct {
	// File and Line are where it is written.
	File string
	Line int
	// What is what it runs, for its line of output: the command, or the tool and the file.
	What    string
	Request rules.Request
	Policy  *policy.Policy
	State   State
	Facts   rules.Facts
	Env     map[string]string
	// Providers are providers to know besides the catalog's (the one an example belongs to,
	// when it is not installed).
	Providers []*spec.Spec
	Expect    spec.Expect
}

// Result is a case's outcome: Problems lists how the answer differs from the expected one, and
// is empty when the case passes.
type Result struct {
	Case     Case
	Outcome  guard.Outcome
	Problems []string
}

// Passed reports whether the answer is the one expected.
func (r Result) Passed() bool { return len(r.Problems) == 0 }

// Policy returns the cases of a policy file of the given layer: its tests, each run against the
// file alone, so that the answer does not depend on the machine's other layers. file should be
// absolute: relative paths in the policy and its tests are taken from its folder.
func Policy(data []byte, file, layer string, providers []string) ([]Case, error) {
	pol, err := policy.Parse(data, file, layer, providers)
	if err != nil {
		return nil, err
	}
	tests, err := policy.Tests(data, file)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, t := range tests {
		c := Case{File: file, Line: t.Line, What: t.String(), Request: t.Request, Policy: pol,
			State: State{Active: t.Active, Known: t.Known}, Env: t.Env, Expect: t.Expect}
		c.Facts = rules.Facts{Now: t.Now}
		if t.Host != nil {
			host := *t.Host
			c.Facts.Host = func() (string, error) { return host, nil }
		}
		if t.Groups != nil {
			groups := t.Groups
			c.Facts.Groups = func() ([]string, error) { return groups, nil }
		}
		out = append(out, c)
	}
	return out, nil
}

// Examples returns the cases of a provider's examples. Each runs under a policy that names only
// this provider, with the example's allow list, default and unbound setting, in cwd; extra is
// set for a provider the catalog does not have, which the cases then bring.
func Examples(s *spec.Spec, pos *codec.Positions, cwd string, extra bool) []Case {
	var out []Case
	for i, ex := range s.Examples {
		at, _ := pos.At("examples." + strconv.Itoa(i))
		cp := &rules.ContextPolicy{}
		if len(ex.Allow) > 0 {
			cp.Allow = []rules.AllowList{{Patterns: ex.Allow, Src: rules.Source{File: s.Source, Line: at.Line}}}
		}
		if ex.Default != "" {
			cp.Defaults = []rules.Valued{{Value: ex.Default, Src: rules.Source{File: s.Source, Line: at.Line}}}
		}
		cp.Unbound, _ = rules.ParseSetting(ex.Unbound)
		pol := &policy.Policy{Policy: rules.Policy{
			Files:    []rules.PolicyFile{{Layer: "example", File: s.Source}},
			Contexts: map[string]*rules.ContextPolicy{s.Name: cp},
		}}
		st := State{Active: map[string]spec.ContextValue{}, Known: map[string][]spec.ContextValue{s.Name: ex.Known}}
		if ex.Active != nil {
			st.Active[s.Name] = *ex.Active
		}
		shell := rules.ShellBash
		if ex.Shell == rules.ShellPowerShell {
			shell = rules.ShellPowerShell
		}
		c := Case{File: s.Source, Line: at.Line, What: ex.Command, Policy: pol, State: st, Env: map[string]string{}, Expect: ex.Expect,
			Request: rules.Request{Command: ex.Command, Shell: shell, Cwd: cwd}}
		if extra {
			c.Providers = []*spec.Spec{s}
		}
		out = append(out, c)
	}
	return out
}

// Run decides a case and compares the answer with the expected one.
func Run(c Case, env paths.Env) Result {
	vars := maps.Clone(c.Env)
	ov := guard.Override{
		Policy: c.Policy, State: c.State, Facts: &c.Facts, Providers: c.Providers,
		Env: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
	}
	o := guard.DecideWith(c.Request, env, ov)
	r := Result{Case: c, Outcome: o}
	e := c.Expect
	if got := o.Verdict.String(); got != e.Decision {
		r.Problems = append(r.Problems, fmt.Sprintf("decision: got %s, want %s", got, e.Decision))
	}
	if e.Command != "" && o.Command != e.Command {
		r.Problems = append(r.Problems, fmt.Sprintf("command: got %q, want %q", o.Command, e.Command))
	}
	if e.Rule != "" && o.Rule != e.Rule {
		r.Problems = append(r.Problems, fmt.Sprintf("rule: got %s, want %s", o.Rule, e.Rule))
	}
	if e.Reason != "" && !strings.Contains(o.Reason, e.Reason) {
		r.Problems = append(r.Problems, fmt.Sprintf("reason: %q does not contain %q", o.Reason, e.Reason))
	}
	if len(r.Problems) > 0 && o.Reason != "" {
		r.Problems = append(r.Problems, "reason: "+strings.ReplaceAll(o.Reason, "\n", " / "))
	}
	return r
}
