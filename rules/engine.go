package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxguard/ctxguard/spec"
)

// State reads the CLIs' state for the engine. The engine declares what it needs, and
// *providers.Reader implements it over the real files; tests fake it.
type State interface {
	Resolve(s *spec.Spec, in spec.Input) (spec.Active, error)
	Target(s *spec.Spec, in spec.Input, sw *spec.Switch, target string) (string, bool, error)
	Exists(s *spec.Spec, in spec.Input, value string) (bool, error)
}

// Input is everything one decision depends on.
type Input struct {
	Calls     []Call
	Policy    *Policy
	Providers []*spec.Spec
	State     State
	// Quote shell-quotes a value for insertion into the line.
	Quote func(string) string
	// Cwd is the line's absolute working directory; Env, Home and System are the hook's.
	Cwd    string
	Env    func(string) (string, bool)
	Home   string
	System spec.System
	// Remembered returns what this session's last switch of the provider's state (scope: see
	// spec.Active.Scope) did, if any (session memory): unbound calls are bound to it rather
	// than to the shared state, which another session may have moved since. Nil when there is no
	// memory.
	Remembered func(provider, scope string) (Switched, bool)
	// Self and Writers keep the agent from changing ctxguard's own policy and hooks (see
	// protect.go): a call that writes one of Self's files, directly or through a Writer's
	// arguments, is denied whenever some policy exists. Nil Self turns that off.
	Self    Self
	Writers []Writer
	// Shell is the language of the line: ShellBash (also for "") or ShellPowerShell, which has no
	// `VAR=value cmd` prefix, so a binding by variable cannot be inserted there.
	Shell string
	// Lifted reports whether a human lifted a rule (a destructive entry's or a user rule's id)
	// for this call, with a note that says by whom and until when: the rule then adds nothing.
	// The caller never lifts a rule of the managed layer. Nil lifts nothing.
	Lifted func(rule string) (note string, ok bool)
	// Facts are what the rules' conditions read besides the calls (see [Facts]).
	Facts Facts
	// Writes are what a file tool is about to write, one per file (a patch writes several),
	// for the rules about files; nil for a line.
	Writes []Write
}

// Write is what a file tool is about to write.
type Write struct {
	// Path is the file, absolute.
	Path string
	// Text is what the file will hold where the tool changes it: the whole file for a write, the
	// lines an edit leaves around its change (so that a rule sees `publicNetworkAccess:
	// 'Enabled'` when an edit only turned 'Disabled' into 'Enabled').
	Text string
}

// Switched is the effect of a switch that the line lets through: the context it selects, the
// read variables it sets instead (a configuration), or an unknown target.
type Switched struct {
	Provider string            `json:"provider"`
	Value    string            `json:"value,omitempty"`
	Vars     map[string]string `json:"vars,omitempty"`
	Unknown  bool              `json:"unknown,omitempty"`
	From     string            `json:"from"` // the switch as written
	// Scope is the state the switch changed (spec.Active.Scope): a later call that reads
	// other state (terraform in another directory, another KUBECONFIG) is not affected.
	Scope string `json:"scope,omitempty"`
}

// Evaluate decides a command line. It never fails: a state file that cannot be read, or a call
// that cannot be analysed, becomes a deny or ask of that call with a reason that says so.
func Evaluate(in Input) Result {
	e := &engine{in: in, byName: map[string]*spec.Spec{}, carried: map[string]Switched{}, memo: map[string]resolved{}, patterns: map[string]pattern{}, parsed: map[*spec.Spec]*specPatterns{}, switchers: map[*spec.Spec][]switcher{},
		options: map[*spec.Spec][]string{}, regexps: map[string]*regexp.Regexp{}}
	for _, p := range in.Providers {
		for _, c := range p.Commands {
			// Case-insensitive file systems (macOS, Windows) run az for AZ.
			e.byName[strings.ToLower(c)] = p
		}
	}
	e.guarded = len(in.Policy.Files) > 0
	var res Result
	// A function's body is a call of its own at each call of the function: the same place in
	// the line, bound once. A set keeps that linear in a line of a thousand bound calls.
	edits := map[Edit]bool{}
	var traces []trace // each call's, in one slice that every call reuses
	for i := range in.Calls {
		traces = e.call(&in.Calls[i], traces[:0])
		for _, t := range traces {
			if res.Calls == nil {
				// A trace per call, mostly: allocated once rather than doubled up to the line's length.
				res.Calls = make([]CallTrace, 0, len(in.Calls)-i)
			}
			res.Calls = append(res.Calls, t.CallTrace)
			for _, ed := range t.edits {
				if !edits[ed] {
					edits[ed] = true
					res.Edits = append(res.Edits, ed)
				}
			}
		}
	}
	for i := range in.Writes {
		if t, ok := e.fileRules(&in.Writes[i]); ok {
			res.Calls = append(res.Calls, t.CallTrace)
		}
	}
	res.Switches = e.switches
	res.Facts = e.facts
	res.Verdict, res.Rule, res.Reason = summarise(res.Calls)
	if res.Verdict < VerdictRewrite && len(res.Edits) > 0 {
		res.Verdict = VerdictRewrite
	}
	return res
}

// summarise picks the strictest verdict, the first rule with it, and every reason with it.
func summarise(calls []CallTrace) (Verdict, string, string) {
	v := VerdictAllow
	for _, c := range calls {
		v = max(v, c.Verdict)
	}
	var rule string
	var reasons []string
	seen := map[string]bool{}
	for _, c := range calls {
		if c.Verdict != v || c.Reason == "" || seen[c.Reason] {
			continue
		}
		if rule == "" {
			rule = c.Rule
		}
		seen[c.Reason] = true
		reasons = append(reasons, c.Reason)
	}
	return v, rule, strings.Join(reasons, "\n")
}

type engine struct {
	in      Input
	byName  map[string]*spec.Spec
	guarded bool // some policy file exists
	// carried holds the context each provider was switched to earlier in the line.
	carried map[string]Switched
	// switches records them in order.
	switches  []Switched
	memo      map[string]resolved
	patterns  map[string]pattern
	parsed    map[*spec.Spec]*specPatterns
	switchers map[*spec.Spec][]switcher
	// writersByLen are the Writers by the length of their command (see writers).
	writersByLen map[int][]*Writer
	// facts are the facts conditions read, for explanations.
	facts map[string]string
	// options and regexps are what the per-call checks would otherwise compute again for every
	// call of a long line: each provider's long options, the specs' compiled expressions.
	options map[*spec.Spec][]string
	regexps map[string]*regexp.Regexp
}

// carry records a switch's effect on the rest of the line.
func (e *engine) carry(s Switched) {
	e.carried[s.Provider] = s
	e.switches = append(e.switches, s)
}

// trace is a call's trace plus the edits that bind it.
type trace struct {
	CallTrace
	edits []Edit
	// bound is the context a rewrite (or the fixed command of a deny) binds the call to.
	bound string
}

// decide records a verdict on the trace if it is stricter than the one it has.
func (t *trace) decide(v Verdict, rule, reason string) {
	if v > t.Verdict || t.Rule == "" && v == t.Verdict {
		t.Verdict, t.Rule, t.Reason = v, rule, reason
	}
}

// call appends the traces of one call to out.
func (e *engine) call(c *Call, out []trace) []trace {
	if t, ok := e.protect(c); ok {
		out = append(out, t)
	}
	if c.Name == "" {
		if t, ok := e.dynamic(c); ok {
			out = append(out, t)
		}
		return out
	}
	out = append(out, e.externalSwitches(c)...)
	out = append(out, e.externalRedefines(c)...)
	p := e.byName[strings.ToLower(c.Name)]
	if p == nil {
		if t, ok := e.userRulesOnly(c); ok {
			out = append(out, t)
		}
		return out
	}
	args := c.Args
	if p.Prefix {
		args = e.unabbreviate(p, args)
	}
	a := argvOf(p, args)
	path := a.path()
	t := trace{CallTrace: CallTrace{Provider: p.Name, Argv: values(c), Via: c.Via}}
	cp := e.policyFor(p)
	switch {
	case a.hasAny(p.Help):
		// Help prints and does nothing else: neither context nor destructive rules apply.
		t.Kind = KindHelp
		return append(out, t)
	case e.exempt(p, a, path):
		t.Kind = KindExempt
		if cp != nil {
			e.bindInspection(&t, p, cp, c, a, path)
		}
	default:
		if sw, n, ok := e.matchSwitch(p, a, path); ok {
			t.Kind = KindSwitch
			e.doSwitch(&t, p, c, a, sw, n, false)
			break
		}
		if cp == nil {
			t.Kind = KindUnchecked
			break
		}
		e.checkContext(&t, p, cp, c, a, path)
	}
	if t.Kind != KindExempt {
		e.overrides(&t, p, cp, c, a, path)
	}
	e.redefines(&t, p, cp, c, a, path)
	e.destructive(&t, p, c, a, path)
	e.userRules(&t, p, c, a, path)
	return append(out, t)
}

func values(c *Call) []string {
	out := make([]string, 0, len(c.Args)+1)
	out = append(out, c.Name)
	for _, w := range c.Args {
		out = append(out, w.Value)
	}
	return out
}

func (e *engine) exempt(p *spec.Spec, a argv, path []string) bool {
	_, ok := matchAny(e.patternsOf(p).exempt, a, path)
	return ok
}

// dynamic asks about a call whose command word cannot be read statically when its text names a
// guarded command (`$(which az) group delete`, `"$KUBECTL" delete ns x`): the guard would
// otherwise be blind to it.
func (e *engine) dynamic(c *Call) (trace, bool) {
	if !e.guarded {
		return trace{}, false
	}
	text := c.NameWord.Value
	for _, w := range c.Args {
		text += " " + w.Value
	}
	for _, tok := range Words(c.NameWord.Value) {
		if p := e.byName[tok]; p != nil {
			t := trace{CallTrace: CallTrace{Provider: p.Name, Argv: []string{text}, Via: c.Via, Kind: KindUnknown}}
			t.decide(VerdictAsk, "parse.dynamic-command",
				fmt.Sprintf("[ctxguard/parse.dynamic-command] the command word %s is not literal, so ctxguard cannot tell which %s context it would use — write the command name out (%s …) so it can be checked",
					c.NameWord.Value, p.Name, p.Commands[0]))
			return t, true
		}
	}
	// Under a policy that guards a CLI, a command that cannot be read may be any of them,
	// whatever its text says (`$(printf %s a z) group list`). (A file tool has no command line.)
	if len(e.in.Policy.Contexts) == 0 || c.NameWord.Value == "" || c.Src == "" || c.Code {
		return trace{}, false
	}
	t := trace{CallTrace: CallTrace{Argv: []string{text}, Via: c.Via, Kind: KindUnknown}}
	t.decide(VerdictAsk, "parse.dynamic-command",
		fmt.Sprintf("[ctxguard/parse.dynamic-command] the command word %s is not literal, so ctxguard cannot tell what it runs or in which context — write the command out so it can be checked",
			c.NameWord.Value))
	return t, true
}

// Words splits a non-literal command word into the lower-case words it mentions, any of which
// may be the command it runs ("$(which az)" -> which, az).
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), notWordChar)
}

func notWordChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
}

// externalSwitches applies the calls that change another provider's context as a side effect
// (`az aks get-credentials` moves kubectl's current-context, `kubectx prod` selects prod). A
// target named on the line, or worked out from it, is checked against that provider's policy
// like its own switch, and the call gets a trace for it; without one, that provider's later
// calls in the line cannot trust its state file, and where the entry says that the switch
// selects another context, it is asked about.
func (e *engine) externalSwitches(c *Call) []trace {
	own := argvOf(e.byName[strings.ToLower(c.Name)], c.Args)
	var out []trace
	runes := utf8.RuneCountInString(c.Name)
	for _, q := range e.in.Providers {
		for i, s := range e.switchersOf(q) {
			if s.runes != runes || !strings.EqualFold(s.name, c.Name) {
				continue
			}
			sw := q.SwitchedBy[i]
			a := own
			a.valueFlags = switcherFlags(own.valueFlags, sw)
			pat := e.pattern(s.rest)
			n, ok := switchApplies(sw, &pat, a, a.path())
			if !ok {
				continue
			}
			t := trace{CallTrace: CallTrace{Provider: q.Name, Argv: values(c), Via: c.Via, Kind: KindSwitch}}
			e.doSwitch(&t, q, c, a, sw, n, true)
			if e.switchPolicy(q) != nil {
				out = append(out, t)
			}
			break
		}
	}
	return out
}

// switcherFlags are the flags that take a value in another CLI's call that a switched_by entry
// matches: that CLI's own when a provider guards it, the entry's value_flags, and the flags
// that give its target (minikube -p NAME start is minikube start).
func switcherFlags(own []string, sw spec.Switch) []string {
	out := append(slices.Clip(own), sw.ValueFlags...)
	out = append(out, sw.Flags...)
	for _, st := range sw.Read {
		out = append(out, st.Flag...)
	}
	return out
}

// matchSwitch finds the switch entry that applies to the call.
func (e *engine) matchSwitch(p *spec.Spec, a argv, path []string) (spec.Switch, int, bool) {
	ps := e.patternsOf(p)
	for i, sw := range p.Switch {
		if n, ok := switchApplies(sw, &ps.switches[i], a, path); ok {
			return sw, n, true
		}
	}
	return spec.Switch{}, 0, false
}

// switchApplies reports whether a switch entry applies to a call whose words after the command
// name are a: pat (the entry's command, without the command name for another provider's
// SwitchedBy) matches, the call has none of its Unless flags, and, for an entry that takes its
// target from flags, one of them. n is what the pattern matched.
func switchApplies(sw spec.Switch, pat *pattern, a argv, path []string) (n int, ok bool) {
	n, ok = pat.match(a, path)
	if !ok || a.hasAny(sw.Unless) {
		return 0, false
	}
	if _, has := a.flag(sw.Flags); len(sw.Flags) > 0 && !has {
		return 0, false
	}
	return n, true
}
