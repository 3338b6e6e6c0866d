package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// noState answers every read with no context: these tests are about which entry a command line
// meets, not about the state.
type noState struct{}

func (noState) Resolve(*spec.Spec, spec.Input) (spec.Active, error) {
	return spec.Active{}, nil
}
func (noState) Target(s *spec.Spec, in spec.Input, sw *spec.Switch, t string) (string, bool, error) {
	if len(sw.Read) > 0 {
		// The steps work the target out from the line (and defaults): no state file exists.
		return providers.NewReader().Target(s, in, sw, t)
	}
	return t, true, nil
}
func (noState) Exists(*spec.Spec, spec.Input, string) (bool, error) { return true, nil }

// line writes a command line that a pattern matches: * and ** become a word, a word ending in *
// gets a suffix, flags stay as written.
func line(command, pattern string) string {
	words := []string{command}
	var flags []string
	for _, w := range strings.Fields(pattern) {
		switch {
		case strings.HasPrefix(w, "-"):
			flags = append(flags, w)
		case w == "*" || w == "**":
			words = append(words, "x")
		case strings.HasSuffix(w, "*"):
			words = append(words, strings.TrimSuffix(w, "*")+"x")
		default:
			words = append(words, w)
		}
	}
	return strings.Join(append(words, flags...), " ")
}

func decide(t *testing.T, specs []*spec.Spec, src string, pol *rules.Policy) rules.Result {
	t.Helper()
	calls, err := shell.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return rules.Evaluate(rules.Input{Calls: calls, Policy: pol, Providers: specs, State: noState{}, Quote: shell.Quote, Cwd: "/w", Home: "/h", System: paths.Env{OS: "linux"}})
}

// TestEveryEntry checks every built-in provider's switch, exempt and destructive entries, and
// every switched_by entry, on a command line written from the entry itself: each must be what
// the engine finds for that line. An entry shadowed by an earlier one, or a pattern that its own
// value flags stop from matching, fails here.
func TestEveryEntry(t *testing.T) {
	specs := catalog.Builtin()
	policyFile := []rules.PolicyFile{{Layer: "project", File: "/w/.ctxguard.yaml"}}
	ask := &rules.Policy{Files: policyFile, Destructive: rules.SettingAsk}
	for _, s := range specs {
		cmd := s.Commands[0]
		for _, d := range s.Destructive {
			src := line(cmd, d.Match)
			res := decide(t, specs, src, ask)
			id := rules.DestructiveRule(s.Name, d.Match)
			want := rules.VerdictAsk
			if d.Tier == "deny" {
				want = rules.VerdictDeny
			}
			if len(res.Calls) == 0 || !slices.Contains(res.Calls[len(res.Calls)-1].Matched, id) || res.Verdict < want {
				t.Errorf("%s: destructive %q: `%s` gave %s (%s), want %s with %s", s.Source, d.Match, src, res.Verdict, res.Rule, want, id)
			}
		}
		for _, e := range s.Exempt {
			src := line(cmd, e)
			if res := decide(t, specs, src, ask); len(res.Calls) == 0 || res.Calls[len(res.Calls)-1].Kind != "exempt" {
				t.Errorf("%s: exempt %q: `%s` is not exempt (%+v)", s.Source, e, src, res.Calls)
			}
		}
		for _, sw := range s.Switch {
			src := line(cmd, sw.Command) + target(sw)
			res := decide(t, specs, src, ask)
			if len(res.Calls) == 0 || res.Calls[len(res.Calls)-1].Kind != "switch" || len(res.Switches) == 0 {
				t.Errorf("%s: switch %q: `%s` is no switch (%+v)", s.Source, sw.Command, src, res.Calls)
				continue
			}
			// A switch that sets a configuration reads the context from it, which noState lacks.
			if got := res.Switches[len(res.Switches)-1]; got.Unknown != sw.Unknown && sw.Sets == "" {
				t.Errorf("%s: switch %q: `%s` recorded %+v, want unknown=%v", s.Source, sw.Command, src, got, sw.Unknown)
			}
		}
		for _, sw := range s.SwitchedBy {
			word, rest, _ := strings.Cut(sw.Command, " ")
			src := line(word, rest) + target(sw)
			res := decide(t, specs, src, ask)
			if len(res.Switches) == 0 || res.Switches[0].Provider != s.Name || res.Switches[0].Unknown != sw.Unknown {
				t.Errorf("%s: switched_by %q: `%s` recorded %+v, want a switch of %s, unknown=%v", s.Source, sw.Command, src, res.Switches, s.Name, sw.Unknown)
			}
		}
	}
}

// target is the part of a switch's line that names its target: the flag or words it takes, and
// for one that works its target out, a value for each flag its steps read.
func target(sw spec.Switch) string {
	switch {
	case sw.Unknown:
		return ""
	case len(sw.Flags) > 0:
		return " " + sw.Flags[0] + " target"
	case len(sw.Read) == 0:
		return strings.Repeat(" target", max(sw.Arg, 1))
	}
	out := strings.Repeat(" target", sw.Arg)
	for _, st := range sw.Read {
		if len(st.Flag) > 0 {
			out += " " + st.Flag[0] + " target"
		}
	}
	return out
}
