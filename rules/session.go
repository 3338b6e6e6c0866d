package rules

import (
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// Session memory. Binding a command to the active context does not close the race between two
// agent sessions when both of their contexts are allowed: by the time session A's command comes,
// the active context may be the one session B just switched to, and it is allowed. So a switch
// that a line lets through is remembered for the session (Input.Remembered reads it back), and a
// later unbound call of that session is bound to the context the session selected, not to the
// file that every session shares.

// switched is the effect of an earlier switch (carried in the line, or remembered for the
// session) on a call whose state resolves to act.
func (e *engine) switched(p *spec.Spec, c *Call, a argv, sw Switched, source Origin, act effective, in spec.Input) (effective, spec.Input) {
	if sw.Unknown {
		return effective{ContextTrace: ContextTrace{Source: OriginUnknown, From: sw.From}, unknown: true, known: act.known, scope: act.scope, origin: source}, in
	}
	if sw.Vars != nil {
		eff, vin := e.resolve(p, c, a, sw.Vars)
		if eff.err == nil && !eff.unknown {
			eff.Source, eff.From, eff.origin = source, sw.From, source
			eff.Name = nameOf(eff.Value, eff.Name, eff.known, p.Context.CaseInsensitive)
		}
		return eff, vin
	}
	eff := act
	eff.ContextTrace = ContextTrace{Value: sw.Value, Source: source, From: sw.From}
	eff.err, eff.unknown, eff.origin = nil, false, source
	eff.Name = nameOf(eff.Value, "", eff.known, p.Context.CaseInsensitive)
	return eff, in
}

// remembered applies the session's last switch of the call's state, if there is one. A
// remembered context that the policy no longer allows is passed over: the call falls back to the
// active context, as if nothing were remembered. One that is unknown (the session ran `az login`,
// or a command that rewrote the kubeconfig as a side effect) stays unknown: the file may hold
// what that switch wrote or what another session wrote since, and ctxguard cannot tell which.
func (e *engine) remembered(p *spec.Spec, cp *ContextPolicy, c *Call, a argv, act effective, in spec.Input) (effective, spec.Input) {
	// An unknown context whose state is known (the call's environment overrides it: DOCKER_HOST)
	// still gives way to the session's own switch of that state.
	if e.in.Remembered == nil || act.err != nil || act.unknown && (act.why == "" || act.scope == "") {
		return act, in
	}
	sw, ok := e.in.Remembered(group(p), act.scope)
	if !ok {
		return act, in
	}
	rem, rin := e.switched(p, c, a, sw, OriginRemembered, act, in)
	switch {
	case rem.err != nil:
		return act, in
	case rem.unknown:
		return rem, rin
	}
	fold := p.Context.CaseInsensitive
	if rem.Value == "" || cp != nil && !cp.allows(identify(rem.Value, rem.known, fold), fold) {
		return act, in
	}
	rem.active = &act
	return rem, rin
}

// sameContext reports whether two contexts are one, by any of their spellings (id or name).
func sameContext(p *spec.Spec, x, y effective) bool {
	fold := p.Context.CaseInsensitive
	return seen([]identity{identify(x.Value, x.known, fold)}, identify(y.Value, y.known, fold), fold)
}

// moved denies a call of a CLI that cannot be bound when its session selected a context that is
// no longer the active one: another session has switched since, and the call would run there. The
// fix switches back in the same command, which narrows the window to the line itself.
func (e *engine) moved(t *trace, p *spec.Spec, c *Call, eff effective, in spec.Input) {
	id := p.Name
	call := strings.TrimSpace(c.Src[c.Start:c.End])
	fix := fmt.Sprintf("switch the %s to %s first", p.Noun, eff.Value)
	if sw := e.switchCommand(p, c, in, eff.known, eff.Value); sw != "" {
		fix = "switch back in the same command: " + e.offer(t, c, e.switchThen(c, sw))
	}
	t.decide(VerdictDeny, id+".session-moved", fmt.Sprintf("[ctxguard/%s.session-moved] this session switched the %s %s to %s (`%s`), but the active one is now %s: another session switched it since, and %s cannot be bound to a %s — %s",
		id, p.Name, p.Noun, describe(eff.ContextTrace), eff.From, describe(eff.active.ContextTrace), call, p.Noun, fix))
}

// bindInspection binds a self-inspection call (exempt: `az account show`, `kubectl config view`,
// `terraform workspace show`) to the context that a switch earlier in the line or in the session
// selected, when the provider can bind it. Such a call is how an agent learns where it is: left
// unbound, it would report the context another session switched to. Without such a switch it is
// left alone, and so is a context ctxguard cannot know, which the call is there to find out.
func (e *engine) bindInspection(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, a argv, path []string) {
	if p.Bind == nil || c.Nested || c.ArgsAppended {
		return
	}
	if _, rejects := matchAny(e.patternsOf(p).reject, a, path); rejects {
		return
	}
	if _, _, ok := binding(p, c, a); ok {
		return
	}
	eff, in := e.effective(p, cp, c, a)
	if eff.err != nil || eff.unknown || eff.Value == "" || eff.Source != OriginCarried && eff.Source != OriginRemembered {
		return
	}
	fold := p.Context.CaseInsensitive
	if !cp.allows(identify(eff.Value, eff.known, fold), fold) {
		return
	}
	if ok, err := e.exists(p, in, eff.Value); err != nil || !ok {
		return
	}
	eff.Allowed = true
	t.Context = &eff.ContextTrace
	ed, text := e.bindEdit(p, c, eff.Value)
	t.Binding, t.Fixed = text, fixedCall(c, ed)
	t.edits = append(t.edits, ed)
	t.decide(VerdictRewrite, p.Name+".bind", fmt.Sprintf("[ctxguard/%s.bind] bound to the %s %s %s, which %s, so that it shows that %s and not one another session switched to: %s",
		p.Name, p.Name, p.Noun, named(eff.ContextTrace), selectedBy(eff), p.Noun, t.Fixed))
}

// chosen says why a call is bound to its effective context, for a reason that names it.
func chosen(eff effective) string {
	switch eff.Source {
	case OriginCarried, OriginRemembered:
		return "which " + selectedBy(eff)
	case OriginDefault:
		return "the CLI's own default, as no state names one"
	case OriginProcessEnv:
		return "which " + eff.Env + " in the environment selects"
	}
	return "the active one"
}

// selectedBy says which switch selected a carried or remembered context, for a reason.
func selectedBy(eff effective) string {
	if eff.Source == OriginRemembered {
		return fmt.Sprintf("this session switched to with `%s`", eff.From)
	}
	return fmt.Sprintf("`%s` earlier in this command switches to", eff.From)
}
