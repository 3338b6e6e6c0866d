package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// unabbreviate normalises the long options of a CLI that accepts unique prefixes (argparse):
// `--subs X` becomes `--subscription X` when --subscription is the only known option it can
// name, so that bindings, switches, overrides and patterns see it. The words keep their
// positions; only their values change.
func (e *engine) unabbreviate(p *spec.Spec, words []Word) []Word {
	var known []string
	var out []Word
	for i, w := range words {
		if !w.Literal || !strings.HasPrefix(w.Value, "--") || len(w.Value) < 3 {
			continue
		}
		if w.Value == "--" {
			break
		}
		name, val, hasVal := strings.Cut(w.Value, "=")
		if known == nil {
			known = e.knownOptions(p)
		}
		if slices.Contains(known, name) {
			continue
		}
		var hit string
		n := 0
		for _, k := range known {
			if strings.HasPrefix(k, name) {
				hit = k
				n++
			}
		}
		if n != 1 {
			continue
		}
		if out == nil {
			out = slices.Clone(words)
		}
		out[i].Value = hit
		if hasVal {
			out[i].Value = hit + "=" + val
		}
	}
	if out == nil {
		return words
	}
	return out
}

// knownOptions are the long options a spec names anywhere, found once per run.
func (e *engine) knownOptions(p *spec.Spec) []string {
	if out, ok := e.options[p]; ok {
		return out
	}
	out := []string{}
	defer func() { e.options[p] = out }()
	add := func(fs ...string) {
		for _, f := range fs {
			f, _, _ = strings.Cut(f, "=")
			if strings.HasPrefix(f, "--") && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	add(p.ValueFlags...)
	add(p.Options...)
	add(p.Help...)
	add(p.DirFlags...)
	if p.Bind != nil {
		add(p.Bind.Flags...)
	}
	for _, sw := range p.Switch {
		add(sw.Flags...)
		add(sw.Unless...)
	}
	for _, o := range p.Overrides {
		add(o.Flags...)
	}
	for _, d := range p.Destructive {
		add(d.Unless...)
		add(strings.Fields(d.Match)...)
	}
	for _, st := range p.Context.Read {
		add(st.Flag...)
	}
	return out
}

// overrides checks the flags and variables that replace the call's context without being the
// binding: a value that names an allowed context passes, one that names another is denied, and
// one whose context cannot be read is asked about.
func (e *engine) overrides(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, a argv, path []string) {
	id := p.Name
	for i, o := range p.Overrides {
		if o.Command != "" {
			if _, ok := e.patternsOf(p).overrides[i].match(a, path); !ok {
				continue
			}
		}
		how, w, found := "", Word{}, false
		if len(o.Flags) > 0 {
			if w, found = a.flag(o.Flags); found {
				how = flagUsed(a, o.Flags)
			}
		}
		if as, ok := lineEnv(c, o.Env...); !found && ok {
			how, w, found = as.Name, as.Value, true
		}
		if !found {
			continue
		}
		why := ""
		if o.Why != "" {
			why = " (" + o.Why + ")"
		}
		if !w.Literal {
			t.decide(VerdictAsk, id+".override-dynamic", fmt.Sprintf("[ctxguard/%s.override-dynamic] %s %s replaces the %s for this call%s and is not a literal value, so ctxguard cannot check it — drop it and let the call be bound, or write the value out",
				id, how, w.Value, p.Noun, why))
			continue
		}
		var m []string
		if o.Match != "" {
			re, err := e.regexp(o.Match)
			if err != nil {
				continue // spec.Check refuses such a spec
			}
			if m = re.FindStringSubmatch(w.Value); m == nil {
				continue
			}
		}
		if len(m) < 2 {
			t.decide(VerdictAsk, id+".override", fmt.Sprintf("[ctxguard/%s.override] %s %s replaces the %s %s for this call%s, and ctxguard cannot tell which one that is — a human decides; without it the call is bound to an allowed %s",
				id, how, w.Value, p.Name, p.Noun, why, p.Noun))
			continue
		}
		if cp == nil {
			continue
		}
		eff, _ := e.resolve(p, c, a, nil)
		fold := p.Context.CaseInsensitive
		if !cp.allows(identify(m[1], eff.known, fold), fold) {
			t.decide(VerdictDeny, id+".override-not-allowed", fmt.Sprintf("[ctxguard/%s.override-not-allowed] %s %s makes this call act in the %s %s %s, which this repository does not allow (allowed: %s) — use a resource of an allowed %s",
				id, how, w.Value, p.Name, p.Noun, m[1], cp.allowedList(eff.known, fold), p.Noun))
		}
	}
}

// redefines asks about a call that changes what an allowed context is (`kubectl config
// set-context dev --cluster=prod`): every later call bound to that name, in every session,
// would act somewhere else.
func (e *engine) redefines(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, a argv, path []string) {
	if cp == nil {
		return
	}
	for i, r := range p.Redefine {
		n, ok := e.patternsOf(p).redefines[i].match(a, path)
		if !ok {
			continue
		}
		// (Parsed here: only a call the command matches gets this far.)
		if _, reads := matchAny(parseEach(r.Except, func(s string) string { return s }), a, path); reads {
			continue
		}
		if e.redefine(t, p, cp, c, a, r, n) {
			return
		}
	}
}

// externalRedefines asks about a call of another CLI that changes what a provider's context is
// (redefined_by: `kubens team-b` sets the current context's namespace, as `kubectl config
// set-context --current --namespace=team-b` does).
func (e *engine) externalRedefines(c *Call) []trace {
	var out []trace
	for _, q := range e.in.Providers {
		for _, r := range q.RedefinedBy {
			name, rest, _ := strings.Cut(r.Command, " ")
			if !strings.EqualFold(name, c.Name) {
				continue
			}
			cp := e.policyFor(q)
			if cp == nil {
				continue
			}
			a := argvOf(e.byName[strings.ToLower(c.Name)], c.Args)
			path := a.path()
			pat := e.pattern(rest)
			n, ok := pat.match(a, path)
			if !ok {
				continue
			}
			// Its except patterns start with the other CLI's word, as its command does.
			except := parseEach(r.Except, func(x string) string { return strings.TrimPrefix(x, name+" ") })
			if _, reads := matchAny(except, a, path); reads {
				continue
			}
			t := trace{CallTrace: CallTrace{Provider: q.Name, Argv: values(c), Via: c.Via, Kind: KindRedefine}}
			if e.redefine(&t, q, cp, c, a, r, n) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// redefine decides one entry that matched the call after n path words, and reports whether it
// asked: it does when the context it changes is allowed, or may be.
func (e *engine) redefine(t *trace, p *spec.Spec, cp *ContextPolicy, c *Call, a argv, r spec.Redefine, n int) bool {
	name, known := "", false
	switch {
	case r.Selected || r.CurrentAlways || len(r.Current) > 0 && a.hasAny(r.Current):
		eff, _ := e.effective(p, cp, c, a)
		name, known = eff.Value, !eff.unknown && eff.Value != ""
	case r.Arg > 0:
		ps := a.positionals(n)
		if len(ps) >= r.Arg && ps[r.Arg-1].Literal {
			name, known = ps[r.Arg-1].Value, true
			if r.Match != "" {
				re, err := e.regexp(r.Match)
				if err != nil {
					return false
				}
				m := re.FindStringSubmatch(name)
				if m == nil {
					return false // not a redefinition (config set current-context: a switch)
				}
				if name, known = "", len(m) > 1; known {
					name = m[1] // else any context may be changed (config set clusters.x.server)
				}
			}
		}
	}
	fold := p.Context.CaseInsensitive
	if known {
		eff, _ := e.resolve(p, c, a, nil)
		if !cp.allows(identify(name, eff.known, fold), fold) {
			return false
		}
	}
	what := "a " + p.Noun + " that an allowed one may use"
	if known {
		what = "the allowed " + p.Noun + " " + name
	}
	t.decide(VerdictAsk, p.Name+".redefine", fmt.Sprintf("[ctxguard/%s.redefine] `%s` changes %s, for every later call bound to it in every session — a human decides",
		p.Name, strings.Join(values(c), " "), what))
	return true
}

// regexp compiles a spec's expression once per run.
func (e *engine) regexp(expr string) (*regexp.Regexp, error) {
	if re, ok := e.regexps[expr]; ok {
		return re, nil
	}
	re, err := regexp.Compile(expr)
	if err == nil {
		e.regexps[expr] = re
	}
	return re, err
}
