package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Condition is one item of a rule's `when` or `unless`: it holds when every test it has holds
// (AND); a test with several values holds when one of them does (OR). A zero Condition holds.
// The policy package builds it from the file, checking every value there (time zones included),
// so that nothing here can fail on the policy's account.
type Condition struct {
	// Unattended holds when the harness would run the call without a human confirming it
	// ([Facts].Unattended).
	Unattended *bool
	// Modes are permission modes (Claude Code's permission_mode).
	Modes []string
	// Agents are AgentMain or AgentSubagent.
	Agents []string
	// Harnesses are harness names ("claude", "copilot", …).
	Harnesses []string
	// Cwd are patterns of the call's working directory.
	Cwd []PathPattern
	// Context matches the context the call acts in, after any binding ctxguard adds.
	Context []ContextPattern
	// Env tests the hook's environment; every entry must hold.
	Env []EnvPattern
	// Hosts are host name patterns (* globs, case-insensitive).
	Hosts []string
	// Groups are the names or ids of groups the user must be in (one of them; * globs).
	Groups []string
	// Times are weekly windows, Dates change-freeze ranges.
	Times []Window
	Dates []DateRange
}

// The agent a call comes from (Condition.Agents).
const (
	AgentMain     = "main"
	AgentSubagent = "subagent"
)

// PathPattern is a path glob as a policy writes it: segments separated by /, `*` and `?` within
// one segment, `**` for any number of segments. A pattern without a / matches the base name at
// any depth (`*.bicep`); one that starts with / (or a drive, C:/) or ~/ is absolute; any other is
// taken from Dir, the directory of the policy file that wrote it (for a project policy, the
// repository), as .gitignore patterns are.
type PathPattern struct {
	Glob string
	Dir  string
}

// ContextPattern holds when every field matches: Field "" is the context's id or display name,
// any other a field the provider's state gives for it (spec.KnownList.Fields). Globs are *
// patterns, matched without regard to case.
type ContextPattern []FieldPattern

// FieldPattern is one field of a [ContextPattern].
type FieldPattern struct {
	Field string
	Globs []string
}

// EnvPattern holds when the variable Name is set (to anything, even empty) and its value
// matches one of Globs (* patterns, case-sensitive).
type EnvPattern struct {
	Name  string
	Globs []string
}

// Window is a weekly time window: on Days (bit 0 is Sunday, as time.Weekday), from From up to
// To, in minutes after midnight in Loc. A window whose To is not after its From runs overnight:
// it starts on one of Days and ends the next morning. Text is the window as written, for
// explanations.
type Window struct {
	Days     uint8
	From, To int
	Loc      *time.Location
	Text     string
}

// DateRange is a change freeze: from the start of day From to the end of day To (both
// inclusive), as civil dates in Loc. Text is the range as written.
type DateRange struct {
	From, To Date
	Loc      *time.Location
	Text     string
}

// Date is a civil date.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// Facts are what conditions read besides the call: who asks, through which harness, when, and
// on which machine. The harness adapter gives the first few (in the [Request]); the guard gives
// the clock and reads the machine only when a condition asks (so a policy without groups never
// reads the group database); `ctxguard test` and `ctxguard explain` fake them.
//
// A fact that is not known (the zero value: the harness does not say, a test does not give it)
// makes a `when` test that depends on it hold and an `unless` test not hold. A rule only ever
// adds ask or deny, so not knowing a fact can make it apply more often, never less.
type Facts struct {
	Harness string // "" when not known
	Tool    string
	Mode    string // the permission mode; "" when not known
	// Unattended and Subagent are nil when not known.
	Unattended *bool
	Subagent   *bool
	// Now is the time; zero when not known.
	Now time.Time
	// Host and Groups read the host name and the user's groups (names and ids); nil when not
	// known. They are called only when a condition needs them.
	Host   func() (string, error)
	Groups func() ([]string, error)
}

// outcome is what a test, a condition or a list of them comes to, in the order of how surely it
// holds.
type outcome int8

const (
	no      outcome = iota
	unknown         // a fact it needs is not known
	yes
)

// scope is what a condition is evaluated against: one call, or a file tool's write.
type scope struct {
	// dir is the call's working directory ("" when a cd made it unknown).
	dir string
	// acting resolves the context the call acts in; nil for a call no provider guards.
	acting func() (acting, error)
}

// acting is a context a call acts in, with every spelling and field the state gives for it.
type acting struct {
	ids []string // the value, and the id and name of the known context it is
	// fields are its id, name and the provider's fields; only its id when the state does not
	// list it (listed false), so that any other field is not known.
	fields  map[string]string
	listed  bool
	unknown bool // which context it is cannot be known statically
}

// check evaluates a condition: its outcome, and a description of the test that decided it (the
// first that does not hold, else the tests whose facts are unknown) for explanations.
func (e *engine) check(c *Condition, s scope) (outcome, string, error) {
	res := yes
	var held, unknowns []string
	for _, test := range conditionTests {
		o, why, err := test(e, c, s)
		switch {
		case err != nil:
			return no, why, err
		case o == no:
			return no, why, nil
		case o == unknown:
			res = unknown
			unknowns = append(unknowns, why)
		case why != "":
			held = append(held, why)
		}
	}
	if res == unknown {
		return res, strings.Join(unknowns, ", "), nil
	}
	return res, strings.Join(held, ", "), nil
}

// conditionTests are a condition's tests, cheapest first, so that a condition that fails early
// never reads the machine.
var conditionTests = [...]func(e *engine, c *Condition, s scope) (outcome, string, error){
	(*engine).checkUnattended, (*engine).checkModes, (*engine).checkAgent, (*engine).checkHarness,
	(*engine).checkCwd, (*engine).checkEnv, (*engine).checkTimes, (*engine).checkDates,
	(*engine).checkActing, (*engine).checkHost, (*engine).checkGroups,
}

// fact records a fact that a condition read, for explanations.
func (e *engine) fact(name, value string) {
	if e.facts == nil {
		e.facts = map[string]string{}
	}
	e.facts[name] = value
}

const notKnown = "not known"

func (e *engine) checkUnattended(c *Condition, _ scope) (outcome, string, error) {
	if c.Unattended == nil {
		return yes, "", nil
	}
	want := fmt.Sprintf("unattended: %t", *c.Unattended)
	u := e.in.Facts.Unattended
	if u == nil {
		e.fact("unattended", notKnown)
		return unknown, "unattended is not known", nil
	}
	e.fact("unattended", fmt.Sprint(*u))
	if *u != *c.Unattended {
		return no, want, nil
	}
	return yes, want, nil
}

func (e *engine) checkAgent(c *Condition, _ scope) (outcome, string, error) {
	if len(c.Agents) == 0 {
		return yes, "", nil
	}
	sub := e.in.Facts.Subagent
	if sub == nil {
		e.fact("agent", notKnown)
		return unknown, "the agent is not known", nil
	}
	agent := AgentMain
	if *sub {
		agent = AgentSubagent
	}
	return e.checkWord("agent", c.Agents, agent)
}

func (e *engine) checkModes(c *Condition, _ scope) (outcome, string, error) {
	return e.checkWord("permission_mode", c.Modes, e.in.Facts.Mode)
}

func (e *engine) checkHarness(c *Condition, _ scope) (outcome, string, error) {
	return e.checkWord("harness", c.Harnesses, e.in.Facts.Harness)
}

// checkWord tests a fact that is one word against a list of words.
func (e *engine) checkWord(name string, want []string, have string) (outcome, string, error) {
	if len(want) == 0 {
		return yes, "", nil
	}
	desc := name + ": " + strings.Join(want, ", ")
	if have == "" {
		e.fact(name, notKnown)
		return unknown, name + " is not known", nil
	}
	e.fact(name, have)
	if !slices.Contains(want, have) {
		return no, desc, nil
	}
	return yes, desc, nil
}

func (e *engine) checkCwd(c *Condition, s scope) (outcome, string, error) {
	if len(c.Cwd) == 0 {
		return yes, "", nil
	}
	desc := "cwd: " + globList(c.Cwd)
	if s.dir == "" {
		e.fact("cwd", notKnown)
		return unknown, "the working directory is not known", nil
	}
	e.fact("cwd", s.dir)
	for _, p := range c.Cwd {
		if e.matchPath(p, s.dir) {
			return yes, desc, nil
		}
	}
	return no, desc, nil
}

func globList(ps []PathPattern) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Glob
	}
	return strings.Join(out, ", ")
}

func (e *engine) checkEnv(c *Condition, _ scope) (outcome, string, error) {
	for _, p := range c.Env {
		desc := fmt.Sprintf("env %s: %s", p.Name, strings.Join(p.Globs, ", "))
		v, ok := "", false
		if e.in.Env != nil {
			v, ok = e.in.Env(p.Name)
		}
		if !ok {
			e.fact("env "+p.Name, "not set")
			return no, desc, nil
		}
		e.fact("env "+p.Name, v)
		if !slices.ContainsFunc(p.Globs, func(g string) bool { return Glob(g, v, false) }) {
			return no, desc, nil
		}
	}
	if len(c.Env) == 0 {
		return yes, "", nil
	}
	return yes, "env: " + texts(c.Env, func(p EnvPattern) string { return p.Name + "=" + strings.Join(p.Globs, "|") }), nil
}

func (e *engine) checkTimes(c *Condition, _ scope) (outcome, string, error) {
	return checkClock(e, "time", "the time", c.Times)
}

func (e *engine) checkDates(c *Condition, _ scope) (outcome, string, error) {
	return checkClock(e, "dates", "the date", c.Dates)
}

// period is a stretch of time a condition names: a weekly window or a date range.
type period interface {
	holds(time.Time) bool
	text() string
}

// checkClock tests the time against periods: it holds when one of them does.
func checkClock[P period](e *engine, key, what string, ps []P) (outcome, string, error) {
	if len(ps) == 0 {
		return yes, "", nil
	}
	desc := key + ": " + texts(ps, func(p P) string { return p.text() })
	now := e.in.Facts.Now
	if now.IsZero() {
		e.fact("now", notKnown)
		return unknown, what + " is not known", nil
	}
	e.fact("now", now.Format(time.RFC3339))
	for _, p := range ps {
		if p.holds(now) {
			return yes, desc, nil
		}
	}
	return no, desc, nil
}

func (w Window) text() string    { return w.Text }
func (d DateRange) text() string { return d.Text }

// holds reports whether t is inside the window.
func (w Window) holds(t time.Time) bool {
	t = t.In(w.Loc)
	m := t.Hour()*60 + t.Minute()
	day := func(d time.Weekday) bool { return w.Days&(1<<d) != 0 }
	if w.From < w.To {
		return day(t.Weekday()) && w.From <= m && m < w.To
	}
	// Overnight: the evening of one of Days, or the morning after it.
	return day(t.Weekday()) && m >= w.From || day((t.Weekday()+6)%7) && m < w.To
}

// holds reports whether t falls on one of the range's days in its time zone.
func (d DateRange) holds(t time.Time) bool {
	start := time.Date(d.From.Year, d.From.Month, d.From.Day, 0, 0, 0, 0, d.Loc)
	end := time.Date(d.To.Year, d.To.Month, d.To.Day+1, 0, 0, 0, 0, d.Loc)
	return !t.Before(start) && t.Before(end)
}

func texts[T any](xs []T, text func(T) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = text(x)
	}
	return strings.Join(out, "; ")
}

func (e *engine) checkActing(c *Condition, s scope) (outcome, string, error) {
	if len(c.Context) == 0 {
		return yes, "", nil
	}
	desc := "context: " + texts(c.Context, ContextPattern.String)
	if s.acting == nil {
		return no, desc + " (the call acts in no context ctxguard knows)", nil
	}
	ac, err := s.acting()
	if err != nil {
		return no, desc, err
	}
	if ac.unknown {
		e.fact("context", notKnown)
		return unknown, "the context is not known", nil
	}
	if len(ac.ids) > 0 {
		e.fact("context", describe(ContextTrace{Value: ac.ids[0], Name: ac.fields["name"]}))
	}
	res := no
	for _, p := range c.Context {
		switch p.match(ac) {
		case yes:
			return yes, desc, nil
		case unknown:
			res = unknown
		}
	}
	if res == unknown {
		return unknown, "the context's fields are not known", nil
	}
	return no, desc, nil
}

// String renders the pattern as a policy writes it.
func (p ContextPattern) String() string {
	var parts []string
	for _, f := range p {
		if f.Field == "" {
			parts = append(parts, strings.Join(f.Globs, ", "))
		} else {
			parts = append(parts, f.Field+": "+strings.Join(f.Globs, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

func (p ContextPattern) match(ac acting) outcome {
	res := yes
	for _, f := range p {
		var vals []string
		if f.Field == "" {
			vals = ac.ids
		} else {
			v, ok := ac.fields[f.Field]
			if !ok {
				// The state says nothing of it for this context: it may have any value.
				res = unknown
				continue
			}
			vals = []string{v}
		}
		if !slices.ContainsFunc(f.Globs, func(g string) bool {
			return slices.ContainsFunc(vals, func(v string) bool { return v != "" && Glob(g, v, true) })
		}) {
			return no
		}
	}
	return res
}

func (e *engine) checkHost(c *Condition, _ scope) (outcome, string, error) {
	var read func() ([]string, error)
	if h := e.in.Facts.Host; h != nil {
		read = func() ([]string, error) {
			name, err := h()
			return []string{name}, err
		}
	}
	return e.checkMachine("host", "the host name", "is", c.Hosts, read, true)
}

func (e *engine) checkGroups(c *Condition, _ scope) (outcome, string, error) {
	return e.checkMachine("groups", "the user's groups", "are", c.Groups, e.in.Facts.Groups, e.in.System.GOOS() == "windows")
}

// checkMachine tests a fact of the machine, read only now that a condition needs it, against
// globs: it holds when one of the values read matches one of them.
func (e *engine) checkMachine(key, what, verb string, globs []string, read func() ([]string, error), fold bool) (outcome, string, error) {
	if len(globs) == 0 {
		return yes, "", nil
	}
	desc := key + ": " + strings.Join(globs, ", ")
	if read == nil {
		e.fact(key, notKnown)
		return unknown, what + " " + verb + " not known", nil
	}
	have, err := read()
	if err != nil {
		return no, desc, fmt.Errorf("read %s: %w", what, err)
	}
	e.fact(key, strings.Join(have, ", "))
	for _, g := range globs {
		if slices.ContainsFunc(have, func(h string) bool { return Glob(g, h, fold) }) {
			return yes, desc, nil
		}
	}
	return no, desc, nil
}

// matchPath matches an absolute path (a working directory, a file a tool writes) against a
// pattern, without regard to case on Windows and macOS, whose file systems ignore it.
func (e *engine) matchPath(p PathPattern, name string) bool {
	fold := e.in.System.GOOS() == "windows" || e.in.System.GOOS() == "darwin"
	name = e.slashes(name)
	glob := e.slashes(p.Glob)
	switch {
	case !strings.Contains(glob, "/"):
		name = name[strings.LastIndexByte(name, '/')+1:]
	case strings.HasPrefix(glob, "~/"):
		if e.in.Home == "" {
			return false
		}
		glob = strings.TrimSuffix(e.slashes(e.in.Home), "/") + glob[1:]
	case !absolute(glob):
		glob = strings.TrimSuffix(e.slashes(p.Dir), "/") + "/" + glob
	}
	if fold {
		glob, name = strings.ToLower(glob), strings.ToLower(name)
	}
	return segments(strings.Split(glob, "/"), strings.Split(strings.TrimSuffix(name, "/"), "/"))
}

// slashes turns a path into the / form patterns are written in; a Windows path may use either
// separator.
func (e *engine) slashes(p string) string {
	if e.in.System.GOOS() == "windows" {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// absolute reports whether a pattern in / form is absolute: /… or a drive, C:/….
func absolute(glob string) bool {
	return strings.HasPrefix(glob, "/") || len(glob) >= 3 && glob[1] == ':' && glob[2] == '/'
}

// segments matches path segments against pattern segments, ** standing for any number of them.
func segments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for pat = pat[1:]; len(pat) > 0 && pat[0] == "**"; pat = pat[1:] {
			}
			for i := 0; i <= len(name); i++ {
				if segments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// ValidPath reports whether a path pattern is well formed (each segment a valid path.Match
// pattern), for the policy's checks.
func ValidPath(glob string) error {
	for _, seg := range strings.Split(strings.ReplaceAll(glob, `\`, "/"), "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("malformed pattern segment %q", seg)
		}
	}
	return nil
}
