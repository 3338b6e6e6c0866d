package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// userRules applies the policy's own rules to a shell call. p is the provider that guards the
// call, nil for a command no provider guards: a rule without a match applies only to guarded
// calls, so that a condition alone (a change freeze) never stops `ls`.
func (e *engine) userRules(t *trace, p *spec.Spec, c *Call, a argv, path []string) {
	for i := range e.in.Policy.Rules {
		r := &e.in.Policy.Rules[i]
		if r.file() || !e.forTool(r) {
			continue
		}
		if r.Match != "" {
			name, rest, _ := strings.Cut(r.Match, " ")
			if !strings.EqualFold(name, c.Name) {
				continue
			}
			pat := e.pattern(rest)
			if _, ok := pat.match(a, path); !ok {
				continue
			}
		} else if p == nil {
			continue
		}
		s := scope{dir: e.dir(p, c, a)}
		if p != nil {
			s.acting = func() (acting, error) { return e.acting(t, p, c, a) }
		}
		e.apply(t, r, s, "")
	}
}

// userRulesOnly applies the user's rules to a call no provider guards (the rules may name any
// command).
func (e *engine) userRulesOnly(c *Call) (trace, bool) {
	t := trace{CallTrace: CallTrace{Argv: values(c), Via: c.Via, Kind: KindRule}}
	a := argv{words: c.Args}
	e.userRules(&t, nil, c, a, a.path())
	return t, len(t.Matched) > 0 || len(t.Conditions) > 0
}

// fileRules applies the rules about files to what a file tool is about to write: those with a
// path or a content pattern, and those that name the tool and nothing else.
func (e *engine) fileRules(w *Write) (trace, bool) {
	t := trace{CallTrace: CallTrace{Argv: []string{e.in.Facts.Tool, w.Path}, Kind: KindWrite}}
	for i := range e.in.Policy.Rules {
		r := &e.in.Policy.Rules[i]
		if r.Match != "" || !r.file() && len(r.Tools) == 0 || !e.forTool(r) {
			continue
		}
		if len(r.Paths) > 0 && !slices.ContainsFunc(r.Paths, func(p PathPattern) bool { return e.matchPath(p, w.Path) }) {
			continue
		}
		what := fmt.Sprintf("the write to %s", w.Path)
		if r.Content != nil {
			at := r.Content.FindStringIndex(w.Text)
			if at == nil {
				continue
			}
			what = fmt.Sprintf("what %s writes to %s contains `%s`", e.in.Facts.Tool, w.Path, excerpt(w.Text[at[0]:at[1]]))
		}
		e.apply(&t, r, scope{dir: e.in.Cwd}, what)
	}
	return t, len(t.Matched) > 0 || len(t.Conditions) > 0
}

// excerpt shortens matched text for a reason: one line, at most 80 characters.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return s
}

// forTool reports whether the rule is for the request's tool. A rule that names no tool is for
// every tool, and so is every rule when the tool is not known (explain without --tool).
func (e *engine) forTool(r *UserRule) bool {
	tool := e.in.Facts.Tool
	return len(r.Tools) == 0 || tool == "" || slices.ContainsFunc(r.Tools, func(g string) bool { return Glob(g, tool, false) })
}

// apply decides a rule whose match matched: its conditions say whether it applies; what, when
// not "", says what it found, for the reason.
func (e *engine) apply(t *trace, r *UserRule, s scope, what string) {
	v, err := e.applies(r, s)
	if v.note != "" {
		t.Conditions = append(t.Conditions, r.ID+": "+v.note)
	}
	if err == nil && !v.applies {
		return
	}
	t.Matched = append(t.Matched, r.ID)
	if e.lifted(t, r.ID) {
		// A human lifted it: it adds nothing, whatever its conditions say.
		return
	}
	if err != nil {
		t.decide(VerdictDeny, "policy.condition-error", fmt.Sprintf("[ctxguard/policy.condition-error] cannot check the conditions of rule %s (at %s): %v — ctxguard refuses what it cannot check: ask the user to fix the cause or the rule",
			r.ID, r.Src, err))
		return
	}
	reason := r.Reason
	if reason == "" {
		// A rule without a reason still says what fired and what to do.
		subject := "this write"
		if r.Match != "" {
			subject = "`" + r.Match + "`"
		}
		if r.Decision == SettingDeny {
			reason = "the policy refuses " + subject + ": if it is really wanted, ask the user to do it themselves"
		} else {
			reason = "the policy asks a human to confirm " + subject
		}
	}
	detail := "rule at " + r.Src.String()
	if what != "" {
		detail += "; " + what
	}
	if v.assumed {
		// The agent (and the user) should know the rule fired on what ctxguard could not tell.
		detail += "; " + v.note
	}
	reason = fmt.Sprintf("[ctxguard/%s] %s (%s)", r.ID, reason, detail)
	switch r.Decision {
	case SettingDeny:
		t.decide(VerdictDeny, r.ID, reason)
	case SettingAsk:
		t.decide(VerdictAsk, r.ID, reason)
	}
}

// verdict is what a rule's conditions come to: whether it applies, why (for explanations; ""
// for a rule without conditions), and whether it applies because a fact is not known.
type verdict struct {
	applies, assumed bool
	note             string
}

// applies evaluates a rule's conditions: it applies when an item of When holds or may hold (a
// fact it needs is not known), and no item of Unless surely holds.
func (e *engine) applies(r *UserRule, s scope) (verdict, error) {
	var v verdict
	if len(r.When) > 0 {
		// yes beats unknown beats no: an item that surely holds says best why the rule applies.
		best, why := no, ""
		for i := range r.When {
			o, w, err := e.check(&r.When[i], s)
			if err != nil {
				return verdict{}, err
			}
			if o > best || why == "" && o == best {
				best, why = o, w
			}
			if o == yes {
				break
			}
		}
		switch best {
		case no:
			return verdict{note: "not applied: when " + why + " does not hold"}, nil
		case unknown:
			v = verdict{assumed: true, note: "applied, though " + why + " (a rule applies when ctxguard cannot tell)"}
		default:
			v.note = "applied: when " + why + " holds"
		}
	}
	for i := range r.Unless {
		o, w, err := e.check(&r.Unless[i], s)
		if err != nil {
			return verdict{}, err
		}
		switch {
		case o == yes:
			return verdict{note: "not applied: unless " + w + " holds"}, nil
		case o == unknown && !v.assumed:
			v = verdict{assumed: true, note: "applied, though " + w + " (an unless counts only when ctxguard can tell)"}
		}
	}
	if v.note == "" && len(r.Unless) > 0 {
		v.note = "applied: no unless holds"
	}
	v.applies = true
	return v, nil
}

// acting is the context a guarded call acts in, for a rule's context condition: the one
// ctxguard binds it to, else the one it names or switches to, else the effective one (read
// from the state only now, when no context check did so).
func (e *engine) acting(t *trace, p *spec.Spec, c *Call, a argv) (acting, error) {
	value := t.bound
	switch {
	case value != "":
	case t.Context != nil:
		if t.Context.Source == OriginUnknown {
			return acting{unknown: true}, nil
		}
		value = t.Context.Value
	default:
		if w, _, ok := binding(p, c, a); ok {
			if !w.Literal {
				return acting{unknown: true}, nil
			}
			value = w.Value
			break
		}
		eff, _ := e.effective(p, e.policyFor(p), c, a)
		if eff.err != nil {
			return acting{}, fmt.Errorf("read the %s state: %w", p.Name, eff.err)
		}
		if eff.unknown {
			return acting{unknown: true}, nil
		}
		value = eff.Value
	}
	if value == "" {
		return acting{}, nil
	}
	fold := p.Context.CaseInsensitive
	st, _ := e.resolve(p, c, a, nil)
	ac := acting{ids: identify(value, st.known, fold), fields: map[string]string{"id": value}}
	for _, k := range st.known {
		if eq(k.ID, value, fold) || k.Name != "" && eq(k.Name, value, fold) {
			ac.listed = true
			ac.fields = map[string]string{"id": k.ID, "name": k.Name}
			for f, v := range k.Fields {
				ac.fields[f] = v
			}
			break
		}
	}
	return ac, nil
}
