package rules

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// doSwitch decides a call that changes the shared context. An allowed target is let through
// (agents must not stall on it; the calls after it are bound) and carried to the rest of the
// line; any other target is denied, since the switch would move every other session too. A
// target ctxguard cannot know is carried as unknown, and asked about where the entry says that
// it selects another context. external is set for another CLI's entry (switched_by).
func (e *engine) doSwitch(t *trace, p *spec.Spec, c *Call, a argv, sw spec.Switch, n int, external bool) {
	id := p.Name
	cp := e.switchPolicy(p)
	self := strings.Join(values(c), " ")
	before, _ := e.resolve(p, c, a, nil)
	unknown := func(asks bool) {
		e.carry(Switched{Provider: group(p), Unknown: true, From: self, Scope: before.scope})
		t.Context = &ContextTrace{Source: OriginUnknown}
		if cp != nil && asks && len(cp.Allow) > 0 {
			// It moves the shared context of every session to one nobody can check first.
			t.decide(VerdictAsk, id+".switch-unknown", fmt.Sprintf("[ctxguard/%s.switch-unknown] `%s` switches the shared %s %s to one ctxguard cannot know beforehand — a human decides; to switch to an allowed %s, name it%s",
				id, self, p.Name, p.Noun, p.Noun, e.switchFix(t, p, cp, c, e.input(p, c, a, nil), before.known, &sw, external)))
		}
	}
	dynamic := func(value string) {
		t.Context = &ContextTrace{Value: value, Source: OriginUnknown}
		e.carry(Switched{Provider: group(p), Unknown: true, From: self, Scope: before.scope})
		if cp != nil {
			t.decide(VerdictAsk, id+".switch-dynamic", fmt.Sprintf("[ctxguard/%s.switch-dynamic] the target of `%s` is not a literal value, so ctxguard cannot check it against the allowed %ss (%s) — write the %s out",
				id, self, p.Noun, cp.allowedList(before.known, p.Context.CaseInsensitive), p.Noun))
		}
	}
	if sw.Unknown {
		unknown(sw.Asks)
		return
	}
	var w Word
	if len(sw.Read) == 0 || sw.Arg > 0 || len(sw.Flags) > 0 {
		var known bool
		if w, known = switchTarget(sw, a, n); !known {
			unknown(sw.Asks)
			return
		}
		if !w.Literal {
			dynamic(w.Value)
			return
		}
	}
	if len(sw.Read) > 0 && uncertain(p, sw.Read, c, a) {
		dynamic("")
		return
	}
	value, name, cr, err := e.switchValue(p, c, a, sw, w.Value)
	if errors.Is(err, spec.ErrUnknown) || err == nil && value == "" && len(sw.Read) > 0 {
		// The switch selects a context, which the line does not tell.
		unknown(true)
		return
	}
	cr.Provider, cr.From, cr.Scope = group(p), self, before.scope
	ct := ContextTrace{Value: value, Name: name, Source: OriginSwitch, From: self}
	t.Context = &ct
	if err != nil {
		t.decide(VerdictDeny, id+".state-error", fmt.Sprintf("[ctxguard/%s.state-error] cannot read the %s state to check `%s`: %v", id, p.Name, self, err))
		return
	}
	if value == "" {
		// The target names nothing the state knows (an unknown profile): later calls cannot
		// trust the file.
		cr = Switched{Provider: group(p), Unknown: true, From: self, Scope: before.scope}
	}
	ct.Allowed = true
	if cp != nil && value != "" {
		fold := p.Context.CaseInsensitive
		ct.Name = nameOf(value, name, before.known, fold)
		ct.Allowed = cp.allows(identify(value, before.known, fold), fold)
		if !ct.Allowed {
			t.decide(VerdictDeny, id+".switch-not-allowed", fmt.Sprintf("[ctxguard/%s.switch-not-allowed] `%s` would switch the shared %s %s to %s, which this repository does not allow (allowed: %s) — switch to an allowed %s%s, or name one on each command%s",
				id, self, p.Name, p.Noun, describe(ct), cp.allowedList(before.known, fold), p.Noun, e.switchFix(t, p, cp, c, e.input(p, c, a, nil), before.known, &sw, external), e.flagHint(p)))
			return
		}
		if sw.Redefines {
			t.decide(VerdictAsk, id+".redefine", fmt.Sprintf("[ctxguard/%s.redefine] `%s` makes the allowed %s %s point at what this command writes, for every later call bound to it in every session — a human decides",
				id, self, p.Noun, describe(ct)))
		}
	}
	e.carry(cr)
}

// switchPolicy is what a switch of p's state answers to: p's own section of the policy and that
// of the provider whose state p shares, as two layers of one, so that the target must be
// allowed by both (`oc project x` moves kubectl's current-context too, and contexts.kubectl
// says where kubectl may go).
func (e *engine) switchPolicy(p *spec.Spec) *ContextPolicy {
	own, shared := e.in.Policy.Contexts[p.Name], e.in.Policy.Contexts[group(p)]
	switch {
	case own == nil:
		return shared
	case shared == nil || shared == own:
		return own
	}
	return &ContextPolicy{
		Allow:    append(slices.Clip(own.Allow), shared.Allow...),
		Defaults: append(slices.Clip(own.Defaults), shared.Defaults...),
		Unbound:  Stricter(own.Unbound, shared.Unbound),
	}
}

// switchTarget finds the word that names the switch's target: one of its flags, or a
// positional word after the command pattern.
func switchTarget(sw spec.Switch, a argv, n int) (Word, bool) {
	if len(sw.Flags) > 0 {
		return a.flag(sw.Flags)
	}
	k := max(sw.Arg, 1)
	ps := a.positionals(n)
	if len(ps) < k {
		return Word{}, false
	}
	return ps[k-1], true
}

// switchValue turns a switch target into the context it selects: directly, through a lookup in
// the state (a profile index into its environment) or the switch's own read steps (kind's
// cluster name into its context), or by re-reading the state with a read variable set (a
// configuration).
func (e *engine) switchValue(p *spec.Spec, c *Call, a argv, sw spec.Switch, target string) (value, name string, cr Switched, err error) {
	if sw.Lookup != "" || len(sw.Read) > 0 {
		v, ok, err := e.in.State.Target(p, e.input(p, c, a, nil), &sw, target)
		if err != nil || !ok {
			return "", "", Switched{}, err
		}
		return v, "", Switched{Value: v}, nil
	}
	if sw.Sets != "" {
		vars := map[string]string{sw.Sets: target}
		act, err := e.in.State.Resolve(p, e.input(p, c, a, vars))
		if err != nil {
			return "", "", Switched{}, err
		}
		return act.Value, act.Name, Switched{Value: act.Value, Vars: vars}, nil
	}
	return target, "", Switched{Value: target}, nil
}

// switchCommand renders a command that switches the provider's state to target (a context's
// id or a name the state knows), for a reason: the fix for a CLI that cannot bind one call. It
// is the provider's own switch, in this order: one that picks a profile by its name where the
// state lists the profiles (pac auth select --name), the switch that names the context itself
// (az account set --subscription), one that picks a profile by its position (pac auth select
// --index). "" when none can reach target. c is the call the fix is for: its directory flags
// (terraform -chdir=DIR) are kept, since the switch must act where the call does.
func (e *engine) switchCommand(p *spec.Spec, c *Call, in spec.Input, known []spec.Known, target string) string {
	for _, by := range []switchBy{byName, byContext, byIndex} {
		for i := range p.Switch {
			if cmd := e.switchTo(p, c, in, known, &p.Switch[i], false, target, by); cmd != "" {
				return cmd
			}
		}
	}
	return ""
}

// createCommand renders the switch that creates target (terraform workspace new), or "".
func (e *engine) createCommand(p *spec.Spec, c *Call, target string) string {
	for i := range p.Switch {
		if p.Switch[i].Creates {
			return switchLine(p, &p.Switch[i], false, dirFlags(p, c)) + e.in.Quote(target)
		}
	}
	return ""
}

// SwitchCommand is the provider's switch that names the context itself, to target, quoted by
// quote: `az account set --subscription Contoso-Dev`, for `ctxguard doctor` to offer. It is ""
// for a provider with no such switch.
func SwitchCommand(p *spec.Spec, target string, quote func(string) string) string {
	for i := range p.Switch {
		if sw := &p.Switch[i]; !sw.Unknown && sw.Lookup == "" && sw.Sets == "" && len(sw.Read) == 0 {
			return switchLine(p, sw, false, nil) + quote(target)
		}
	}
	return ""
}

// switchLine is a switch command up to its target. Another CLI's switch (switched_by, external)
// starts with that CLI's word: `kubectx `; the provider's own starts with its command word and
// dir (directory flags): "terraform -chdir=infra workspace select ".
func switchLine(p *spec.Spec, sw *spec.Switch, external bool, dir []string) string {
	cmd := sw.Command + " "
	if !external {
		cmd = strings.Join(append([]string{p.Commands[0]}, dir...), " ") + " " + cmd
	}
	if len(sw.Flags) > 0 {
		cmd += sw.Flags[0] + " "
	}
	return cmd
}

// dirFlags are the call's directory flags as written, with their values.
func dirFlags(p *spec.Spec, c *Call) []string {
	if c == nil || len(p.DirFlags) == 0 {
		return nil
	}
	var out []string
	for i, w := range c.Args {
		if !isFlag(w) || !slices.Contains(p.DirFlags, flagName(w.Value)) {
			continue
		}
		out = append(out, c.Src[w.Pos:w.End])
		if flagName(w.Value) == w.Value && i+1 < len(c.Args) {
			out = append(out, c.Src[c.Args[i+1].Pos:c.Args[i+1].End])
		}
	}
	return out
}

// switchBy is how a switch command names its target.
type switchBy int

const (
	byName    switchBy = iota // a profile's name, looked up in the state
	byContext                 // the context itself
	byIndex                   // a profile's position in the state's list
)

// switchTo renders sw switching to target, naming it the way by says; "" when sw does not
// take such a target or none reaches target. A target looked up in the state is checked there
// (State.Target): the command the reason offers selects that context and no other.
func (e *engine) switchTo(p *spec.Spec, c *Call, in spec.Input, known []spec.Known, sw *spec.Switch, external bool, target string, by switchBy) string {
	if sw.Unknown || sw.Sets != "" || len(sw.Read) > 0 || (sw.Lookup == "") != (by == byContext) {
		return ""
	}
	var dir []string
	if !external {
		dir = dirFlags(p, c)
	}
	cmd := switchLine(p, sw, external, dir)
	if by == byContext {
		return cmd + e.in.Quote(target)
	}
	fold := p.Context.CaseInsensitive
	want := identify(target, known, fold)
	for i, k := range known {
		if !seen([]identity{want}, identity{k.ID}, fold) {
			continue
		}
		arg := k.Name
		if by == byIndex {
			arg = strconv.Itoa(i + sw.IndexBase)
		}
		if arg == "" {
			continue
		}
		if v, ok, err := e.in.State.Target(p, in, sw, arg); err == nil && ok && eq(v, k.ID, fold) {
			return cmd + e.in.Quote(arg)
		}
	}
	return ""
}

// then is a line that runs next only when first succeeds, in the line's shell: `first && next`
// in bash, and in PowerShell `first; if ($?) { next }`, which Windows PowerShell 5.1 reads too
// (it has no &&, which came with PowerShell 7).
func (e *engine) then(first, next string) string {
	if e.in.Shell == ShellPowerShell {
		return first + "; if ($?) { " + next + " }"
	}
	return first + " && " + next
}

// offer records cmd as a command that the reason for c offers to run instead, and returns it as
// the reason writes it: made runnable from where the agent is, which is the line's directory, so
// a `cd DIR` of the line that c runs after comes first (`cd infra && terraform workspace new
// staging`, not a workspace created in the wrong folder).
func (e *engine) offer(t *trace, c *Call, cmd string) string {
	if c.Dir != "" && !c.DirUnknown {
		cmd = e.then("cd "+e.in.Quote(c.Dir), cmd)
	}
	if !slices.Contains(t.Fixes, cmd) {
		t.Fixes = append(t.Fixes, cmd)
	}
	return cmd
}
