package rules

import (
	"cmp"
	"fmt"
	"slices"
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
				cmds = append(cmds, "`"+e.offer(t, c, e.switchThen(c, sw))+"`")
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

// span replaces c.Src[pos:end] of a call with text (pos == end inserts it there).
type span struct {
	pos, end int
	text     string
}

// standalone is the call's text with the replacements, as a command that runs on its own where
// the agent is: a word whose value the line gave it ($g after g=gh, "$1" of sh -c '…' _ az) is
// written as that value, since the fix runs where those variables are not set, and so is a
// command the line made another name for (a link on a PATH it changed); in PowerShell, which has
// no `VAR=value cmd`, a variable set for the call alone (through env) is set before it.
func (e *engine) standalone(c *Call, reps ...span) string {
	start, pre := c.Start, ""
	if e.in.Shell == ShellPowerShell {
		for _, as := range prefixEnv(c) {
			q := e.assigned(c, as)
			for _, r := range reps {
				if r.pos == as.Value.Pos && r.end == as.Value.End {
					q = r.text
				}
			}
			pre += psAssign(as.Name, q)
			start = c.NameWord.Pos
		}
	}
	words := c.Args
	if w := c.NameWord; !strings.EqualFold(e.commandName(w.Value), c.Name) {
		reps = append(reps, span{w.Pos, w.End, e.in.Quote(c.Name)})
	} else {
		words = append([]Word{w}, words...)
	}
	given := len(reps)
	for _, w := range words {
		if !w.Literal || w.Pos < start || w.End > c.End || !strings.ContainsAny(c.Src[w.Pos:w.End], "$`") {
			continue
		}
		// "$@" is as many words as it has values, all written at its place.
		if n := len(reps) - 1; n >= given && reps[n].pos == w.Pos && reps[n].end == w.End {
			reps[n].text += " " + e.in.Quote(w.Value)
			continue
		}
		reps = append(reps, span{w.Pos, w.End, e.in.Quote(w.Value)})
	}
	if start == c.Start {
		for _, as := range prefixEnv(c) {
			if w := as.Value; w.Literal && strings.ContainsAny(c.Src[w.Pos:w.End], "$`") {
				reps = append(reps, span{w.Pos, w.End, e.in.Quote(w.Value)})
			}
		}
	}
	// From the end, so that the earlier positions hold; a word before an insertion at its start.
	slices.SortStableFunc(reps, func(a, b span) int { return cmp.Or(b.pos-a.pos, b.end-a.end) })
	text := c.Src[start:c.End]
	for _, r := range reps {
		if r.pos >= start && r.end <= c.End {
			text = text[:r.pos-start] + r.text + text[r.end-start:]
		}
	}
	return pre + strings.TrimSpace(text)
}

// commandName is a command word as a call's Name is: its base name without a Windows suffix.
func (e *engine) commandName(word string) string {
	base := word[strings.LastIndexAny(word, `/\`)+1:]
	for _, ext := range ProgramSuffixes(e.in.Shell) {
		if len(base) > len(ext) && strings.EqualFold(base[len(base)-len(ext):], ext) {
			return base[:len(base)-len(ext)]
		}
	}
	return base
}

// assigned is the value of an assignment written on the call, as the line's shell writes it:
// quoted when the line gave it one, else as written (PATH=$PWD/b:$PATH), in double quotes in
// PowerShell, where such a value is a string that expands.
func (e *engine) assigned(c *Call, as Assign) string {
	w := as.Value
	switch {
	case w.Literal:
		return e.in.Quote(w.Value)
	case e.in.Shell == ShellPowerShell:
		return `"` + strings.Trim(c.Src[w.Pos:w.End], `"`) + `"`
	}
	return c.Src[w.Pos:w.End]
}

// prefixEnv are the assignments written on the call itself (`HOME=../alt gh …`, or through env).
func prefixEnv(c *Call) []Assign {
	var out []Assign
	for _, as := range c.Env {
		if as.Prefix && as.Value.Pos >= c.Start && as.Value.End <= c.NameWord.Pos {
			out = append(out, as)
		}
	}
	return out
}

// switchThen is the switch sw, then the call, as one command that runs where the agent is: the
// switch gets the variables written on the call (HOME=../alt gh … reads another hosts.yml, which
// the switch must change).
func (e *engine) switchThen(c *Call, sw string) string {
	var pre []string
	for _, as := range prefixEnv(c) {
		if e.in.Shell == ShellPowerShell {
			pre = append(pre, strings.TrimSuffix(psAssign(as.Name, e.assigned(c, as)), " "))
		} else {
			pre = append(pre, as.Name+"="+e.assigned(c, as))
		}
	}
	if len(pre) > 0 {
		sw = strings.Join(pre, " ") + " " + sw
	}
	return e.then(sw, e.standalone(c))
}
