package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Problem is one thing wrong with a spec, at a path of its YAML: mapping keys and 0-based
// sequence indexes joined with dots ("context.read.0.format"), so that the decoder can point at
// the line. Needs, when set, is the path of a missing item the problem is about ("format needs
// file"): a decoder that could not read that item has said so already.
type Problem struct{ Path, Msg, Needs string }

// Check checks a decoded spec against everything the schema cannot say (a step's sources, the
// references between steps, the grammar of patterns, flags and templates) and returns every
// problem, so that a mistake in a provider file is reported with its file and line when the
// file is loaded, not discovered as a wrong decision later.
func Check(s *Spec) []Problem {
	var c checker
	c.spec(s)
	c.examples(s)
	return c.problems
}

// SetDefaults fills in the defaults the schema documents: Noun "context", Bind.Place
// [PlaceEnd].
func (s *Spec) SetDefaults() {
	if s.Noun == "" {
		s.Noun = "context"
	}
	if s.Bind != nil && s.Bind.Place == "" {
		s.Bind.Place = PlaceEnd
	}
}

type checker struct {
	problems []Problem
	lets     []string // Let names read so far
	all      []string // every Let name of the read list
}

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// needs adds a problem that holds because the item at needs is missing.
func (c *checker) needs(path, needs, msg string) {
	c.problems = append(c.problems, Problem{Path: path, Msg: msg, Needs: needs})
}

func at(path string, i int) string { return fmt.Sprintf("%s.%d", path, i) }

func (c *checker) spec(s *Spec) {
	switch {
	case s.Name == "":
		c.add("name", "name is required")
	case !isName(s.Name):
		c.add("name", "name %q must be lowercase letters, digits and -, starting with a letter", s.Name)
	}
	if len(s.Commands) == 0 {
		c.add("commands", "commands is required: the command words this provider guards")
	}
	for i, w := range s.Commands {
		if w == "" || strings.ContainsAny(w, " \t/\\") {
			c.add(at("commands", i), "command %q must be one word without a directory", w)
		}
	}
	for i, f := range s.ValueFlags {
		c.flag(at("value_flags", i), f)
	}
	for i, f := range s.DirFlags {
		c.flag(at("dir_flags", i), f)
	}
	for i, o := range s.Options {
		c.flag(at("options", i), o)
	}
	for i, o := range s.Overrides {
		if len(o.Flags) == 0 && len(o.Env) == 0 {
			c.add(at("overrides", i), "an override needs flags or env")
		}
		for j, f := range o.Flags {
			c.flag(at(at("overrides", i)+".flags", j), f)
		}
		for j, e := range o.Env {
			if !validVar(e) {
				c.add(at(at("overrides", i)+".env", j), "env %q is not a variable name", e)
			}
		}
		if _, err := regexp.Compile(o.Match); err != nil {
			c.add(at("overrides", i)+".match", "match: %v", err)
		}
	}
	for i, r := range s.Redefine {
		c.redefine(at("redefine", i), r)
	}
	c.context(&s.Context)
	if n := len(s.Context.Read); s.Bind != nil && n > 0 && len(s.Context.Read[n-1].Replaced) > 0 {
		st := &s.Context.Read[n-1]
		for _, f := range s.Bind.Flags {
			if !slices.Contains(st.Flag, f) {
				c.add("bind.flags", "%s must be among the last read step's flags: replaced checks a binding by reading the call as bound", f)
			}
		}
		for _, v := range s.Bind.Env {
			if !slices.Contains(st.Env, v) {
				c.add("bind.env", "%s must be among the last read step's env: replaced checks a binding by reading the call as bound", v)
			}
		}
	}
	if b := s.Bind; b != nil {
		if len(b.Flags) == 0 && len(b.Env) == 0 {
			c.add("bind", "bind needs flags or env")
		}
		for i, f := range b.Flags {
			c.flag(at("bind.flags", i), f)
		}
		for i, e := range b.Env {
			if !validVar(e) {
				c.add(at("bind.env", i), "%q is not an environment variable name", e)
			}
		}
		if b.Place != "" && b.Place != PlaceEnd && b.Place != PlaceAfterCommand {
			c.add("bind.place", "place must be end or after-command, not %q", b.Place)
		}
		for i, p := range b.Reject {
			c.pattern(at("bind.reject", i), p)
		}
	}
	for i := range s.Switch {
		path := at("switch", i)
		if c.pattern(path+".command", s.Switch[i].Command) && strings.HasPrefix(s.Switch[i].Command, "-") {
			c.add(path+".command", "a switch command starts with a subcommand word")
		}
		if len(s.Switch[i].ValueFlags) > 0 {
			c.add(path+".value_flags", "value_flags belongs to switched_by entries: this CLI's own are the provider's value_flags")
		}
		c.switchEntry(path, &s.Switch[i], &s.Context)
	}
	for i := range s.SwitchedBy {
		sw := &s.SwitchedBy[i]
		path := at("switched_by", i)
		if sw.Lookup != "" || sw.Sets != "" {
			c.add(path, "a switched_by entry has no lookup or sets: they read this provider's own state")
		}
		c.switchEntry(path, sw, &s.Context)
		for j, f := range sw.ValueFlags {
			c.flag(at(path+".value_flags", j), f)
		}
		c.otherCLI(path, sw.Command, s, "switch")
	}
	for i, r := range s.RedefinedBy {
		path := at("redefined_by", i)
		c.redefine(path, r)
		c.otherCLI(path+".command", r.Command, s, "redefine")
	}
	if s.Shares != "" && (!isName(s.Shares) || s.Shares == s.Name) {
		c.add("shares", "shares %q must name another provider", s.Shares)
	}
	for i, f := range s.Help {
		c.flag(at("help", i), f)
	}
	for i, p := range s.Exempt {
		c.pattern(at("exempt", i), p)
	}
	for i, d := range s.Destructive {
		path := at("destructive", i)
		c.pattern(path+".match", d.Match)
		if d.Tier != TierAsk && d.Tier != TierDeny {
			c.add(path+".tier", "tier must be ask or deny, not %q", d.Tier)
		}
		if strings.TrimSpace(d.Why) == "" {
			c.add(path+".why", "why is required: it is what the reason tells the agent")
		}
		for j, u := range d.Unless {
			if name, value, ok := strings.Cut(u, "="); !ok || !strings.HasPrefix(name, "-") || value == "" {
				c.add(at(path+".unless", j), "%q is not a flag with a value (--dry-run=client)", u)
			}
		}
	}
}

// redefine checks a redefine entry apart from its command, which redefine and redefined_by
// check differently.
func (c *checker) redefine(path string, r Redefine) {
	if r.Command == "" {
		c.add(path, "redefine needs a command")
	}
	if _, err := regexp.Compile(r.Match); err != nil {
		c.add(path+".match", "match: %v", err)
	}
	for j, f := range r.Current {
		c.flag(at(path+".current", j), f)
	}
	if r.Selected && (r.Arg != 0 || len(r.Current) > 0 || r.Match != "") {
		c.add(path+".selected", "selected names the context the call selects: drop arg, match and current")
	}
	if r.CurrentAlways && (r.Arg != 0 || len(r.Current) > 0 || r.Match != "" || r.Selected) {
		c.add(path+".current_always", "current_always redefines the current context: drop arg, match, current and selected")
	}
	for j, x := range r.Except {
		c.pattern(at(path+".except", j), x)
	}
}

// otherCLI checks the command of a switched_by or redefined_by entry: a pattern whose first word
// is another CLI's command word.
func (c *checker) otherCLI(path, command string, s *Spec, own string) {
	if !c.pattern(path, command) {
		return
	}
	w := strings.Fields(command)[0]
	switch {
	case strings.HasPrefix(w, "-") || strings.Contains(w, "*"):
		c.add(path, "%q must start with the command word of the other CLI", command)
	case slices.Contains(s.Commands, w):
		c.add(path, "%q is this provider's own command: list it under %s", command, own)
	}
}

func (c *checker) examples(s *Spec) {
	for i, ex := range s.Examples {
		path := at("examples", i)
		if strings.TrimSpace(ex.Command) == "" {
			c.add(path+".command", "an example needs a command")
		}
		if ex.Shell != "" && ex.Shell != "bash" && ex.Shell != "powershell" {
			c.add(path+".shell", "shell must be bash or powershell, not %q", ex.Shell)
		}
		if ex.Active != nil && ex.Active.ID == "" {
			c.add(path+".active", "active needs an id")
		}
		for j, k := range ex.Known {
			if k.ID == "" {
				c.add(at(path+".known", j), "a known context needs an id")
			}
		}
		switch ex.Unbound {
		case "", "allow", "fix", "ask", "deny":
		default:
			c.add(path+".unbound", "unbound must be allow, fix, ask or deny, not %q", ex.Unbound)
		}
		if ex.Default != "" && len(ex.Allow) == 0 {
			c.add(path+".default", "a default needs an allow list")
		}
		c.expect(path+".expect", ex.Expect)
	}
}

// expect checks what an example or a policy test expects.
func (c *checker) expect(path string, e Expect) {
	switch {
	case e.Decision == "":
		c.add(path, "expect needs a decision: %s", strings.Join(Decisions, ", "))
	case !slices.Contains(Decisions, e.Decision):
		c.add(path+".decision", "decision %q is not one of %s", e.Decision, strings.Join(Decisions, ", "))
	}
}

// CheckExpect checks what a policy test expects, as an example's expect is checked; the
// problems' paths are relative to path.
func CheckExpect(path string, e Expect) []Problem {
	var c checker
	c.expect(path, e)
	return c.problems
}

func (c *checker) context(ctx *Context) {
	if len(ctx.Read) == 0 {
		c.add("context.read", "context.read is required: the steps that read the active context")
		return
	}
	c.steps("context.read", ctx.Read)
	final := &ctx.Read[len(ctx.Read)-1]
	if k := ctx.Known; k != nil {
		if len(final.File) == 0 {
			c.add("context.known", "known needs the last read step to read a file")
		}
		if k.List == "" {
			c.add("context.known.list", "known.list is required: the gjson path of the list")
		}
		if k.ID == "" {
			c.add("context.known.id", "known.id is required: the gjson path of an id in the list")
		}
		c.gjsonPath("context.known.list", k.List)
		for _, name := range slices.Sorted(maps.Keys(k.Fields)) {
			switch path := k.Fields[name]; {
			case !isLet(name):
				c.add("context.known.fields."+name, "field %q must be lowercase letters, digits and _", name)
			case name == "id" || name == "name":
				c.add("context.known.fields."+name, "field %q is always there: it is known.%s", name, name)
			case path == "":
				c.add("context.known.fields."+name, "field %q needs the gjson path of its value within an element", name)
			}
		}
	}
	for i := range ctx.Listed {
		c.listing(at("context.listed", i), &ctx.Listed[i])
	}
	for i, t := range ctx.DefinedIn {
		c.template(at("context.defined_in", i), t)
	}
	for i, e := range ctx.Exists {
		path := at("context.exists", i)
		switch {
		case (e.Equals == "") == (e.Path == ""):
			c.add(path, "an exists check needs exactly one of equals and path")
		case e.Path != "":
			c.template(path+".path", e.Path)
		}
	}
}

// listing checks one of context.listed.
func (c *checker) listing(path string, l *Listing) {
	if len(l.File) == 0 {
		c.add(path+".file", "file is required: the files that define the contexts")
	}
	st := l.Step()
	for _, t := range st.Templates() {
		c.template(path+".file", t)
		if strings.Count(t, "*") > 1 {
			c.add(path+".file", "%q has more than one *: one element of the path may match", t)
		}
	}
	if l.Format != "" && !slices.Contains(Formats(), l.Format) {
		c.add(path+".format", "format must be one of %v, not %q", Formats(), l.Format)
	}
	switch {
	case l.ID == "":
		c.add(path+".id", "id is required: the gjson path of an id, or * for what the * of file matched")
	case l.Format == "" && (l.ID != "*" || l.Name != "" && l.Name != "*" || l.List != ""):
		c.add(path+".format", "without format a file is only found: id and name must be *, and there is no list")
	}
	c.gjsonPath(path+".list", l.List)
	for _, p := range [][2]string{{"id", l.ID}, {"name", l.Name}} {
		if p[1] != "*" {
			c.gjsonPath(path+"."+p[0], p[1])
		}
	}
	if l.Match != "" {
		if re, err := regexp.Compile(l.Match); err != nil {
			c.add(path+".match", "match is not a regular expression: %v", err)
		} else if re.NumSubexp() > 1 {
			c.add(path+".match", "match has %d groups; the first one alone is the id", re.NumSubexp())
		}
	}
}

// steps checks a list of read steps; afterwards c.lets holds their Let names.
func (c *checker) steps(path string, steps []Step) {
	for _, st := range steps {
		if st.Let != "" {
			c.all = append(c.all, st.Let)
		}
	}
	for i := range steps {
		c.step(at(path, i), &steps[i], i == len(steps)-1)
	}
}

func (c *checker) step(path string, st *Step, final bool) {
	switch {
	case final && st.Let != "":
		c.add(path+".let", "the last step gives the context and has no let")
	case !final && st.Let == "":
		c.add(path, "every step but the last needs a let: only the last one gives the context")
	case st.Let != "":
		switch {
		case !isLet(st.Let):
			c.add(path+".let", "let %q must be lowercase letters, digits and _", st.Let)
		case st.Let == "target" || st.Let == "value":
			c.add(path+".let", "let %q is reserved for switch lookups and exists paths", st.Let)
		case slices.Contains(c.lets, st.Let):
			c.add(path+".let", "let %q is already defined", st.Let)
		}
	}
	if len(st.Flag) == 0 && len(st.Env) == 0 && len(st.File) == 0 && st.Default == "" {
		c.add(path, "a step needs at least one of flag, env, file and default")
	}
	for i, f := range st.Flag {
		c.flag(at(path+".flag", i), f)
	}
	for i, e := range st.Env {
		if !validVar(e) {
			c.add(at(path+".env", i), "%q is not an environment variable name", e)
		}
	}
	for i, o := range st.OverriddenBy {
		if strings.HasPrefix(o, "-") {
			c.flag(at(path+".overridden_by", i), o)
		} else if !validVar(o) {
			c.add(at(path+".overridden_by", i), "%q is neither a flag nor an environment variable name", o)
		}
	}
	switch {
	case st.Take != "" && st.Take != "path" && st.Take != "dir":
		c.add(path+".take", "take must be path or dir, not %q", st.Take)
	case st.Take != "" && st.Let == "":
		c.add(path+".take", "take needs a let: the context itself is never a path")
	case st.Take != "" && (st.Value != "" || st.Format != "" || st.List):
		c.add(path+".take", "take uses the file found, not its content: drop value, format and list")
	}
	for i, r := range st.Replaced {
		p := at(path+".replaced", i)
		if !final {
			c.add(p, "only the last step has replaced: it is about the context itself")
		}
		if len(r.By) == 0 {
			c.add(p+".by", "replaced needs by: the variables and flags that replace the context")
		}
		for j, o := range r.By {
			if strings.HasPrefix(o, "-") {
				c.flag(at(p+".by", j), o)
			} else if !validVar(o) {
				c.add(at(p+".by", j), "%q is neither a flag nor an environment variable name", o)
			}
		}
	}
	switch {
	case st.Hash != "" && st.Hash != "sha1":
		c.add(path+".hash", "hash must be sha1, not %q", st.Hash)
	case st.Hash != "" && st.Let == "":
		c.add(path+".hash", "hash needs a let: it names a file, it is not a context")
	}
	if st.FindUp && (len(st.File) == 0 || st.List) {
		c.add(path+".find_up", "find_up needs file and no list")
	}
	for _, key := range []string{"file", "windows", "darwin"} {
		var ts Strings
		switch key {
		case "file":
			ts = st.File
		case "windows":
			ts = st.Windows
		case "darwin":
			ts = st.Darwin
		}
		if key != "file" && len(ts) > 0 && len(st.File) == 0 {
			c.needs(path+"."+key, path+".file", key+" needs file, which other systems use")
		}
		for i, t := range ts {
			p := path + "." + key
			if len(ts) > 1 {
				p = at(p, i)
			}
			c.template(p, t)
			c.notYet(p, t)
		}
	}
	hasFile := len(st.File) > 0 && st.Take == ""
	if st.Take != "" && len(st.File) == 0 {
		c.add(path+".take", "take needs file")
	}
	var names []string
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	formats := strings.Join(names, ", ")
	switch {
	case hasFile && st.Format == "":
		c.add(path+".format", "format is required with file: one of %s", formats)
	case hasFile && !slices.Contains(Formats(), st.Format):
		c.add(path+".format", "format must be one of %s, not %q", formats, st.Format)
	case !hasFile && st.Format != "":
		c.needs(path+".format", path+".file", "format needs file")
	}
	if st.List && !hasFile {
		c.needs(path+".list", path+".file", "list needs file")
	}
	switch {
	case hasFile && st.Value == "" && st.Format != FormatText:
		c.add(path+".value", "value is required: the gjson path of the value in the file")
	case !hasFile && st.Value != "":
		c.needs(path+".value", path+".file", "value needs file")
	}
	c.gjsonPath(path+".value", st.Value)
	for i, e := range st.Else {
		if e == "" || st.Value == "" {
			c.add(at(path+".else", i), "else needs value, and names a path")
		}
		c.gjsonPath(at(path+".else", i), e)
	}
	switch {
	case st.Name != "" && !final:
		c.add(path+".name", "only the last step has a display name")
	case st.Name != "" && !hasFile:
		c.needs(path+".name", path+".file", "name needs file")
	}
	c.gjsonPath(path+".name", st.Name)
	for i, u := range st.Unset {
		if u == "" {
			c.add(at(path+".unset", i), "an unset value must not be empty")
		}
	}
	if st.Default != "" {
		c.template(path+".default", st.Default)
		c.notYet(path+".default", st.Default)
	}
	if st.Let != "" {
		c.lets = append(c.lets, st.Let)
	}
}

// switchEntry checks a switch entry apart from its command, which switch and switched_by
// check differently.
func (c *checker) switchEntry(path string, sw *Switch, ctx *Context) {
	for i, f := range sw.Flags {
		c.flag(at(path+".flags", i), f)
	}
	for i, f := range sw.Unless {
		if !isFlag(f, true) {
			c.add(at(path+".unless", i), "%q is not a flag (-x, --name, --name=value)", f)
		}
	}
	if len(sw.Read) > 0 {
		// The steps' Let names are their own: the provider's are not theirs to read.
		lets, all := c.lets, c.all
		c.lets, c.all = nil, nil
		c.steps(path+".read", sw.Read)
		c.lets, c.all = lets, all
		if sw.Unknown || sw.Lookup != "" || sw.Sets != "" || sw.Creates {
			c.add(path+".read", "read works the target out: drop unknown, lookup, sets and creates")
		}
	}
	if sw.Arg < 0 {
		c.add(path+".arg", "arg must be 1 or more")
	}
	if sw.Arg > 0 && len(sw.Flags) > 0 {
		c.add(path+".arg", "arg and flags exclude each other: write two entries")
	}
	if sw.IndexBase < 0 {
		c.add(path+".index_base", "index_base must not be negative")
	}
	if sw.IndexBase != 0 && sw.Lookup == "" {
		c.add(path+".index_base", "index_base needs lookup")
	}
	if sw.Creates && (sw.Unknown || sw.Lookup != "" || sw.Sets != "") {
		c.add(path+".creates", "a switch that creates a context names it: drop unknown, lookup and sets")
	}
	if sw.Unknown && (len(sw.Flags) > 0 || sw.Arg != 0 || sw.Lookup != "" || sw.Sets != "") {
		c.add(path+".unknown", "an unknown switch has no target: drop flags, arg, lookup and sets")
	}
	if sw.Redefines && (sw.Unknown || sw.Sets != "") {
		c.add(path+".redefines", "redefines needs a target that the switch names and writes: not unknown, not sets")
	}
	if sw.Sets != "" {
		if !slices.Contains(c.lets, sw.Sets) {
			c.add(path+".sets", "sets %q names no let step", sw.Sets)
		}
		if sw.Lookup != "" {
			c.add(path+".lookup", "lookup and sets exclude each other")
		}
	}
	if sw.Lookup != "" {
		if last := ctx.Read[len(ctx.Read)-1]; len(last.File) == 0 {
			c.add(path+".lookup", "lookup needs the last read step to read a file")
		}
		c.gjsonPathWith(path+".lookup", sw.Lookup, "target")
	}
}

// gjsonPath checks that a gjson path template only refers to Let names read so far.
func (c *checker) gjsonPath(path, p string) { c.gjsonPathWith(path, p, "") }

func (c *checker) gjsonPathWith(path, p, extra string) {
	refs, err := PathRefs(p)
	if err != nil {
		c.add(path, "malformed ${…} in %q", p)
		return
	}
	for _, r := range refs {
		if r.Name != extra && !slices.Contains(c.lets, r.Name) {
			c.add(path, "${%s} in %q names no earlier let", r.Name, p)
		}
	}
}

func (c *checker) template(path, t string) {
	if t == "" {
		c.add(path, "empty path")
		return
	}
	set := func(string) (string, bool) { return "x", true }
	if _, _, err := Expand(t, set, "/", true); err != nil {
		c.add(path, "malformed ${…} in %q", t)
	}
}

// notYet refuses a path template that names the Let being defined or a later one: the value
// would silently come from an environment variable of that name instead.
func (c *checker) notYet(path, t string) {
	var names []string
	record := func(name string) (string, bool) {
		names = append(names, name)
		return "", false // unset, so that every default is expanded and its names seen too
	}
	if _, _, err := Expand(t, record, "/", true); err != nil {
		return // reported by template
	}
	for _, n := range names {
		if slices.Contains(c.all, n) && !slices.Contains(c.lets, n) {
			c.add(path, "${%s} in %q is read before let %s is", n, t, n)
		}
	}
}

// pattern checks a command pattern: words, `*`, `**` and flags (`--all`, `--method=delete`).
func (c *checker) pattern(path, p string) bool {
	words := strings.Fields(p)
	if len(words) == 0 {
		c.add(path, "empty command pattern")
		return false
	}
	ok := true
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "-"):
			if !isFlag(w, true) {
				c.add(path, "%q in %q is not a flag (-x, --name, --name=value)", w, p)
				ok = false
			}
		case w == "*" || w == "**":
		case strings.Contains(w, "=") || strings.Contains(strings.TrimSuffix(w, "*"), "*"):
			c.add(path, "%q in %q: * and ** are whole words or end a word (delete-*), = belongs to a flag", w, p)
			ok = false
		}
	}
	return ok
}

func (c *checker) flag(path, f string) {
	if !isFlag(f, false) {
		c.add(path, "%q is not a flag (-x, -name or --name)", f)
	}
}

// isFlag accepts -x, -name, --name and, with value, --name=value.
func isFlag(w string, value bool) bool {
	if !strings.HasPrefix(w, "-") {
		return false
	}
	name, v, hasValue := strings.Cut(w, "=")
	if hasValue && (!value || v == "") {
		return false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "-"), "-")
	if name == "" || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch == '-' || ch == '_' || ch == '.' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '-' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func isLet(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
