package rules

import (
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// checkContext decides a call that is neither exempt nor a switch: explicitly bound, or
// unbound and so running on whatever context is effective when it starts.
func (e *engine) checkContext(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, a argv, path []string) {
	bindable := p.Bind != nil
	if bindable {
		if _, rejects := matchAny(e.patternsOf(p).reject, a, path); rejects {
			bindable = false
		}
	}
	if w, ct, ok := binding(p, c, a); ok {
		t.Kind = KindBound
		e.checkBound(t, p, cp, c, a, w, ct)
		return
	}
	t.Kind = KindUnbound
	eff, in := e.effective(p, cp, c, a)
	t.Context = &eff.ContextTrace
	id := p.Name
	if eff.err != nil {
		t.decide(VerdictDeny, id+".state-error", fmt.Sprintf("[ctxguard/%s.state-error] cannot read the %s state: %v — repair or remove that file (the CLI recreates it), or bind the command explicitly%s",
			id, p.Name, eff.err, e.flagHint(p)))
		return
	}
	fold := p.Context.CaseInsensitive
	eff.Allowed = !eff.unknown && eff.Value != "" && cp.allows(identify(eff.Value, eff.known, fold), fold)
	setting := cp.Unbound
	if setting == SettingUnset {
		setting = SettingAllow
		if bindable {
			setting = SettingFix
		}
	}
	if eff.Allowed && setting == SettingAllow {
		// Only a CLI that cannot bind at all: a subcommand that rejects the binding (az ad, az
		// config) mostly does not depend on the context.
		if p.Bind == nil && eff.active != nil && !sameContext(p, eff, *eff.active) {
			e.moved(t, p, c, eff, in)
		}
		return
	}
	tgt, replaced, err := e.target(p, cp, eff, eff.Allowed, in)
	if err != nil {
		t.decide(VerdictDeny, id+".state-error", fmt.Sprintf("[ctxguard/%s.state-error] cannot check that the %s exists: %v — make that folder readable, or name the %s explicitly%s",
			id, p.Noun, err, p.Noun, e.flagHint(p)))
		return
	}
	// where is written out only for the reasons that say it: a call bound to the allowed
	// context it runs in, the usual case, does not.
	where := func() string { return e.where(p, eff) }
	if tgt == "" && replaced != "" {
		t.decide(VerdictAsk, id+".binding-replaced", fmt.Sprintf("[ctxguard/%s.binding-replaced] %s; and %s, so a binding would not keep this call in an allowed %s — a human decides; without that setting the call is bound to an allowed %s",
			id, where(), replaced, p.Noun, p.Noun))
		return
	}
	if tgt == "" || !bindable {
		e.cannotBind(t, p, cp, c, eff, tgt, bindable, where(), in)
		return
	}
	if e.envOnly(p) {
		t.bound = tgt
		e.bindEnvPowerShell(t, p, c, tgt, where())
		return
	}
	ed, text := e.bindEdit(p, c, tgt)
	t.Binding, t.Fixed, t.bound = text, fixedCall(c, ed), tgt
	fix := func() string { return "run: " + e.offer(t, c, e.standalone(c, span{ed.At, ed.At, ed.Text})) }
	if !eff.Allowed {
		t.Context.Allowed = false
	}
	if c.Nested || (c.ArgsAppended && trailingFlag(c)) {
		t.decide(VerdictDeny, id+".bind-nested", fmt.Sprintf("[ctxguard/%s.bind-nested] %s; this call sits %s, where ctxguard cannot add %s safely — %s",
			id, where(), placeOf(c), text, fix()))
		return
	}
	switch {
	case setting == SettingDeny:
		t.decide(VerdictDeny, id+".unbound-deny", fmt.Sprintf("[ctxguard/%s.unbound-deny] the policy requires every %s command to name its %s explicitly; %s — %s",
			id, p.Name, p.Noun, where(), fix()))
	case setting == SettingAsk:
		t.edits = append(t.edits, ed)
		t.decide(VerdictAsk, id+".unbound-ask", fmt.Sprintf("[ctxguard/%s.unbound-ask] the policy asks a human about %s commands that do not name a %s; %s — bound as: %s",
			id, p.Name, p.Noun, where(), t.Fixed))
	case eff.Allowed && tgt != eff.Value:
		t.edits = append(t.edits, ed)
		t.decide(VerdictRewrite, id+".rebind", fmt.Sprintf("[ctxguard/%s.rebind] %s, which does not exist here; bound to %s instead: %s",
			id, where(), tgt, t.Fixed))
	case eff.Allowed:
		t.edits = append(t.edits, ed)
		t.decide(VerdictRewrite, id+".bind", fmt.Sprintf("[ctxguard/%s.bind] bound to the %s %s %s, %s, so that a switch by another session cannot move it: %s",
			id, p.Name, p.Noun, named(eff.ContextTrace), chosen(eff), t.Fixed))
	case eff.unknown:
		t.edits = append(t.edits, ed)
		t.decide(VerdictRewrite, id+".rebind", fmt.Sprintf("[ctxguard/%s.rebind] %s, so the %s in the state cannot be trusted; bound to %s, the one this repository binds to: %s",
			id, where(), p.Noun, tgt, t.Fixed))
	default:
		t.edits = append(t.edits, ed)
		t.decide(VerdictRewrite, id+".rebind", fmt.Sprintf("[ctxguard/%s.rebind] %s; bound to %s instead: %s",
			id, notAllowed(where(), eff, cp, p.Context.CaseInsensitive), tgt, t.Fixed))
	}
}

// cannotBind denies (or, for an unknown context, asks about) a call that must be bound but
// cannot be: the provider has no binding, the subcommand rejects it, or no allowed target exists.
func (e *engine) cannotBind(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, eff effective, tgt string, bindable bool, where string, in spec.Input) {
	id := p.Name
	call := strings.TrimSpace(c.Src[c.Start:c.End])
	if eff.Allowed {
		// Allowed, but the policy wanted it bound or asked (unbound: fix/ask/deny): without a
		// binding, fix has nothing to add.
		if cp.Unbound == SettingAsk || cp.Unbound == SettingDeny {
			v := VerdictAsk
			if cp.Unbound == SettingDeny {
				v = VerdictDeny
			}
			next := "a human decides"
			if v == VerdictDeny {
				next = "an agent cannot run it here; ask the user to run it"
			}
			t.decide(v, id+".unbound-"+cp.Unbound.String(), fmt.Sprintf("[ctxguard/%s.unbound-%s] %s cannot be bound to a %s and the policy says %s for unbound calls; %s — %s",
				id, cp.Unbound, call, p.Noun, cp.Unbound, where, next))
		}
		return
	}
	var fix string
	switch {
	case tgt != "" && !bindable:
		if sw := e.switchCommand(p, c, in, eff.known, tgt); sw != "" {
			fix = "switch first, in the same command: " + e.offer(t, c, e.switchThen(c, sw))
		} else {
			fix = fmt.Sprintf("switch the %s to %s first", p.Noun, tgt)
		}
	default:
		fix = e.explicitFix(t, p, cp, c, eff.known, bindable, in)
	}
	if eff.unknown {
		t.decide(VerdictAsk, id+".context-unknown", fmt.Sprintf("[ctxguard/%s.context-unknown] %s; ctxguard cannot tell which %s %s would use — %s",
			id, where, p.Noun, call, fix))
		return
	}
	t.decide(VerdictDeny, id+".context-not-allowed", fmt.Sprintf("[ctxguard/%s.context-not-allowed] %s — %s",
		id, notAllowed(where, eff, cp, p.Context.CaseInsensitive), fix))
}

// notAllowed says that the context where names is not allowed, or, when there is none, which
// ones are.
func notAllowed(where string, eff effective, cp *ContextPolicy, fold bool) string {
	switch {
	case eff.Value == "" && len(cp.Allow) == 0:
		return where + ", and this repository's policy needs one"
	case eff.Value == "":
		return fmt.Sprintf("%s, and this repository needs one of: %s", where, cp.allowedList(eff.known, fold))
	}
	return fmt.Sprintf("%s, which this repository does not allow (allowed: %s)", where, cp.allowedList(eff.known, fold))
}

// where says what context the call would run in and why, for a reason.
func (e *engine) where(p *spec.Spec, eff effective) string {
	switch {
	case eff.unknown && eff.origin == OriginRemembered:
		return fmt.Sprintf("this session ran `%s`, which changed the %s %s to one ctxguard cannot know", eff.From, p.Name, p.Noun)
	case eff.unknown && eff.From != "":
		return fmt.Sprintf("`%s` earlier in this command changed the %s %s to one ctxguard cannot know", eff.From, p.Name, p.Noun)
	case eff.unknown && eff.why != "":
		return fmt.Sprintf("the %s %s cannot be known: %s", p.Name, p.Noun, eff.why)
	case eff.unknown:
		return fmt.Sprintf("the %s %s depends on a directory or variable that is not literal", p.Name, p.Noun)
	case eff.Source == OriginCarried:
		return fmt.Sprintf("`%s` earlier in this command switches the %s %s to %s", eff.From, p.Name, p.Noun, describe(eff.ContextTrace))
	case eff.Source == OriginRemembered:
		return fmt.Sprintf("this session switched the %s %s to %s", p.Name, p.Noun, describe(eff.ContextTrace))
	case eff.Value == "" && eff.File != "":
		// Name the file, so that a deny says what broke: a file emptied by hand or caught
		// mid-write reads the same as a CLI that was never logged in.
		return fmt.Sprintf("no %s %s is active (%s selects none)", p.Name, p.Noun, eff.File)
	case eff.Value == "":
		return fmt.Sprintf("no %s %s is active", p.Name, p.Noun)
	}
	return fmt.Sprintf("the active %s %s is %s", p.Name, p.Noun, describe(eff.ContextTrace))
}

func placeOf(c *Call) string {
	if c.Nested {
		return "inside a quoted string or here-document (" + strings.Join(c.Via, " > ") + ")"
	}
	return "after a wrapper that appends arguments"
}

// trailingFlag reports whether the last argument is an option that may take the next word as
// its value: inserting after it would hand it the binding.
func trailingFlag(c *Call) bool {
	if len(c.Args) == 0 {
		return false
	}
	w := c.Args[len(c.Args)-1]
	return isFlag(w) && !strings.Contains(w.Value, "=")
}

// flagHint names the binding for a reason, in the line's shell: a variable is set for one
// command in bash (TF_WORKSPACE=<workspace> terraform …) and for the session in PowerShell.
func (e *engine) flagHint(p *spec.Spec) string {
	switch {
	case p.Bind == nil:
		return ""
	case len(p.Bind.Flags) > 0:
		return fmt.Sprintf(" (%s <%s>)", p.Bind.Flags[0], p.Noun)
	case len(p.Bind.Env) > 0 && e.in.Shell == ShellPowerShell:
		return fmt.Sprintf(" ($env:%s='<%s>')", p.Bind.Env[0], p.Noun)
	case len(p.Bind.Env) > 0:
		return fmt.Sprintf(" (%s=<%s>)", p.Bind.Env[0], p.Noun)
	}
	return ""
}

// binding finds an explicit binding on the call: the provider's flag, or its variable set on
// the call.
func binding(p *spec.Spec, c *Call, a argv) (Word, ContextTrace, bool) {
	if p.Bind == nil {
		return Word{}, ContextTrace{}, false
	}
	if w, ok := own(p, a).flag(p.Bind.Flags); ok {
		return w, ContextTrace{Value: w.Value, Source: OriginFlag, Flag: flagUsed(a, p.Bind.Flags)}, true
	}
	if as, ok := lineEnv(c, p.Bind.Env...); ok {
		return as.Value, ContextTrace{Value: as.Value.Value, Source: OriginEnv, Env: as.Name}, true
	}
	return Word{}, ContextTrace{}, false
}

func flagUsed(a argv, names []string) string {
	used := names[0]
	for _, w := range a.words {
		if isFlag(w) {
			for _, n := range names {
				if flagName(w.Value) == n {
					used = n
				}
			}
		}
	}
	return used
}

// checkBound checks an explicit binding: a literal value must be allowed; anything else is asked.
func (e *engine) checkBound(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, a argv, w Word, ct ContextTrace) {
	id := p.Name
	t.Context = &ct
	how := ct.Flag
	if ct.Env != "" {
		how = ct.Env
	}
	if !w.Literal {
		t.decide(VerdictAsk, id+".binding-dynamic", fmt.Sprintf("[ctxguard/%s.binding-dynamic] %s %s is not a literal value, so ctxguard cannot check it against the allowed %ss (%s) — write the %s out",
			id, how, w.Value, p.Noun, cp.allowedList(nil, p.Context.CaseInsensitive), p.Noun))
		return
	}
	eff, in := e.resolve(p, c, a, nil)
	fold := p.Context.CaseInsensitive
	ct.Name = nameOf(ct.Value, "", eff.known, fold)
	if ct.Allowed = cp.allows(identify(ct.Value, eff.known, fold), fold); ct.Allowed {
		t.Context = &ct
		if eff.replaced {
			t.decide(VerdictAsk, id+".binding-replaced", fmt.Sprintf("[ctxguard/%s.binding-replaced] %s names the %s %s, but %s, so ctxguard cannot tell where the call acts — a human decides; without that setting the binding holds",
				id, how, p.Noun, describe(ct), eff.why))
		}
		return
	}
	t.Context = &ct
	fix := fmt.Sprintf("use an allowed %s instead", p.Noun)
	if tgt, _, _ := e.target(p, cp, effective{known: eff.known}, false, in); tgt != "" && !c.Nested {
		switch {
		case c.Start <= w.Pos && w.End <= c.End && spread(c, w):
			// The value is one of the words an expansion wrote ("$@"): no word of the line is it.
		case c.Start <= w.Pos && w.End <= c.End:
			t.Fixed = e.standalone(c, span{w.Pos, w.End, e.in.Quote(tgt)})
		default:
			// The variable was set earlier in the line (export, $env:): bind this call anew.
			t.Fixed = e.boundCall(p, c, tgt)
		}
		if t.Fixed != "" {
			fix = "run: " + e.offer(t, c, t.Fixed)
		}
	}
	t.decide(VerdictDeny, id+".binding-not-allowed", fmt.Sprintf("[ctxguard/%s.binding-not-allowed] %s names the %s %s %s, which this repository does not allow (allowed: %s) — %s",
		id, how, p.Name, p.Noun, describe(ct), cp.allowedList(eff.known, fold), fix))
}

// spread reports whether the word shares its place in the line with another word of the call:
// both come from one expansion ("$@").
func spread(c *Call, w Word) bool {
	n := 0
	for _, x := range append([]Word{c.NameWord}, c.Args...) {
		if x.Pos == w.Pos && x.End == w.End {
			n++
		}
	}
	return n > 1
}

// bindEdit renders the insertion that binds a call to value, and the binding as text.
func (e *engine) bindEdit(p *spec.Spec, c *Call, value string) (Edit, string) {
	q := e.in.Quote(value)
	b := p.Bind
	if len(b.Flags) == 0 {
		text := b.Env[0] + "=" + q
		if c.Wrapped {
			return Edit{At: c.NameWord.Pos, Text: "env " + text + " "}, text
		}
		return Edit{At: c.NameWord.Pos, Text: text + " "}, text
	}
	text := b.Flags[0] + " " + q
	if b.Place == spec.PlaceAfterCommand {
		return Edit{At: c.NameWord.End, Text: " " + text}, text
	}
	for _, w := range c.Args {
		if w.Literal && w.Value == "--" {
			return Edit{At: w.Pos, Text: text + " "}, text
		}
	}
	return Edit{At: c.End, Text: " " + text}, text
}

// fixedCall is the call's own text with the edit applied: the command a model should run.
func fixedCall(c *Call, ed Edit) string {
	return strings.TrimSpace(c.Src[c.Start:ed.At] + ed.Text + c.Src[ed.At:c.End])
}
