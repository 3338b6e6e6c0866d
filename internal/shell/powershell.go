package shell

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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

// Typographic quotes: PowerShell reads them as the ASCII ones.
func isSingleQuote(r rune) bool {
	return r == '\'' || r == '‘' || r == '’' || r == '‚' || r == '‛'
}
func isDoubleQuote(r rune) bool { return r == '"' || r == '“' || r == '”' || r == '„' }

func (p *psParser) runeAt(i int) (rune, int) {
	if i >= len(p.src) {
		return 0, 0
	}
	return utf8.DecodeRuneInString(p.src[i:])
}

// space skips blanks, line continuations and comments; with newlines, line ends too.
func (p *psParser) space(newlines bool) {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			p.i++
		case c == '\r' || c == '\n':
			if !newlines {
				return
			}
			p.i++
		case c == '`' && (p.peek(1) == '\n' || p.peek(1) == '\r'):
			p.i += 2
			if p.src[p.i-1] == '\r' && p.peek(0) == '\n' {
				p.i++
			}
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
				p.i++
			}
		case c == '<' && p.peek(1) == '#':
			end := strings.Index(p.src[p.i+2:], "#>")
			if end < 0 {
				p.fail("unterminated block comment")
			}
			p.i += 2 + end + 2
		default:
			if r, n := p.runeAt(p.i); r == '\u00a0' || r == '\u2028' || r == '\u2029' {
				p.i += n
				continue
			}
			return
		}
	}
}

// atEnd reports whether the statement ends here.
func (p *psParser) atEnd() bool {
	if p.i >= len(p.src) {
		return true
	}
	switch c := p.src[p.i]; c {
	case ';', '\n', '\r', ')', '}', '|':
		return true
	case '&':
		return true // && or a background job; a call operator never follows an argument
	}
	return false
}

// statements reads statements until a closing bracket (closer) or the end.
func (p *psParser) statements(closer byte) {
	for {
		p.space(true)
		if p.i >= len(p.src) {
			if closer != 0 {
				p.fail("missing " + string(closer))
			}
			return
		}
		c := p.src[p.i]
		switch {
		case c == closer:
			return
		case c == ')' || c == '}':
			p.fail("unexpected " + string(c))
		case c == ';':
			p.i++
			continue
		}
		p.pipeline()
		p.space(false)
		switch {
		case strings.HasPrefix(p.rest(), "&&"), strings.HasPrefix(p.rest(), "||"):
			p.i += 2
		case p.peek(0) == '&':
			p.i++ // background job
		case p.peek(0) == ';':
			p.i++
		}
	}
}

// pipeline reads `a | b | c`; a literal string piped into Invoke-Expression is run.
func (p *psParser) pipeline() {
	var prevLit *rules.Word
	for {
		p.space(false)
		lit := p.element(prevLit)
		p.space(false)
		if p.peek(0) != '|' || p.peek(1) == '|' {
			return
		}
		p.i++
		p.space(true)
		prevLit = lit
	}
}

var psKeywords = map[string]bool{
	"if": true, "elseif": true, "else": true, "while": true, "do": true, "until": true, "for": true,
	"foreach": true, "switch": true, "try": true, "catch": true, "finally": true, "trap": true,
	"function": true, "filter": true, "workflow": true, "param": true, "begin": true, "process": true,
	"end": true, "clean": true, "dynamicparam": true, "data": true, "class": true, "enum": true,
	"using": true, "return": true, "throw": true, "exit": true, "break": true, "continue": true,
	"configuration": true, "parallel": true, "sequence": true, "inlinescript": true,
}

// element reads one pipeline element: a command, an assignment, a keyword statement or an
// expression. It returns the element's value when it is a lone literal string (for `'…' | iex`).
func (p *psParser) element(pipeIn *rules.Word) *rules.Word {
	start := p.i
	c := p.peek(0)
	switch {
	case c == '&' && p.peek(1) != '&', c == '.' && (p.peek(1) == ' ' || p.peek(1) == '\t' || p.peek(1) == '\'' || p.peek(1) == '"'):
		op := string(c)
		p.i++
		p.space(false)
		if p.peek(0) == '{' {
			// & { … }: the block runs here; it is not a command of its own.
			p.block()
			p.expressionTail()
			return nil
		}
		p.command(start, op, nil)
		return nil
	case c == '$' || c == '@' || c == '(' || c == '[' || c == '\'' || c == '"' || c == '-' && p.peek(1) >= '0' && p.peek(1) <= '9' || c >= '0' && c <= '9' || c == '!' || c == ',':
		return p.expressionStatement(pipeIn)
	case c == '{':
		p.block()
		p.expressionTail()
		return nil
	}
	if r, _ := p.runeAt(p.i); isSingleQuote(r) || isDoubleQuote(r) {
		return p.expressionStatement(pipeIn)
	}
	// A bare word: a keyword or a command.
	j := p.i
	for j < len(p.src) && (isWordByte(p.src[j])) {
		j++
	}
	kw := strings.ToLower(p.src[p.i:j])
	if psKeywords[kw] && (j == len(p.src) || !isBareByte(p.src[j]) || p.src[j] == '(' || p.src[j] == '{') {
		p.i = j
		p.keyword(kw)
		return nil
	}
	p.command(start, "", pipeIn)
	return nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyword reads the rest of a compound statement: conditions and bodies are read for the calls
// in them, everything else is skipped. Bodies may or may not run, so the directory is unknown
// afterwards if one changes it.
func (p *psParser) keyword(kw string) {
	dir, unk := p.dir, p.dirUnk
	switch kw {
	case "return", "throw", "exit":
		p.space(false)
		if !p.atEnd() {
			p.pipeline()
		}
		return
	case "function", "filter", "workflow", "configuration":
		p.space(false)
		for !p.atEnd() && p.peek(0) != '{' && p.peek(0) != '(' {
			p.word()
			p.space(false)
		}
	}
	for {
		p.space(kw != "")
		switch {
		case p.peek(0) == '(' && kw == "foreach":
			// foreach ($item in <pipeline>): the collection is a pipeline, which may run commands.
			p.enter()
			p.i++
			p.space(true)
			if p.peek(0) == '$' {
				p.word()
				p.space(true)
			}
			if len(p.rest()) >= 2 && strings.EqualFold(p.rest()[:2], "in") {
				p.i += 2
			}
			p.statements(')')
			p.i++
			p.nest--
			kw = "foreach-body"
		case p.peek(0) == '(':
			p.group()
		case p.peek(0) == '{':
			p.block()
		case p.i < len(p.src) && !p.atEnd() && p.peek(0) != '#':
			// The loop variable, the switch options, `in`, a catch's type: words, read for their
			// expansions.
			j := p.i
			for j < len(p.src) && isWordByte(p.src[j]) {
				j++
			}
			next := strings.ToLower(p.src[p.i:j])
			if j > p.i && psKeywords[next] && next != "param" {
				p.i = j
				continue // else, elseif, catch, finally, until, while after do
			}
			p.word()
		default:
			if p.dir != dir || p.dirUnk != unk {
				p.dirUnk = true
			}
			return
		}
		// After a condition, only a body keeps the statement going (param(…), do {…} while (…)).
		if p.src[p.i-1] == ')' {
			save := p.i
			p.space(true)
			if p.peek(0) != '{' {
				p.i = save
				return
			}
		}
		// After a body, only a continuation keyword keeps the statement going.
		if p.src[p.i-1] == '}' {
			save := p.i
			p.space(true)
			j := p.i
			for j < len(p.src) && isWordByte(p.src[j]) {
				j++
			}
			switch strings.ToLower(p.src[p.i:j]) {
			case "else", "elseif", "catch", "finally", "while", "until":
				p.i = j
				continue
			}
			p.i = save
			if p.dir != dir || p.dirUnk != unk {
				p.dirUnk = true
			}
			return
		}
	}
}

// block reads a script block `{ … }`: its statements run where and whether the block is
// invoked, which cannot be known; they are reported here.
func (p *psParser) block() rules.Word {
	start := p.i
	p.enter()
	p.i++
	dir, unk := p.dir, p.dirUnk
	p.statements('}')
	p.i++
	p.nest--
	if p.dir != dir || p.dirUnk != unk {
		// The location is the process's, not the block's: a block that may or may not run
		// (a body, a ForEach-Object block) leaves it unknown.
		p.dir, p.dirUnk = dir, true
	}
	return rules.Word{Value: p.src[start:p.i], Pos: start, End: p.i}
}

// group reads `( … )`, `$( … )` or `@( … )` from its opening bracket.
func (p *psParser) group() {
	p.enter()
	for p.peek(0) != '(' {
		p.i++
	}
	p.i++
	p.statements(')')
	p.i++
	p.nest--
}

func (p *psParser) enter() {
	p.nest++
	if p.nest > maxNodeDepth {
		p.fail("nesting too deep")
	}
}

// expressionStatement reads a statement that starts with a value: an assignment or an
// expression. It returns the value when the statement is a lone literal string.
func (p *psParser) expressionStatement(pipeIn *rules.Word) *rules.Word {
	start := p.i
	// An assignment: $name = …, $env:NAME = …, with any assignment operator.
	if p.peek(0) == '$' {
		j := p.i + 1
		if p.peek(1) == '{' {
			j = strings.IndexByte(p.src[p.i:], '}')
			if j < 0 {
				p.fail("unterminated variable")
			}
			j += p.i + 1
		} else {
			for j < len(p.src) && (isWordByte(p.src[j]) || p.src[j] == ':') {
				j++
			}
		}
		name := p.src[p.i+1 : j]
		k := j
		for k < len(p.src) && (p.src[k] == ' ' || p.src[k] == '\t') {
			k++
		}
		if op := assignOp(p.src[k:]); op != "" && j > p.i+1 {
			p.i = k + len(op)
			p.assignment(name, op)
			return nil
		}
	}
	w := p.word()
	p.expressionTail()
	if p.i > start && w.Literal && w.Pos == start && w.End == p.trimEnd(p.i) {
		return &w
	}
	return nil
}

// trimEnd is i before trailing blanks.
func (p *psParser) trimEnd(i int) int {
	for i > 0 && (p.src[i-1] == ' ' || p.src[i-1] == '\t') {
		i--
	}
	return i
}

func assignOp(s string) string {
	for _, op := range []string{"??=", "+=", "-=", "*=", "/=", "%=", "="} {
		if strings.HasPrefix(s, op) && !strings.HasPrefix(s, "==") {
			return op
		}
	}
	return ""
}

// expressionTail reads the rest of an expression: operands and operators, for the calls in
// their groups and subexpressions.
func (p *psParser) expressionTail() {
	for {
		p.space(false)
		if p.atEnd() || strings.HasPrefix(p.rest(), "&&") {
			return
		}
		switch c := p.peek(0); {
		case c == '(':
			p.group()
		case c == '{':
			p.block()
		case c == '>' || c == '<' || c >= '0' && c <= '9' && p.peek(1) == '>' || c == '*' && p.peek(1) == '>':
			p.redirect(nil)
		default:
			p.word()
		}
	}
}

// assignment reads the value of `$name op …`: a command pipeline when it starts with a bare
// word, else an expression. `$env:NAME = <literal>` sets the environment of later calls.
func (p *psParser) assignment(name, op string) {
	p.space(false)
	env, isEnv := strings.CutPrefix(strings.ToLower(name), "env:")
	if isEnv {
		env = name[len("env:"):]
	}
	start := p.i
	c := p.peek(0)
	r, _ := p.runeAt(p.i)
	isValue := c == '$' || c == '@' || c == '(' || c == '[' || c == '-' || c >= '0' && c <= '9' || isSingleQuote(r) || isDoubleQuote(r) || c == '{'
	if !isValue && !p.atEnd() {
		p.pipeline()
		if isEnv {
			p.setEnv(env, rules.Word{Value: p.src[start:p.trimEnd(p.i)], Pos: start, End: p.trimEnd(p.i)})
		}
		return
	}
	w := p.word()
	p.expressionTail()
	if !isEnv {
		return
	}
	if op != "=" || p.trimEnd(p.i) != w.End {
		w = rules.Word{Value: p.src[start:p.trimEnd(p.i)], Pos: start, End: p.trimEnd(p.i)}
	}
	if w.Literal || w.Value != "$null" {
		p.setEnv(env, w)
		return
	}
	// $env:NAME = $null removes the variable.
	for i := len(p.env) - 1; i >= 0; i-- {
		if strings.EqualFold(p.env[i].Name, env) {
			p.env = append(p.env[:i:i], p.env[i+1:]...)
		}
	}
}

func (p *psParser) setEnv(name string, v rules.Word) {
	out := make([]rules.Assign, 0, len(p.env)+1)
	for _, a := range p.env {
		// Windows environment names are case-insensitive; elsewhere they are not, and the
		// stricter reading keeps both.
		if a.Name != name {
			out = append(out, a)
		}
	}
	p.env = append(out, rules.Assign{Name: name, Value: v})
}

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

// cd applies Set-Location and its aliases.
func (p *psParser) cd(args []rules.Word) {
	var target *rules.Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if psFlag(a) {
			l := strings.ToLower(a.Value)
			if strings.HasPrefix("-path", l) || strings.HasPrefix("-literalpath", l) {
				if i+1 < len(args) {
					target = &args[i+1]
				}
				break
			}
			p.dirUnk = true // -StackName, -PassThru …: not worth modelling
			return
		}
		if target != nil {
			p.dirUnk = true
			return
		}
		target = &args[i]
	}
	switch {
	case target == nil:
		// Set-Location without a path stays where it is (unlike cd in bash).
	case !target.Literal:
		if rest, ok := strings.CutPrefix(target.Value, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') && plainText(rest) {
			p.dir, p.dirUnk = path.Clean(strings.ReplaceAll(target.Value, `\`, "/")), false
			return
		}
		p.dirUnk = true
	case target.Value == "-" || target.Value == "+" || strings.Contains(target.Value, ":") && !strings.HasPrefix(target.Value, "/"):
		p.dirUnk = true // history, or a drive (C:, Env:, HKLM:)
	default:
		v := strings.ReplaceAll(target.Value, `\`, "/")
		if path.IsAbs(v) {
			p.dir = path.Clean(v)
			return
		}
		d := path.Join(p.dir, v)
		if d == "." {
			d = ""
		}
		p.dir = d
	}
}

// redirect reads a redirection; a file written is added to writes.
func (p *psParser) redirect(writes *[]rules.Word) {
	if p.peek(0) == '<' {
		p.fail("the '<' operator is reserved for future use")
	}
	j := p.i
	if p.src[j] != '>' {
		j++ // a stream number or *
	}
	j++ // >
	if j < len(p.src) && p.src[j] == '>' {
		j++
	}
	if j < len(p.src) && p.src[j] == '&' {
		// 2>&1: a stream merge, no file.
		j++
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		p.i = j
		return
	}
	p.i = j
	p.space(false)
	if p.atEnd() {
		p.fail("missing file after redirection")
	}
	w := p.word()
	if writes != nil {
		*writes = append(*writes, w)
	}
}

// stopParsing reads `--%`: the rest of the line goes to the command as written. The words are
// split on blanks, non-literal (cmd-style %VAR% expands on Windows), and end at a newline or `|`.
func (p *psParser) stopParsing() []rules.Word {
	p.i += 3
	var out []rules.Word
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\n' || c == '\r' || c == '|' {
			break
		}
		if c == ' ' || c == '\t' {
			p.i++
			continue
		}
		s := p.i
		for p.i < len(p.src) && !strings.ContainsRune(" \t\n\r|", rune(p.src[p.i])) {
			p.i++
		}
		out = append(out, rules.Word{Value: p.src[s:p.i], Pos: s, End: p.i})
	}
	return out
}

// isBareByte reports whether c continues a bare word.
func isBareByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '|', '&', '(', ')', '{', '}', '>', '<', 0:
		return false
	}
	return true
}

var psNumber = regexp.MustCompile(`(?i)^[+-]?(0x[0-9a-f]+|0b[01]+|[0-9]+\.?[0-9]*(e[+-]?[0-9]+)?|\.[0-9]+(e[+-]?[0-9]+)?)(ul|us|uy|u|l|d|n|s|y)?(kb|mb|gb|tb|pb)?$`)

// word reads one argument: bare text, quoted strings and expansions, up to a blank or an
// operator. Groups and subexpressions in it are read for their calls, which run first.
func (p *psParser) word() rules.Word {
	start := p.i
	var b strings.Builder
	lit, quoted := true, false
	for p.i < len(p.src) {
		c := p.src[p.i]
		r, n := p.runeAt(p.i)
		switch {
		case c == '`':
			if p.i+1 >= len(p.src) {
				p.i++
				b.WriteByte('`')
				continue
			}
			if nc := p.src[p.i+1]; nc == '\n' || nc == '\r' {
				goto done // a line continuation ends the word
			}
			p.i++
			p.escape(&b)
		case isSingleQuote(r):
			p.i += n
			quoted = true
			p.single(&b)
		case isDoubleQuote(r):
			p.i += n
			quoted = true
			if !p.double(&b, false) {
				lit = false
			}
		case c == '@' && p.i == start && (p.peek(1) == '\'' || p.peek(1) == '"') && herestringStart(p.src[p.i+2:]):
			quoted = true
			if !p.herestring(&b) {
				lit = false
			}
		case c == '$' || c == '@' && p.i == start && (p.peek(1) == '(' || p.peek(1) == '{' || isWordByte(p.peek(1))):
			lit = false
			p.dollar()
		case c == '(' && p.i > start:
			// `a(b)`: the group is a separate value in PowerShell; read it, as part of this word.
			lit = false
			p.group()
		case c == '(' || c == '{' && p.i == start:
			lit = false
			if c == '(' {
				p.group()
			} else {
				p.block()
			}
			if p.i < len(p.src) && isBareByte(p.src[p.i]) && p.src[p.i] != ',' {
				continue
			}
			goto done
		case c == ',':
			lit = false // an array
			p.i++
		case !isBareByte(c):
			goto done
		case c == '#' && p.i == start:
			goto done
		case r == '\u00a0' || r == '\u2028' || r == '\u2029':
			goto done
		default:
			b.WriteString(p.src[p.i : p.i+n])
			p.i += n
		}
	}
done:
	w := rules.Word{Value: b.String(), Literal: lit, Pos: start, End: p.i}
	if p.i == start {
		if p.i >= len(p.src) {
			p.fail("unexpected end of line")
		}
		p.fail("unexpected " + strconv.Quote(string(p.src[p.i])))
	}
	if lit && !quoted && psNumber.MatchString(w.Value) {
		lit = false // PowerShell passes the number's value, not its text (0x10 is 16)
	}
	if !lit {
		w.Value, w.Literal = p.src[start:p.i], false
	}
	return w
}

// escape reads a backtick escape, the backtick already consumed.
func (p *psParser) escape(b *strings.Builder) {
	c := p.src[p.i]
	switch c {
	case '0':
		b.WriteByte(0)
	case 'a':
		b.WriteByte(7)
	case 'b':
		b.WriteByte(8)
	case 'e':
		b.WriteByte(27)
	case 'f':
		b.WriteByte(12)
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte(11)
	case 'u':
		if p.peek(1) == '{' {
			end := strings.IndexByte(p.src[p.i:], '}')
			if end > 2 {
				if v, err := strconv.ParseUint(p.src[p.i+2:p.i+end], 16, 32); err == nil && v <= utf8.MaxRune {
					b.WriteRune(rune(v))
					p.i += end + 1
					return
				}
			}
		}
		b.WriteByte('u')
	default:
		_, n := p.runeAt(p.i)
		b.WriteString(p.src[p.i : p.i+n])
		p.i += n
		return
	}
	p.i++
}

// single reads a single-quoted string after its opening quote: no escapes, a doubled quote is one.
func (p *psParser) single(b *strings.Builder) {
	for p.i < len(p.src) {
		r, n := p.runeAt(p.i)
		if isSingleQuote(r) {
			if r2, n2 := p.runeAt(p.i + n); isSingleQuote(r2) {
				b.WriteString(p.src[p.i+n : p.i+n+n2])
				p.i += n + n2
				continue
			}
			p.i += n
			return
		}
		b.WriteString(p.src[p.i : p.i+n])
		p.i += n
	}
	p.fail("unterminated string")
}

// double reads a double-quoted string after its opening quote (or a here-string's body, until
// its terminator when here is set); false when it expands something.
func (p *psParser) double(b *strings.Builder, here bool) bool {
	lit := true
	for p.i < len(p.src) {
		c := p.src[p.i]
		r, n := p.runeAt(p.i)
		switch {
		case here && (c == '\n' || c == '\r') && herestringEnd(p.src[p.i:], '"'):
			return lit
		case !here && isDoubleQuote(r):
			if r2, n2 := p.runeAt(p.i + n); isDoubleQuote(r2) {
				b.WriteString(p.src[p.i+n : p.i+n+n2])
				p.i += n + n2
				continue
			}
			p.i += n
			return lit
		case c == '`' && p.i+1 < len(p.src):
			p.i++
			p.escape(b)
		case c == '$' && p.i+1 < len(p.src) && (p.peek(1) == '(' || p.peek(1) == '{' || isWordByte(p.peek(1)) || p.peek(1) == ':' || p.peek(1) == '$' || p.peek(1) == '?' || p.peek(1) == '^'):
			lit = false
			p.dollar()
		default:
			b.WriteString(p.src[p.i : p.i+n])
			p.i += n
		}
	}
	p.fail("unterminated string")
	return false
}

func herestringStart(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, "\n") || strings.HasPrefix(s, "\r\n")
}

// herestringEnd reports whether s, at a line end, ends a here-string: the next line starts
// with the quote and @.
func herestringEnd(s string, q byte) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
	return len(s) >= 2 && s[0] == q && s[1] == '@'
}

// herestring reads @'…'@ or @"…"@; false when it expands something.
func (p *psParser) herestring(b *strings.Builder) bool {
	q := p.src[p.i+1]
	p.i += 2
	for p.src[p.i] != '\n' {
		p.i++
	}
	p.i++
	lit := true
	if q == '\'' {
		end := -1
		for k := p.i - 1; k < len(p.src); k++ {
			if (p.src[k] == '\n') && herestringEnd(p.src[k:], '\'') {
				end = k
				break
			}
		}
		if end < 0 {
			p.fail("unterminated here-string")
		}
		if end > p.i {
			b.WriteString(strings.TrimSuffix(p.src[p.i:end], "\r"))
		}
		p.i = end
	} else {
		if herestringEnd(p.src[p.i-1:], '"') {
			p.i--
		} else {
			lit = p.double(b, true)
		}
	}
	// At the line end before the terminator.
	if p.src[p.i] == '\r' {
		p.i++
	}
	p.i += 3 // \n, quote, @
	return lit
}

// dollar reads a variable or a subexpression from its `$` (or `@`).
func (p *psParser) dollar() {
	p.i++
	switch c := p.peek(0); {
	case c == '(':
		p.i--
		p.group()
	case c == '{' && p.src[p.i-1] == '@':
		// A hashtable @{ … }: its values may hold calls, read as statements.
		p.block()
	case c == '{':
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			p.fail("unterminated variable")
		}
		p.i += end + 1
	case c == '$' || c == '?' || c == '^':
		p.i++
	default:
		for p.i < len(p.src) && (isWordByte(p.src[p.i]) || p.src[p.i] == ':' && isWordByte(p.peek(1))) {
			p.i++
		}
	}
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

// QuotePowerShell quotes a value for PowerShell so that it reaches a command as one word,
// unchanged: bare when it starts with a letter and has only letters, digits and `_./:-` (a word
// starting with a digit may be read as a number, one starting with `-` as a parameter), else in
// single quotes, where only a quote is special and is doubled (typographic ones too: PowerShell
// reads them as quotes).
func QuotePowerShell(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	bare := s != ""
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || strings.ContainsRune("_./:-", r)) || i == 0 && r == '_'
		if !ok {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if isSingleQuote(r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

// RewritePowerShell is [Rewrite] for a PowerShell line: the edits are applied, the result is
// read again with the PowerShell reader and must have the same calls plus the inserted words.
func RewritePowerShell(src string, edits []rules.Edit) (string, error) {
	return rewrite(src, edits, ParsePowerShell, psEditItems)
}

// psEditItems reads an edit's text as PowerShell arguments: plain literal words only.
func psEditItems(text string) ([]string, error) {
	// The text is read as arguments of a command, which is what it becomes.
	const cmd = "x "
	calls, err := ParsePowerShell(cmd + text)
	if err != nil {
		return nil, err
	}
	if len(calls) != 1 || calls[0].Name != "x" || len(calls[0].Writes) > 0 || calls[0].End != len(cmd)+len(strings.TrimRight(text, " \t")) {
		return nil, errors.New("is not a list of words")
	}
	var items []string
	for _, a := range calls[0].Args {
		if !a.Literal {
			return nil, errors.New("has an expansion")
		}
		items = append(items, a.Value)
	}
	if len(items) == 0 {
		return nil, errors.New("inserts no words")
	}
	return items, nil
}

// psFlag reports whether a word is a parameter or an option: a literal that starts with a dash.
func psFlag(w rules.Word) bool {
	return w.Literal && len(w.Value) > 1 && w.Value[0] == '-' && w.Value != "--"
}
