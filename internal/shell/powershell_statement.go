package shell

import (
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

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

// psKeyword reports whether a lowercased bare word starts a compound statement. A switch, not a
// map: a map literal would be built at package init on every hook run, PowerShell or not.
// parallel, sequence and inlinescript are keywords only inside a workflow; elsewhere they are
// commands (GNU parallel), and a workflow's blocks are read as a command's arguments.
func psKeyword(s string) bool {
	switch s {
	case "if", "elseif", "else", "while", "do", "until", "for", "foreach", "switch", "try", "catch",
		"finally", "trap", "function", "filter", "workflow", "param", "begin", "process", "end", "clean",
		"dynamicparam", "data", "class", "enum", "using", "return", "throw", "exit", "break", "continue",
		"configuration":
		return true
	}
	return false
}

// element reads one pipeline element: a command, an assignment, a keyword statement or an
// expression. It returns what the element writes to the pipeline when that is literal text (a
// lone literal string, or Write-Output of literals), for `'…' | iex` and `echo '…' | bash`.
func (p *psParser) element(pipeIn *rules.Word) *rules.Word {
	c := p.peek(0)
	switch {
	case c == '&' && p.peek(1) != '&', c == '.' && (p.peek(1) == ' ' || p.peek(1) == '\t' || p.peek(1) == '\'' || p.peek(1) == '"'):
		op := string(c)
		start := p.i
		p.i++
		p.space(false)
		if p.peek(0) == '{' {
			// & { … }: the block runs here; it is not a command of its own.
			p.block()
			p.expressionTail(start)
			return nil
		}
		return p.command(op, nil)
	case c == '$' || c == '@' || c == '(' || c == '[' || c == '\'' || c == '"' || c == '-' && p.peek(1) >= '0' && p.peek(1) <= '9' || c >= '0' && c <= '9' || c == '!' || c == ',':
		return p.expressionStatement(pipeIn)
	case c == '{':
		start := p.i
		p.block()
		p.expressionTail(start)
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
	if psKeyword(kw) && (j == len(p.src) || !isBareByte(p.src[j]) || p.src[j] == '(' || p.src[j] == '{') {
		p.i = j
		p.keyword(kw)
		return nil
	}
	return p.command("", pipeIn)
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
			if j > p.i && psKeyword(next) && next != "param" {
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
	p.expressionTail(start)
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

// expressionTail reads the rest of an expression that starts at at: operands and operators, for
// the calls in their groups and subexpressions, and redirections, whose files are reported
// as written (`'x' > f`).
func (p *psParser) expressionTail(at int) {
	var writes []rules.Word
	for {
		p.space(false)
		if p.atEnd() || strings.HasPrefix(p.rest(), "&&") {
			p.writesOnly(at, writes)
			return
		}
		switch c := p.peek(0); {
		case c == '(':
			p.group()
		case c == '{':
			p.block()
		case c == '>' || c == '<' || c >= '0' && c <= '9' && p.peek(1) == '>' || c == '*' && p.peek(1) == '>':
			p.redirect(&writes)
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
	p.expressionTail(start)
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
		if strings.EqualFold(p.env[i].a.Name, env) {
			p.env = append(p.env[:i:i], p.env[i+1:]...)
		}
	}
}

func (p *psParser) setEnv(name string, v rules.Word) {
	out := make([]envEntry, 0, len(p.env)+1)
	for _, e := range p.env {
		// Windows environment names are case-insensitive; elsewhere they are not, and the
		// stricter reading keeps both.
		if e.a.Name != name {
			out = append(out, e)
		}
	}
	p.env = append(out, envEntry{rules.Assign{Name: name, Value: v}, p.s})
}
