package rules

import (
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// destructive applies the provider's destructive entries, capped by the policy: allow turns
// them off, ask keeps each entry's tier, deny makes every entry deny. They apply only when some
// policy exists, like everything else.
func (e *engine) destructive(t *trace, p *spec.Spec, c *Call, a argv, path []string) {
	cap := e.in.Policy.Destructive
	if !e.guarded || cap == SettingAllow {
		return
	}
	ps := e.patternsOf(p)
	for i := range p.Destructive {
		d := &p.Destructive[i]
		if _, ok := ps.destructive[i].match(a, path); !ok || harmless(a, d.Unless) {
			continue
		}
		id := DestructiveRule(p.Name, d.Match)
		t.Matched = append(t.Matched, id)
		if e.lifted(t, id) {
			continue
		}
		where := ""
		if t.Context != nil && t.Context.Value != "" {
			where = fmt.Sprintf(" in %s %s", p.Noun, describe(*t.Context))
		}
		cmd := strings.Join(values(c), " ")
		list := fmt.Sprintf("%s's destructive entries (ctxguard rules %s)", p.Name, p.Name)
		switch {
		case d.Tier == spec.TierDeny:
			t.decide(VerdictDeny, id, fmt.Sprintf("[ctxguard/%s] `%s`%s %s; it is in the deny tier of %s, which no agent may run: if it is really wanted, ask the user to run it themselves",
				id, cmd, where, d.Why, list))
		case cap == SettingDeny:
			t.decide(VerdictDeny, id, fmt.Sprintf("[ctxguard/%s] `%s`%s %s; it is in the ask tier of %s, and the policy denies every tier (destructive: deny at %s): if it is really wanted, ask the user to run it themselves",
				id, cmd, where, d.Why, list, e.in.Policy.DestructiveSrc))
		default:
			t.decide(VerdictAsk, id, fmt.Sprintf("[ctxguard/%s] `%s`%s %s; it is in the ask tier of %s, so a human confirms it first", id, cmd, where, d.Why, list))
		}
	}
}

// harmless reports whether one of the unless flag values is in force: the last occurrence of
// its flag has that value, and no word of the call is an expansion that could repeat the flag.
func harmless(a argv, unless []string) bool {
	if len(unless) == 0 {
		return false
	}
	for _, w := range a.words {
		if !w.Literal {
			return false
		}
	}
	for _, u := range unless {
		name, value, _ := strings.Cut(u, "=")
		if v, ok := a.flag([]string{name}); ok && v.Literal && strings.EqualFold(v.Value, value) {
			return true
		}
	}
	return false
}

// RuleDestructive is the middle part of every destructive entry's rule id, and the word by
// which a lift, or the managed layer (Policy.Locked), names all of them at once.
const RuleDestructive = "destructive"

// DestructiveRule is the rule id of a provider's destructive entry: "az.destructive.group-delete".
func DestructiveRule(provider, match string) string {
	return provider + "." + RuleDestructive + "." + slug(match)
}

// IsDestructiveRule reports whether rule is a destructive entry's id ([DestructiveRule]). A
// provider's name has no dot in it.
func IsDestructiveRule(rule string) bool {
	_, rest, ok := strings.Cut(rule, ".")
	return ok && strings.HasPrefix(rest, RuleDestructive+".")
}

// lifted reports whether a human lifted the rule for this call (see Input.Lifted), recording the
// lift on the trace.
func (e *engine) lifted(t *trace, rule string) bool {
	if e.in.Lifted == nil {
		return false
	}
	note, ok := e.in.Lifted(rule)
	if ok {
		t.Lifted = append(t.Lifted, rule+" "+note)
	}
	return ok
}

// slug turns a pattern into a rule id part: "group delete" -> "group-delete".
func slug(s string) string {
	var b strings.Builder
	for _, f := range strings.Fields(s) {
		f = strings.TrimLeft(f, "-")
		f = strings.NewReplacer("**", "any", "*", "any", "=", "-").Replace(f)
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(f)
	}
	return b.String()
}
