package rules

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// effective is the context an unbound call would run in, and where that came from.
type effective struct {
	ContextTrace
	known   []spec.Known
	unknown bool  // it cannot be known statically
	err     error // the state could not be read
	// scope is the state the context is kept in (spec.Active.Scope); a switch applies to the
	// calls of the same scope only.
	scope string
	// active is the state's own context when a remembered one stands in for it: the next binding
	// target, and what a call that cannot be bound would really run in.
	active *effective
	// origin is OriginCarried or OriginRemembered when an earlier switch gave the context (or
	// made it unknown), else "".
	origin Origin
	// why says what made the context unknown, when the state's reader said (DOCKER_HOST is set).
	why string
	// replaced is set when something on the call or in the environment replaces what the
	// context means (spec.ErrReplaced): a binding does not bind such a call.
	replaced bool
}

// input builds the provider runtime's view of a call: its environment (the line's assignments
// over the hook's), its working directory, and its flags.
func (e *engine) input(p *spec.Spec, c *Call, a argv, vars map[string]string) spec.Input {
	dir := e.dir(p, c, a)
	return spec.Input{
		Env: func(k string) (string, bool) {
			if as, ok := lineEnv(c, k); ok {
				return as.Value.Value, true
			}
			if e.in.Env == nil || c.EnvCleared || slices.Contains(c.Unset, k) {
				return "", false
			}
			return e.in.Env(k)
		},
		Dir:    dir,
		Home:   e.home(c, dir),
		System: e.in.System,
		Flag: func(names []string) (string, bool) {
			w, ok := own(p, a).flag(names)
			return w.Value, ok && w.Literal
		},
		Has: func(names []string) bool {
			_, ok := own(p, a).flag(names)
			return ok
		},
		Vars: vars,
	}
}

// dir is the call's absolute working directory: the line's, moved by `cd` and by the provider's
// directory flags (terraform -chdir; p is nil for a command no provider guards). It is "" when a
// `cd` or a directory flag is not literal or names no place ctxguard knows: the reader then
// refuses relative state paths instead of guessing.
func (e *engine) dir(p *spec.Spec, c *Call, a argv) string {
	if c.DirUnknown {
		return ""
	}
	rels := []string{c.Dir}
	if p != nil && len(p.DirFlags) > 0 {
		if w, ok := own(p, a).flag(p.DirFlags); ok {
			if !w.Literal {
				return ""
			}
			rels = append(rels, w.Value)
		}
	}
	d := e.in.Cwd
	for _, rel := range rels {
		switch {
		case rel == "":
			continue
		case rel == "~" || strings.HasPrefix(rel, "~/"):
			d, rel = e.in.Home, "."+rel[1:]
			if d == "" {
				return ""
			}
		}
		var ok bool
		if d, ok = e.place(d, rel); !ok {
			return ""
		}
	}
	return d
}

// place is p, a directory or file that a line names, as an absolute path of the system the
// line runs on, resolved against dir ("" when the line's directory is not known); a bash line
// on Windows (Git Bash, MSYS2, Cygwin) spells drives /c/…. ok is false when p needs a
// directory that is not known, or names no place ctxguard knows (Git Bash's /usr/bin).
func (e *engine) place(dir, p string) (string, bool) {
	if e.in.Shell != ShellPowerShell {
		var ok bool
		if p, ok = e.in.System.FromBash(p); !ok {
			return "", false
		}
	}
	if dir == "" && !e.in.System.IsAbs(p) {
		return "", false
	}
	return e.in.System.Abs(dir, p), true
}

// uncertain reports whether a value that read steps (the provider's context.read, or a
// switch's) depend on is not literal: a variable set on the call, or a flag the steps take.
func uncertain(p *spec.Spec, steps []spec.Step, c *Call, a argv) bool {
	// The state under ~ is then not the hook's, and not known.
	if as, ok := lineEnv(c, "HOME"); ok && (!as.Value.Literal || as.Value.Value == "") || !ok && c.EnvCleared {
		return true
	}
	for _, st := range steps {
		for _, as := range c.Env {
			if !as.Value.Literal && st.Mentions(as.Name) {
				return true
			}
		}
		if len(st.Flag) > 0 {
			if w, ok := own(p, a).flag(st.Flag); ok && !w.Literal {
				return true
			}
		}
	}
	return false
}

// home is the home directory the call's state paths start from: a HOME set on the call (gh and
// pac read their files under it, and a line can point it elsewhere), else the hook's. It is ""
// when the call clears its environment or sets HOME to something not literal: see uncertain.
func (e *engine) home(c *Call, dir string) string {
	if as, ok := lineEnv(c, "HOME"); ok {
		w := as.Value
		switch {
		case !w.Literal || w.Value == "":
			return ""
		case e.in.System.IsAbs(w.Value) || dir == "":
			return w.Value
		}
		return e.in.System.Abs(dir, w.Value)
	}
	if c.EnvCleared {
		return ""
	}
	return e.in.Home
}

// resolve reads the active context from the state, with vars forced by a switch.
func (e *engine) resolve(p *spec.Spec, c *Call, a argv, vars map[string]string) (effective, spec.Input) {
	in := e.input(p, c, a, vars)
	if uncertain(p, p.Context.Read, c, a) {
		return effective{ContextTrace: ContextTrace{Source: OriginUnknown}, unknown: true}, in
	}
	act, err := e.state(p, c, a, in)
	if errors.Is(err, spec.ErrNoDir) {
		return effective{ContextTrace: ContextTrace{Source: OriginUnknown}, unknown: true}, in
	}
	if errors.Is(err, spec.ErrUnknown) {
		why := reason(err)
		return effective{ContextTrace: ContextTrace{Source: OriginUnknown}, unknown: true, why: why, scope: act.Scope,
			replaced: errors.Is(err, spec.ErrReplaced)}, in
	}
	if err != nil {
		return effective{ContextTrace: ContextTrace{Source: OriginUnknown}, err: err}, in
	}
	ct := ContextTrace{Value: act.Value, Name: act.Name, File: act.File, Key: act.Key}
	switch from := act.From; {
	case act.Value == "":
		ct.Source = OriginNone
	case from.Kind == spec.FromEnv:
		ct.Source, ct.Env = OriginProcessEnv, from.Name
		if _, onCall := lineEnv(c, from.Name); onCall {
			ct.Source = OriginEnv
		}
	case from.Kind == spec.FromFlag:
		ct.Source, ct.Flag = OriginFlag, from.Name
	case from.Kind == spec.FromDefault:
		ct.Source = OriginDefault
	default:
		ct.Source = OriginState
	}
	return effective{ContextTrace: ct, known: act.Known, scope: act.Scope}, in
}

// reason is the text of a reader's ErrUnknown error without the sentinels it wraps: what made the
// context unknown, for a reason.
func reason(err error) string {
	why := err.Error()
	for _, e := range []error{spec.ErrReplaced, spec.ErrUnknown} {
		why = strings.TrimSuffix(why, ": "+e.Error())
	}
	return why
}

// resolved is one Resolve result, kept for the calls of a line that read the same state.
type resolved struct {
	act spec.Active
	err error
}

// state resolves through a memo: a line with many calls of one CLI reads and queries its state
// once. The key holds everything a resolution depends on besides the hook's own environment,
// which does not change within a line: the directory, the call's assignments, the flags the
// read steps take, and the variables a switch forced.
func (e *engine) state(p *spec.Spec, c *Call, a argv, in spec.Input) (spec.Active, error) {
	var k strings.Builder
	k.WriteString(p.Name)
	k.WriteString("\x00")
	k.WriteString(in.Dir)
	field := func(s ...string) {
		k.WriteByte(0)
		for _, s := range s {
			k.WriteString(s)
		}
	}
	for _, as := range c.Env {
		field(as.Name, "=", as.Value.Value)
	}
	for _, st := range p.Context.Read {
		if len(st.Flag) > 0 {
			w, _ := own(p, a).flag(st.Flag)
			field(w.Value)
		}
		for _, o := range st.OverriddenBy {
			if _, ok := own(p, a).flag([]string{o}); ok {
				field(o)
			}
		}
		for _, r := range st.Replaced {
			for _, o := range r.By {
				if _, ok := own(p, a).flag([]string{o}); ok {
					fmt.Fprintf(&k, "\x00%s", o)
				}
			}
		}
	}
	if len(in.Vars) > 0 {
		for _, name := range slices.Sorted(maps.Keys(in.Vars)) {
			field(name, "=", in.Vars[name])
		}
	}
	key := k.String()
	if r, ok := e.memo[key]; ok {
		return r.act, r.err
	}
	act, err := e.in.State.Resolve(p, in)
	e.memo[key] = resolved{act, err}
	return act, err
}

// lineEnv is the line's last assignment to any of names for the call: the value the call gets.
func lineEnv(c *Call, names ...string) (Assign, bool) {
	for i := len(c.Env) - 1; i >= 0; i-- {
		if slices.Contains(names, c.Env[i].Name) {
			return c.Env[i], true
		}
	}
	return Assign{}, false
}

// effective is the context an unbound call runs in: carried from an earlier switch in the line
// that changed the same state, else remembered from this session's last switch of that state
// (see remembered), else the active one in the state.
func (e *engine) effective(p *spec.Spec, cp *ContextPolicy, c *Call, a argv) (effective, spec.Input) {
	act, in := e.resolve(p, c, a, nil)
	act.Name = nameOf(act.Value, act.Name, act.known, p.Context.CaseInsensitive)
	if sw, ok := e.carried[group(p)]; ok && (sw.Scope == "" || act.scope == "" || sw.Scope == act.scope) {
		return e.switched(p, c, a, sw, OriginCarried, act, in)
	}
	return e.remembered(p, cp, c, a, act, in)
}

// nameOf finds a display name for a value from the state's list of known contexts.
func nameOf(value, name string, known []spec.Known, fold bool) string {
	if name != "" || value == "" {
		return name
	}
	for _, k := range known {
		if eq(k.ID, value, fold) && k.Name != value {
			return k.Name
		}
	}
	return ""
}

// describe renders a context for a reason: "Contoso-Prod (2222…)".
func describe(ct ContextTrace) string {
	switch {
	case ct.Value == "":
		return "not set"
	case ct.Name != "" && ct.Name != ct.Value:
		return fmt.Sprintf("%s (%s)", ct.Name, ct.Value)
	}
	return ct.Value
}

// named is describe with a bare value in backticks, so that a context named like a word of
// the sentence reads as a name: "the aws profile `default`".
func named(ct ContextTrace) string {
	if ct.Value != "" && (ct.Name == "" || ct.Name == ct.Value) {
		return "`" + ct.Value + "`"
	}
	return describe(ct)
}

// target picks the context a call is bound to: the effective one if allowed, else (when a
// remembered context stood in for it) the active one if allowed, else the policy's default, else
// the only value the allow lists name. Targets that the provider says must exist (terraform
// workspaces) are skipped when they do not, and so are targets that something set on the call
// replaces (docker's default with DOCKER_HOST): then replaced says why.
func (e *engine) target(p *spec.Spec, cp *ContextPolicy, eff effective, allowed bool, in spec.Input) (tgt, replaced string, err error) {
	fold := p.Context.CaseInsensitive
	var cands []string
	if allowed && eff.Value != "" && !eff.unknown {
		cands = append(cands, eff.Value)
	}
	if act := eff.active; act != nil && act.Value != "" && !act.unknown && cp.allows(identify(act.Value, act.known, fold), fold) {
		cands = append(cands, act.Value)
	}
	for _, d := range cp.Defaults {
		if cp.allows(identify(d.Value, eff.known, fold), fold) {
			cands = append(cands, d.Value)
		}
	}
	if only, ok := cp.only(eff.known, fold); ok {
		cands = append(cands, only)
	}
	for _, v := range cands {
		ok, err := e.exists(p, in, v)
		if err != nil {
			return "", "", err
		}
		if !ok {
			continue
		}
		if why := e.binds(p, in, v); why != "" {
			replaced = why
			continue
		}
		return v, "", nil
	}
	return "", replaced, nil
}

// binds returns "" when binding a call to v makes it act in v, else what replaces v for it: the
// call is read again as bound, when the provider says what may replace a context.
func (e *engine) binds(p *spec.Spec, in spec.Input, v string) string {
	if p.Bind == nil || len(p.Context.Read[len(p.Context.Read)-1].Replaced) == 0 {
		return ""
	}
	bound := in
	bound.Flag = func(names []string) (string, bool) {
		if slices.ContainsFunc(names, func(n string) bool { return slices.Contains(p.Bind.Flags, n) }) {
			return v, true
		}
		return in.Flag(names)
	}
	bound.Env = func(k string) (string, bool) {
		if slices.Contains(p.Bind.Env, k) {
			return v, true
		}
		return in.Env(k)
	}
	if _, err := e.in.State.Resolve(p, bound); errors.Is(err, spec.ErrReplaced) {
		return reason(err)
	}
	return ""
}

func (e *engine) exists(p *spec.Spec, in spec.Input, v string) (bool, error) {
	if len(p.Context.Exists) == 0 {
		return true, nil
	}
	return e.in.State.Exists(p, in, v)
}

// only returns the single context that the allow lists name literally, if there is exactly one.
func (cp *ContextPolicy) only(known []spec.Known, fold bool) (string, bool) {
	lits := cp.literals(known, fold)
	if len(lits) != 1 {
		return "", false
	}
	return lits[0], true
}

func seen(ids []identity, id identity, fold bool) bool {
	for _, o := range ids {
		for _, a := range o {
			for _, b := range id {
				if a != "" && eq(a, b, fold) {
					return true
				}
			}
		}
	}
	return false
}
