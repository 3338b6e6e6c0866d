package rules

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Writer says which arguments of a command name files that it writes, moves or deletes. The
// engine uses it for one thing: to keep an agent from changing ctxguard's own policy and hooks,
// which would switch the guard off. Which argument is a destination is knowledge about a command,
// so it is data (builtin/protect.yaml), like everything else the engine knows about commands.
type Writer struct {
	// Command is the command word as it appears in Call.Name.
	Command string `json:"command"`
	// Operands selects the positional arguments that are written.
	Operands Operands `json:"operands"`
	// Trees is set when an operand may be a directory that the command removes or moves whole
	// (rm -r, mv): a directory that holds a protected file is then protected too.
	Trees bool `json:"trees,omitempty"`
	// Requires lists flags one of which the command needs in order to write at all (sed -i). A
	// short flag also counts inside a cluster (-ni) and with an attached value (-i.bak).
	Requires []string `json:"requires,omitempty"`
	// Script lists the flags that give the command its script; without one of them, the first
	// operand is the script (sed 's/a/b/' f), not a file.
	Script []string `json:"script,omitempty"`
	// Values lists the flags that take the next word as their value.
	Values []string `json:"values,omitempty"`
	// Paths lists the flags whose value is a file or directory written (cp -t DIR, PowerShell's
	// -Path and -Destination); they take a value too.
	Paths []string `json:"paths,omitempty"`
	// Fold makes flag names case-insensitive (PowerShell parameters).
	Fold bool `json:"fold,omitempty"`
	// Sub makes the entry apply only to that subcommand (git rm): the command's first operand,
	// which is then not a file.
	Sub string `json:"sub,omitempty"`
	// Keys lists operands written KEY=PATH whose PATH is written (dd of=PATH).
	Keys []string `json:"keys,omitempty"`
	// Unnamed is set for a command that writes files its arguments do not name (git apply, patch
	// from stdin, git reset --hard, an archive extractor): it is asked about when the directory
	// it writes in holds a protected file. That directory is the value of a Paths flag (tar -C,
	// unzip -d, 7z -o) when one is given, else the call's own.
	Unnamed bool `json:"unnamed,omitempty"`
	// Except lists flags with which the command writes nothing (unzip -l lists an archive).
	Except []string `json:"except,omitempty"`
	// OldStyle is set for a command whose first argument may be a cluster of short flags
	// without the dash (tar xf a.tar); Requires and Except see the flags in it.
	OldStyle bool `json:"oldstyle,omitempty"`
}

// Operands says which positional arguments of a [Writer] are written.
type Operands string

const (
	OperandsAll   Operands = "all"
	OperandsFirst Operands = "first"
	// OperandsLast is a destination: the other operands are sources, whose base names the
	// command creates inside the destination when it is a directory.
	OperandsLast Operands = "last"
)

// Self is ctxguard's own configuration as the caller found it: the policy files, the providers
// folder and the harness files that run the hook. The guard implements it (it needs the file
// system, to resolve symlinks and to tell a directory from a file); nil turns protection off.
type Self interface {
	// Match reports whether writing path (absolute and clean) changes one of those files. With
	// tree, path may be a directory that is removed or moved whole. into lists base names the
	// command creates inside path when path is a directory (cp a b DIR).
	Match(path string, tree bool, into []string) (Protection, bool)
	// Mentions reports whether the text of a path that cannot be read statically may name one of
	// them ("$HOME/.claude/settings.json"), or a CLI's state file (a glob).
	Mentions(text string) bool
}

// Protection names a protected file for a reason.
type Protection struct {
	// Rule is the rule id: self.policy-write for policy and provider files, self.hook-write for
	// the harness files that run ctxguard.
	Rule string
	// What describes the file ("the project policy /repo/.ctxguard.yaml").
	What string
	// Ask is set for a CLI's state file (a kubeconfig, gh's hosts.yml): editing it moves the
	// shared context past every switch rule, but a human may mean it, so it is asked about.
	Ask bool
}

// selfReason is what an agent is told; it must say that the way forward is a human, so that it
// does not try other spellings of the same write.
const selfReason = "ctxguard's policy, hooks and records can only be changed by a human: tell the user what you want changed and why, and let them edit the file themselves"

// RuleLift is the rule that keeps `ctxguard lift` a human's command: the engine denies it in an
// agent's line, as the guard denies writes to the lift file.
const RuleLift = "self.lift"

// liftReason is what an agent is told when it tries to lift a rule.
const liftReason = "lifting a ctxguard rule is a human's decision: tell the user which rule stops you and why, and let them run `ctxguard lift RULE` in their own terminal if they agree"

// liftText finds `ctxguard lift` in a string that another program may run (script -c '…',
// python -c "os.system('…')", ssh host '…'), which the shell reader sees only as text.
var liftText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bctxguard(\.exe)?['"]?\s+['"]?lift\b`)
})

// LiftList and LiftClear name the flags of `ctxguard lift` that grant nothing: they list the
// lifts, or take them away. The command defines its flags by these names.
const (
	LiftList  = "list"
	LiftClear = "clear"
)

// liftCall reports whether c grants a lift: `ctxguard lift …` (not --list, --clear or --help,
// which only read or take lifts away), or a word of any call that holds such a command line.
func liftCall(c *Call) bool {
	grants := func(args []string) bool {
		for _, a := range args {
			if a == "--"+LiftList || a == "--"+LiftClear || strings.HasPrefix(a, "--"+LiftClear+"=") || a == "-h" || a == "--help" {
				return false
			}
		}
		return true
	}
	if strings.EqualFold(c.Name, "ctxguard") {
		for i, w := range c.Args {
			if w.Literal && !strings.HasPrefix(w.Value, "-") {
				var rest []string
				for _, a := range c.Args[i+1:] {
					rest = append(rest, a.Value)
				}
				return w.Value == "lift" && grants(rest)
			}
		}
	}
	for _, w := range c.Args {
		// The expression is tried only on words that may hold the command, not on every word.
		if len(w.Value) < len("ctxguard lift") || !strings.Contains(strings.ToLower(w.Value), "ctxguard") {
			continue
		}
		if loc := liftText().FindStringIndex(w.Value); loc != nil && grants(strings.Fields(w.Value[loc[1]:])) {
			return true
		}
	}
	return false
}

// protect checks the files a call writes against ctxguard's own configuration, and keeps the
// agent from lifting ctxguard's rules.
func (e *engine) protect(c *Call) (trace, bool) {
	if !e.guarded || e.in.Self == nil {
		return trace{}, false
	}
	t := trace{CallTrace: CallTrace{Provider: "ctxguard", Argv: values(c), Via: c.Via, Kind: KindSelf}}
	if c.Name == "" {
		t.Argv = []string{c.NameWord.Value}
	}
	if liftCall(c) {
		t.decide(VerdictDeny, RuleLift, fmt.Sprintf("[ctxguard/%s] %s lifts a ctxguard rule; %s", RuleLift, describeCall(c), liftReason))
	}
	for _, w := range c.Writes {
		e.checkWrite(&t, c, w, false, nil)
	}
	for _, wr := range e.writers(c) {
		args := appended(c)
		if wr.Sub != "" {
			args = withoutSub(args, wr.Sub)
		}
		if wr.Unnamed {
			if !required(wr, args) || wr.Operands == OperandsFirst && firstOperand(args) != "" {
				continue
			}
			for _, d := range destinations(wr, args) {
				p, ok := e.absolute(c, d)
				if !ok {
					e.dynamicWrite(&t, c, d)
					continue
				}
				if pr, hit := e.in.Self.Match(p, true, nil); hit && !pr.Ask {
					t.Matched = append(t.Matched, p)
					t.decide(VerdictAsk, "self.unnamed-write", fmt.Sprintf("[ctxguard/self.unnamed-write] %s writes files it does not name, in a directory that holds %s; %s",
						describeCall(c), pr.What, selfReason))
				}
			}
			continue
		}
		for _, tg := range targets(wr, args) {
			e.checkWrite(&t, c, tg.word, wr.Trees, tg.into)
		}
	}
	return t, t.Verdict > VerdictAllow
}

// appended is a call's arguments with what a wrapper appends to them, when the line shows it
// (Call.May).
func appended(c *Call) []Word {
	if !c.ArgsAppended {
		return c.Args
	}
	args := c.Args
	for _, m := range c.May {
		if m.Literal && m.Pos == c.NameWord.Pos && m.End == c.NameWord.End {
			args = append(slices.Clip(args), m)
		}
	}
	return args
}

// writers are the entries for a call's command (and subcommand). The entries are grouped by
// the length of their command in characters, which two names that strings.EqualFold matches
// share: a call compares its name with a few entries, not with all of them.
func (e *engine) writers(c *Call) []*Writer {
	if c.Name == "" {
		return nil
	}
	if e.writersByLen == nil {
		e.writersByLen = map[int][]*Writer{}
		for i := range e.in.Writers {
			w := &e.in.Writers[i]
			n := utf8.RuneCountInString(w.Command)
			e.writersByLen[n] = append(e.writersByLen[n], w)
		}
	}
	var out []*Writer
	for _, w := range e.writersByLen[utf8.RuneCountInString(c.Name)] {
		if w.Command != c.Name && !(w.Fold && strings.EqualFold(w.Command, c.Name)) {
			continue
		}
		if w.Sub != "" && firstOperand(c.Args) != w.Sub {
			continue
		}
		out = append(out, w)
	}
	return out
}

// firstOperand is the first word that is not an option (git's subcommand; `git -C dir rm` is
// not followed).
func firstOperand(args []Word) string {
	for _, a := range args {
		if !isFlag(a) {
			return a.Value
		}
	}
	return ""
}

func withoutSub(args []Word, sub string) []Word {
	for i, a := range args {
		if !isFlag(a) && a.Value == sub {
			return append(slices.Clip(args[:i]), args[i+1:]...)
		}
	}
	return args
}

// required reports whether the call has one of the writer's required flags, if it has any, and
// none of its Except flags.
func required(wr *Writer, args []Word) bool {
	has := func(names []string) bool {
		for i, a := range args {
			if wr.OldStyle && i == 0 && a.Literal && !isFlag(a) && a.Value != "" && namesFlag(names, "-"+a.Value, false) {
				return true
			}
			if isFlag(a) && namesFlag(names, flagName(a.Value), wr.Fold) {
				return true
			}
		}
		return false
	}
	return (len(wr.Requires) == 0 || has(wr.Requires)) && (len(wr.Except) == 0 || !has(wr.Except))
}

// destinations are the directories an unnamed writer writes in: the values of its Paths flags
// (-C DIR, --directory=DIR, -oDIR), or the call's own directory.
func destinations(wr *Writer, args []Word) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !isFlag(a) {
			continue
		}
		name, val, hasVal := strings.Cut(a.Value, "=")
		for _, n := range wr.Paths {
			switch {
			case hasVal && (name == n || wr.Fold && strings.EqualFold(name, n)):
				out = append(out, Word{Value: val, Literal: a.Literal, Pos: a.Pos, End: a.End})
			case a.Value == n || wr.Fold && strings.EqualFold(a.Value, n):
				if i+1 < len(args) {
					out = append(out, args[i+1])
				}
			case len(n) == 2 && n[1] != '-' && strings.HasPrefix(a.Value, n) && len(a.Value) > 2:
				// A short flag with its directory attached (7z -o/tmp/x).
				out = append(out, Word{Value: a.Value[2:], Literal: a.Literal, Pos: a.Pos, End: a.End})
			default:
				continue
			}
			break
		}
	}
	if len(out) == 0 {
		out = append(out, Word{Value: ".", Literal: true})
	}
	return out
}

// dynamicWrite asks about a written path (or the folder an unnamed writer writes in) that is not
// literal, when its text may name one of ctxguard's files or a CLI's state file.
// What the line shows such a path may be (Call.May) counts as its text.
func (e *engine) dynamicWrite(t *trace, c *Call, w Word) {
	what := w.Value
	if !e.in.Self.Mentions(w.Value) {
		may, ok := e.mayName(c, w)
		if !ok {
			return
		}
		what = fmt.Sprintf("%s (%s)", w.Value, may)
	}
	t.Matched = append(t.Matched, w.Value)
	t.decide(VerdictAsk, "self.dynamic-write", fmt.Sprintf("[ctxguard/self.dynamic-write] %s writes to %s, which is not a literal path and may be ctxguard's policy or hook configuration, or a CLI's state file — write the path out; %s",
		describeCall(c), what, selfReason))
}

// mayName is what the line shows a written word may be (Call.May) when that may name a
// protected file.
func (e *engine) mayName(c *Call, w Word) (string, bool) {
	for _, m := range c.May {
		if m.Pos == w.Pos && m.End == w.End && m.Pos >= 0 && e.in.Self.Mentions(m.Value) {
			return m.Value, true
		}
	}
	return "", false
}

// checkWrite decides one written path; a literal one that stands for others (find's {}) is
// also decided by what it may be.
func (e *engine) checkWrite(t *trace, c *Call, w Word, tree bool, into []string) {
	p, ok := e.absolute(c, w)
	if !ok {
		e.dynamicWrite(t, c, w)
		return
	}
	pr, hit := e.in.Self.Match(p, tree, into)
	if !hit {
		if _, ok := e.mayName(c, w); ok {
			e.dynamicWrite(t, c, w)
		}
		return
	}
	t.Matched = append(t.Matched, p)
	if pr.Ask {
		t.decide(VerdictAsk, pr.Rule, fmt.Sprintf("[ctxguard/%s] %s would change %s, which moves the shared context of every session past the switch rules — a human decides; to change the context, use the CLI's own switch command",
			pr.Rule, describeCall(c), pr.What))
		return
	}
	t.decide(VerdictDeny, pr.Rule, fmt.Sprintf("[ctxguard/%s] %s would change %s; %s", pr.Rule, describeCall(c), pr.What, selfReason))
}

// describeCall names a call in a reason: its text, or the tool for a file tool's write.
func describeCall(c *Call) string {
	if c.Src == "" {
		return "the " + c.NameWord.Value + " tool"
	}
	if c.Name == "" && c.Start == c.End {
		return "a redirection"
	}
	return "`" + strings.TrimSpace(c.Src[c.Start:c.End]) + "`"
}

// absolute resolves a written path against the call's directory. A path that depends on the run
// time (a variable, a glob, a directory ctxguard lost track of) is not resolved.
func (e *engine) absolute(c *Call, w Word) (string, bool) {
	v := w.Value
	dir := e.dir(nil, c, argv{})
	// PowerShell expands a leading ~ in a path argument too.
	if !w.Literal || e.in.Shell == ShellPowerShell && (v == "~" || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, `~\`)) {
		// The shell expands a leading ~ to the home directory; nothing else is static.
		rest, ok := strings.CutPrefix(v, "~")
		if !ok || rest != "" && rest[0] != '/' && rest[0] != '\\' || strings.ContainsAny(rest, "$`\"'*?[{~") || e.in.Home == "" {
			return "", false
		}
		dir, v = e.in.Home, "."+rest
	}
	if v == "" {
		return "", false
	}
	return e.place(dir, v)
}

// target is one argument a command writes, with the base names it creates inside it.
type target struct {
	word Word
	into []string
}

// targets picks the written arguments of a call by its writer entry.
func targets(wr *Writer, args []Word) []target {
	var ops, paths []Word
	script, required := false, len(wr.Requires) == 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Literal && a.Value == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if k, v, ok := strings.Cut(a.Value, "="); ok && slices.Contains(wr.Keys, k) {
			paths = append(paths, Word{Value: v, Literal: a.Literal, Pos: a.Pos, End: a.End})
			continue
		}
		if !isFlag(a) {
			ops = append(ops, a)
			continue
		}
		name, val, hasVal := strings.Cut(a.Value, "=")
		if namesFlag(wr.Requires, name, wr.Fold) {
			required = true
		}
		// A short flag with its value attached (-s0) does not take the next word.
		short := !wr.Fold && len(a.Value) > 2 && a.Value[1] != '-'
		switch {
		case namesFlag(wr.Paths, name, wr.Fold):
			if hasVal {
				paths = append(paths, Word{Value: val, Literal: a.Literal, Pos: a.Pos, End: a.End})
			} else if i+1 < len(args) {
				paths = append(paths, args[i+1])
				i++
			}
		case namesFlag(wr.Script, name, wr.Fold) || attached(wr.Script, a.Value):
			script = true
			if !hasVal && !attached(wr.Script, a.Value) && i+1 < len(args) {
				i++
			}
		case namesFlag(wr.Values, name, wr.Fold):
			if !hasVal && !short && i+1 < len(args) {
				i++
			}
		}
	}
	if !required {
		return nil
	}
	if len(wr.Script) > 0 && !script && len(ops) > 0 {
		ops = ops[1:]
	}
	var out []target
	switch wr.Operands {
	case OperandsAll:
		for _, o := range ops {
			out = append(out, target{word: o})
		}
	case OperandsFirst:
		if len(ops) > 0 && len(paths) == 0 {
			out = append(out, target{word: ops[0]})
		}
	case OperandsLast:
		src := ops
		if len(paths) == 0 && len(ops) > 0 {
			paths, src = ops[len(ops)-1:], ops[:len(ops)-1]
		}
		var into []string
		for _, s := range src {
			if s.Literal {
				into = append(into, filepath.Base(s.Value))
			}
		}
		for _, p := range paths {
			out = append(out, target{word: p, into: into})
		}
		return out
	}
	for _, p := range paths {
		out = append(out, target{word: p})
	}
	return out
}

// namesFlag reports whether flag is one of names: exactly, or for a short name inside a cluster
// of single-letter flags (-ni for -i) or with an attached value (-i.bak).
func namesFlag(names []string, flag string, fold bool) bool {
	for _, n := range names {
		switch {
		case n == flag, fold && strings.EqualFold(n, flag):
			return true
		case fold && len(flag) > 2 && strings.HasPrefix(strings.ToLower(n), strings.ToLower(flag)):
			// PowerShell accepts any unambiguous prefix of a parameter name (-Dest).
			return true
		case len(n) == 2 && n[0] == '-' && n[1] != '-' && len(flag) > 2 && flag[0] == '-' && flag[1] != '-' && !fold:
			// A cluster may start with an option's number (perl's -0777pi).
			if flag[1] == n[1] || strings.IndexByte(letters(strings.TrimLeft(flag[1:], "0123456789")), n[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// letters is the leading run of ASCII letters of a short-flag cluster ("ni.bak" -> "ni").
func letters(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return s[:i]
		}
	}
	return s
}

// attached reports whether a short script flag carries its value (-es/a/b/).
func attached(names []string, flag string) bool {
	for _, n := range names {
		if len(n) == 2 && n[1] != '-' && strings.HasPrefix(flag, n) && len(flag) > 2 {
			return true
		}
	}
	return false
}
