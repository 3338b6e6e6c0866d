package shell

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

// PowerShell is read by a small tokenizer of its own: no PowerShell parser exists for Go, and
// the guard needs only the commands a line runs, their words and where those words are. It
// reads statements separated by `;`, newlines, `&&` and `||` (PowerShell 7) and `&` (a
// background job), pipelines, the call operators `&` and `.`, script blocks `{ … }`, groups
// `( … )`, subexpressions `$( … )` and `@( … )` (also inside double-quoted strings), the
// keywords of compound statements (their conditions and bodies are read; the keyword is not a
// call), assignments (`$env:NAME = 'x'` sets the environment of every later call, as export does
// in bash: PowerShell's environment is the process's), redirections, comments `#` and `<# #>`,
// backtick escapes, single-quoted strings ('' is a quote), double-quoted strings (`" and "" are
// quotes; `$` expands), here-strings @'…'@ and @"…"@, and `--%` (the rest of the line goes
// verbatim to a native command). Typographic quotes count as quotes, as they do in PowerShell.
//
// Strings run again as PowerShell (Invoke-Expression/iex with a literal string or a literal piped
// into it, pwsh/powershell -Command) or as a bash script (bash/sh -c) are read as scripts, their
// calls Nested. A command started in a way that cannot be followed (Start-Process, cmd /c, iex of
// a non-literal string) is reported with Name "" and its text as a non-literal command word, so
// that the engine asks about it when it names a guarded command. A line the tokenizer cannot read
// is reported as one such call too, never as an error: PowerShell has more syntax than ctxguard
// models, and the engine asks about unreadable text only when it names a guarded command.
//
// Command names are lowercased (PowerShell finds commands without regard to case) and a path, a
// Windows suffix and .ps1 are stripped. A word is literal only when its value is known without
// running anything: a variable, a subexpression, a script block, an array (`a,b`) or a word that
// PowerShell would read as a number (`0x10`, `1kb`) is not.

// ParsePowerShell returns every command a PowerShell line would run, in execution order, with
// byte offsets into src. It fails only for a NUL byte, which no PowerShell line sent by a harness
// contains and which would make offsets unreliable.
func ParsePowerShell(src string) ([]rules.Call, error) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, &SyntaxError{Offset: i, Msg: "NUL byte in command line"}
	}
	return psParse(src, false, nil, 0), nil
}

// psParse reads one text; on a syntax error it reports the text as one opaque call.
func psParse(src string, nested bool, via []string, depth int) []rules.Call {
	p := &psParser{src: src, nested: nested, via: via, depth: depth}
	err := p.run()
	if err != nil {
		text := rules.Word{Value: src, Pos: 0, End: len(src)}
		return []rules.Call{{NameWord: text, Args: []rules.Word{text}, Via: appendVia(via, "powershell (unreadable: "+err.Error()+")"),
			Src: src, Nested: nested, Start: 0, End: len(src)}}
	}
	return p.calls
}

// errPS is a PowerShell syntax error (or a construct too deep to follow).
type errPS struct {
	at  int
	msg string
}

func (e *errPS) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.at) }

type psParser struct {
	src    string
	i      int
	nested bool
	via    []string
	depth  int // re-parse depth
	nest   int // bracket depth within src
	calls  []rules.Call
	env    []rules.Assign
	dir    string
	dirUnk bool
}

func (p *psParser) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*errPS)
			if !ok {
				// A bug here must not crash the hook; the line is reported as unreadable, which
				// the engine asks about when it names a guarded command.
				e = &errPS{at: p.i, msg: fmt.Sprintf("internal error: %v", r)}
			}
			err = e
		}
	}()
	p.statements(0)
	if p.i < len(p.src) {
		p.fail("unexpected " + strconv.Quote(p.src[p.i:p.i+1]))
	}
	return nil
}

func (p *psParser) fail(msg string) { panic(&errPS{at: p.i, msg: msg}) }

func (p *psParser) peek(k int) byte {
	if p.i+k < len(p.src) {
		return p.src[p.i+k]
	}
	return 0
}

func (p *psParser) rest() string { return p.src[p.i:] }

// command reads a command from its name word. op is the call operator, if any.
func (p *psParser) command(start int, op string, pipeIn *rules.Word) {
	nw := p.word()
	var args []rules.Word
	var writes []rules.Word
	for {
		p.space(false)
		if p.atEnd() {
			break
		}
		switch c := p.peek(0); {
		case c == '>' || c == '<' || c >= '1' && c <= '6' && p.peek(1) == '>' || c == '*' && p.peek(1) == '>':
			p.redirect(&writes)
			continue
		case strings.HasPrefix(p.rest(), "--%"):
			args = append(args, p.stopParsing()...)
			continue
		}
		args = append(args, p.word())
	}
	name := psCommandName(nw)
	via := p.via
	if op != "" {
		via = appendVia(via, op)
	}
	end := nw.End
	if len(args) > 0 {
		end = args[len(args)-1].End
	}
	call := rules.Call{Name: name, NameWord: nw, Args: args, Env: p.envCopy(), Dir: p.dir, DirUnknown: p.dirUnk,
		Via: via, Src: p.src, Nested: p.nested, Start: nw.Pos, End: end, Writes: writes}
	// Calls in the command's own words (groups, subexpressions) ran first and are already
	// listed; the command follows them.
	p.calls = append(p.calls, call)
	p.special(call, pipeIn)
}

func (p *psParser) envCopy() []rules.Assign {
	if len(p.env) == 0 {
		return nil
	}
	out := make([]rules.Assign, len(p.env))
	copy(out, p.env)
	return out
}

// inherited is the environment as a script run from this text sees it: the values have no
// position in that script's Src.
func (p *psParser) inherited() []rules.Assign {
	out := p.envCopy()
	for k := range out {
		out[k].Value.Pos, out[k].Value.End = -1, -1
	}
	return out
}

// special follows what a command runs in turn, and tracks the directory.
func (p *psParser) special(c rules.Call, pipeIn *rules.Word) {
	switch c.Name {
	case "set-location", "sl", "cd", "chdir", "push-location", "pushd":
		p.cd(c.Args)
	case "pop-location", "popd":
		p.dirUnk = true
	case "invoke-expression", "iex":
		var arg *rules.Word
		for i := 0; i < len(c.Args); i++ {
			a := c.Args[i]
			if a.Literal && strings.HasPrefix(strings.ToLower(a.Value), "-c") && i+1 < len(c.Args) {
				arg = &c.Args[i+1]
				break
			}
			if !psFlag(a) {
				arg = &c.Args[i]
				break
			}
		}
		if arg == nil {
			arg = pipeIn
		}
		p.rerun(c, arg, "iex", true)
	case "pwsh", "powershell":
		for i, a := range c.Args {
			if a.Literal && psFlag(a) && len(a.Value) >= 2 && strings.HasPrefix("-command", strings.ToLower(a.Value)) && i+1 < len(c.Args) {
				p.rerun(c, &c.Args[i+1], c.Name+" -Command", true)
				return
			}
			if a.Literal && psFlag(a) && (strings.EqualFold(a.Value, "-EncodedCommand") || strings.EqualFold(a.Value, "-e") || strings.EqualFold(a.Value, "-ec") || strings.EqualFold(a.Value, "-f") || strings.EqualFold(a.Value, "-File")) {
				p.opaque(c, c.Name+" "+a.Value)
				return
			}
		}
	case "bash", "sh", "zsh", "dash", "wsl":
		for i, a := range c.Args {
			if a.Literal && a.Value == "-c" && i+1 < len(c.Args) {
				p.rerun(c, &c.Args[i+1], c.Name+" -c", false)
				return
			}
		}
	case "start-process", "saps", "start", "cmd", "invoke-command", "icm", "start-job", "start-threadjob":
		// What these run is a string or a path that ctxguard does not follow.
		if c.Name == "invoke-command" || c.Name == "icm" || c.Name == "start-job" || c.Name == "start-threadjob" {
			if !hasNonLiteralArg(c) {
				return // a script block, already read
			}
		}
		p.opaque(c, c.Name)
	}
}

func hasNonLiteralArg(c rules.Call) bool {
	for _, a := range c.Args {
		if !a.Literal && !strings.HasPrefix(a.Value, "{") {
			return true
		}
	}
	return false
}

// opaque reports a call that starts another command ctxguard cannot follow: its text becomes a
// non-literal command word, which the engine asks about when it names a guarded command.
func (p *psParser) opaque(c rules.Call, label string) {
	text := c.Src[c.Start:c.End]
	w := rules.Word{Value: text, Pos: c.Start, End: c.End}
	p.calls = append(p.calls, rules.Call{NameWord: w, Args: []rules.Word{w}, Env: c.Env, Dir: c.Dir, DirUnknown: c.DirUnknown,
		Via: appendVia(c.Via, label), Src: c.Src, Nested: c.Nested, Start: c.Start, End: c.End})
}

// rerun reads a string a command runs as a script: as PowerShell, or as bash.
func (p *psParser) rerun(c rules.Call, arg *rules.Word, label string, ps bool) {
	if arg == nil {
		return
	}
	if !arg.Literal || p.depth >= maxReparseDepth {
		p.opaque(c, label)
		return
	}
	via := appendVia(c.Via, label)
	if ps {
		sub := psParse(arg.Value, true, via, p.depth+1)
		for i := range sub {
			sub[i].Env = append(p.inherited(), sub[i].Env...)
			if sub[i].Dir == "" {
				sub[i].Dir, sub[i].DirUnknown = p.dir, p.dirUnk || sub[i].DirUnknown
			}
		}
		p.calls = append(p.calls, sub...)
		return
	}
	sub, err := Parse(arg.Value)
	if err != nil {
		p.opaque(c, label)
		return
	}
	for i := range sub {
		sub[i].Nested = true
		sub[i].Via = append(slices.Clone(via), sub[i].Via...)
		sub[i].Env = append(p.inherited(), sub[i].Env...)
		if sub[i].Dir == "" || !path.IsAbs(sub[i].Dir) && p.dir != "" {
			sub[i].Dir = path.Join(p.dir, sub[i].Dir)
			sub[i].DirUnknown = sub[i].DirUnknown || p.dirUnk
		}
	}
	p.calls = append(p.calls, sub...)
}

// psCommandName normalises a PowerShell command word: a path and a suffix are dropped and the
// name is lowercased.
func psCommandName(w rules.Word) string {
	if !w.Literal {
		return ""
	}
	n := w.Value
	if i := strings.LastIndexAny(n, `/\`); i >= 0 {
		n = n[i+1:]
	}
	n = strings.ToLower(n)
	for _, suf := range []string{".exe", ".cmd", ".bat", ".ps1", ".com"} {
		if len(n) > len(suf) && strings.HasSuffix(n, suf) {
			return n[:len(n)-len(suf)]
		}
	}
	return n
}

// psFlag reports whether a word is a parameter or an option: a literal that starts with a dash.
func psFlag(w rules.Word) bool {
	return w.Literal && len(w.Value) > 1 && w.Value[0] == '-' && w.Value != "--"
}
