package rules

import (
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// maxExamples bounds the commands a reason offers: enough to pick from, short enough to read.
const maxExamples = 3

// literals returns the contexts that the allow lists name literally and every layer allows, in
// policy order, one spelling each.
func (cp *ContextPolicy) literals(known []spec.Known, fold bool) []string {
	var found []identity
	var out []string
	for _, l := range cp.Allow {
		for _, pat := range l.Patterns {
			if isGlob(pat) {
				continue
			}
			id := identify(pat, known, fold)
			if !cp.allows(id, fold) || seen(found, id, fold) {
				continue
			}
			found = append(found, id)
			out = append(out, pat)
		}
	}
	return out
}

// explicitFix tells an agent how to run a call that ctxguard cannot bind by itself (no single
// allowed target, or a context it cannot know): the exact call bound to each allowed context
// (or, where the CLI has no binding, switched to it in the same command), so that the agent
// picks one instead of guessing a flag's spelling. A refusal without a way forward only makes an
// agent try variations until one slips through.
func (e *engine) explicitFix(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, known []spec.Known, bindable bool, in spec.Input) string {
	call := strings.TrimSpace(c.Src[c.Start:c.End])
	var cmds []string
	for _, v := range cp.literals(known, p.Context.CaseInsensitive) {
		if len(cmds) == maxExamples {
			break
		}
		if ok, err := e.exists(p, in, v); err != nil || !ok {
			continue
		}
		switch {
		case bindable:
			cmds = append(cmds, "`"+e.offer(t, c, e.boundCall(p, c, v))+"`")
		default:
			if sw := e.switchCommand(p, c, in, known, v); sw != "" {
				cmds = append(cmds, "`"+e.offer(t, c, e.then(sw, call))+"`")
			}
		}
	}
	what := fmt.Sprintf("name an allowed %s explicitly%s", p.Noun, e.flagHint(p))
	if !bindable {
		what = fmt.Sprintf("switch to an allowed %s in the same command", p.Noun)
	}
	if len(cmds) > 0 {
		what += ", e.g. " + strings.Join(cmds, " or ")
	}
	return what + e.defaultNote(t, p, cp, c, known, in)
}

// defaultNote ends a fix with why the policy's default did not serve as the binding: there is
// none (set one), or it does not exist where the call runs (create it there), or another layer
// does not allow it.
func (e *engine) defaultNote(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, known []spec.Known, in spec.Input) string {
	fold := p.Context.CaseInsensitive
	for _, d := range cp.Defaults {
		if !cp.allows(identify(d.Value, known, fold), fold) {
			continue
		}
		if ok, err := e.exists(p, in, d.Value); err != nil || ok {
			continue
		}
		where := "here"
		if in.Dir != "" {
			where = "in " + in.Dir
		}
		note := fmt.Sprintf("; the default %s %s (%s) does not exist %s, so nothing is bound to it", p.Noun, d.Value, d.Src, where)
		if cr := e.createCommand(p, c, d.Value); cr != "" {
			note += fmt.Sprintf(": create it there with `%s`", e.offer(t, c, cr))
		}
		return note
	}
	if len(cp.Defaults) > 0 {
		return fmt.Sprintf("; the default %s (%s) is not in every policy layer's allow list", cp.Defaults[0].Value, cp.Defaults[0].Src)
	}
	return fmt.Sprintf("; or set a default for %s in %s (contexts.%s.default)", p.Name, ProjectFile, p.Name)
}

// switchFix is the switch an agent may run instead of sw, which is not allowed: sw itself to an
// allowed context where it can reach one (pac auth select --index 2 → --index 1), else the
// provider's usual switch; with the directory flags of c, the call that switches. external is
// set when sw is another CLI's (switched_by: kubectx prod → kubectx dev).
func (e *engine) switchFix(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, in spec.Input, known []spec.Known, sw *spec.Switch, external bool) string {
	for _, v := range cp.literals(known, p.Context.CaseInsensitive) {
		cmd := ""
		for _, by := range []switchBy{byName, byContext, byIndex} {
			if cmd == "" {
				cmd = e.switchTo(p, c, in, known, sw, external, v, by)
			}
		}
		if cmd == "" {
			cmd = e.switchCommand(p, c, in, known, v)
		}
		if cmd != "" {
			return fmt.Sprintf(" (e.g. `%s`)", e.offer(t, c, cmd))
		}
	}
	return ""
}
