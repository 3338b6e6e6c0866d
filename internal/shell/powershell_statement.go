package shell

import (
	"maps"
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
		case p.peek(0) == '&' && !p.compound:
			p.i++ // background job; after a compound statement (`param($c) & $c x`) a call
		case p.peek(0) == ';':
			p.i++
		}
	}
}

// pipeline reads `a | b | c`; a literal string piped into Invoke-Expression is run. In the
// script block of a ForEach-Object or Where-Object after the first element, $_ stands for what
// the element before writes (psItems of its text), for the checks of what a written path may
// name.
func (p *psParser) pipeline() {
	var prevLit *rules.Word
	prev := ""
	for piped := false; ; piped = true {
		p.space(false)
		p.piped = piped
		var saved map[string][]string
		if piped && psEach(p.rest()) {
			saved = p.pipedItems(prev)
		}
		start := p.i
		lit := p.element(prevLit)
		if saved != nil {
			p.texts = saved
		}
		prev = p.src[start:p.trimEnd(p.i)]
		p.space(false)
		if p.peek(0) != '|' || p.peek(1) == '|' {
			return
		}
		p.i++
		p.space(true)
		prevLit = lit
	}
}

// psEach reports whether an element starts with a command that runs a script block for each
// item piped into it.
func psEach(s string) bool {
	if i := strings.IndexAny(s, " \t{"); i >= 0 {
		s = s[:i]
	}
	switch strings.ToLower(s) {
	case "foreach-object", "%", "foreach", "where-object", "?", "where":
		return true
	}
	return false
}

// pipedItems sets what $_ (and $PSItem, and their .FullName) may hold while an element reads
// what the element before it, whose text is prev, writes. It returns the texts to restore
// afterwards.
func (p *psParser) pipedItems(prev string) map[string][]string {
	saved := p.texts
	p.texts = maps.Clone(p.texts)
	if p.texts == nil {
		p.texts = map[string][]string{}
	}
	for _, v := range []string{"_", "psitem"} {
		for _, name := range []string{v, v + ".fullname", v + ".pspath"} {
			p.texts[name] = psItems(prev)
		}
	}
	if saved == nil {
		saved = map[string][]string{}
	}
	return saved
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
	p.compound = false
	c := p.peek(0)
	switch {
	case c == '&' && p.peek(1) != '&', c == '.' && (p.peek(1) == ' ' || p.peek(1) == '\t' || p.peek(1) == '\'' || p.peek(1) == '"'):
		op := string(c)
		start := p.i
		p.i++
		p.space(false)
		if p.peek(0) == '{' {
			// & { … } a b: the block runs here, with the arguments; it is not a command of its
			// own.
			body := p.i
			p.block()
			var args []rules.Word
			var writes []rules.Word
			for p.space(false); !p.atEnd() && !strings.HasPrefix(p.rest(), "&&"); p.space(false) {
				if c := p.peek(0); c == '>' || c == '<' || c >= '1' && c <= '6' && p.peek(1) == '>' || c == '*' && p.peek(1) == '>' {
					p.redirect(&writes)
					continue
				}
				args = append(args, p.args()...)
			}
			p.writesOnly(start, writes)
			if len(args) > 0 {
				p.invoke(body, psParams{}, args)
			}
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
		p.compound = true
		return nil
	}
	return p.command("", pipeIn)
}

// keyword reads the rest of a compound statement: conditions and bodies are read for the calls
// in them, everything else is skipped. Bodies may or may not run, so the directory is unknown
// afterwards if one changes it.
func (p *psParser) keyword(kw string) {
	switch kw {
	case "while", "do", "for", "foreach":
		// The whole statement runs again: its condition too reads what the body changed.
		start := p.i
		p.iterate(func() {
			p.i = start
			p.statement(kw)
		})
		return
	}
	p.statement(kw)
}

// statement reads a compound statement once, after its keyword.
func (p *psParser) statement(kw string) {
	dir, unk := p.dir, p.dirUnk
	var fn string // the function a function statement defines
	var params psParams
	switch kw {
	case "return", "throw", "exit":
		p.space(false)
		if !p.atEnd() {
			p.pipeline()
		}
		return
	case "function", "filter", "workflow", "configuration":
		p.space(false)
		// The name, up to its parameters: `function f($a)`, `function global:f`.
		j := p.i
		for j < len(p.src) && isBareByte(p.src[j]) && p.src[j] != '(' && p.src[j] != '$' && p.src[j] != '\'' && p.src[j] != '"' {
			j++
		}
		if j > p.i {
			fn = strings.ToLower(p.src[p.i:j])
			if _, name, ok := strings.Cut(fn, ":"); ok {
				fn = name
			}
			p.i = j
		}
		p.space(false)
		for !p.atEnd() && p.peek(0) != '{' && p.peek(0) != '(' {
			fn = "" // a name the reader does not read
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
			loopVar := ""
			if p.peek(0) == '$' {
				if name, _, ok := p.varAt(p.i); ok {
					p.forgetVal(name) // the loop variable
					loopVar = name
				}
				p.word()
				p.space(true)
			}
			if len(p.rest()) >= 2 && strings.EqualFold(p.rest()[:2], "in") {
				p.i += 2
			}
			coll := p.i
			p.statements(')')
			if loopVar != "" {
				if p.texts == nil {
					p.texts = map[string][]string{}
				}
				p.texts[strings.ToLower(loopVar)] = psItems(p.src[coll:p.i])
			}
			p.i++
			p.nest--
			kw = "foreach-body"
		case p.peek(0) == '(' && (kw == "param" || fn != ""):
			// The parameters: names of the body's own, bound to a call's arguments.
			open := p.i
			p.group()
			params = p.paramList(open, p.i-1)
			if kw == "param" {
				p.bind(params, p.binding)
				p.binding = nil
			}
		case p.peek(0) == '(':
			p.group()
		case p.peek(0) == '{':
			if fn == "" {
				p.block()
				break
			}
			if p.funcs == nil {
				p.funcs = map[string]psFunc{}
			}
			p.funcs[fn] = psFunc{body: p.i, params: params}
			if p.vals.defined == nil {
				p.vals.defined = map[string]bool{}
			}
			p.vals.defined[fn] = true
			// The body, where it is defined: its parameters are its own, not known.
			saved := p.shadowed
			p.shadowed = nil
			p.bind(params, nil)
			p.block()
			p.unshadow()
			p.shadowed = saved
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

// block reads a script block `{ … }`: its statements run where, whether and how often the block
// is invoked, which cannot be known; they are reported here, walked again for each state a
// later run can start in (psParser.iterate).
func (p *psParser) block() rules.Word {
	start := p.i
	b := p.binding
	p.settleDir(func() {
		p.iterate(func() {
			p.i = start
			p.walkBlock(b)
		})
	})
	return rules.Word{Value: p.src[start:p.i], Pos: start, End: p.i}
}

// walkBlock walks the block at p.i once. The arguments it is invoked with (b) go to its param
// block, if it starts with one; a block inside it gets none. Its parameters shadow the
// caller's variables of the same names only while it runs.
func (p *psParser) walkBlock(b *psBinding) {
	p.enter()
	p.i++
	p.space(true)
	p.binding = nil
	if j := p.i + len("param"); b != nil && j <= len(p.src) && strings.EqualFold(p.src[p.i:j], "param") && (j == len(p.src) || !isWordByte(p.src[j])) {
		p.binding = b
	}
	outer := p.shadowed
	p.shadowed = nil
	p.statements('}')
	p.unshadow()
	p.shadowed = outer
	p.binding = nil
	p.i++
	p.nest--
}

// settleDir runs a body that may or may not run: if it moved the location or changed the
// environment, which are the process's, the location afterwards is not known, nor the
// variables it set or removed (unsure).
func (p *psParser) settleDir(body func()) {
	dir, unk, env := p.dir, p.dirUnk, p.env
	body()
	if p.dir != dir || p.dirUnk != unk {
		p.dir, p.dirUnk = dir, true
	}
	p.env = unsure(env, p.env, "$env:")
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
	end, writes := p.expressionTail(start)
	var out *rules.Word
	switch {
	case p.i > start && w.Literal && w.Pos == start && w.End == end:
		out = &w
	default:
		if d, ok := decoded(p.src[start:end]); ok {
			out = &rules.Word{Value: d, Literal: true}
		}
	}
	p.trackFile("", nil, writes, out, pipeIn, p.piped)
	if len(writes) > 0 {
		return nil
	}
	return out
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
// as written (`'x' > f`). It returns where the expression's text ends (before its
// redirections and trailing blanks) and the files written.
func (p *psParser) expressionTail(at int) (end int, writes []rules.Word) {
	end = p.trimEnd(p.i)
	for {
		p.space(false)
		if p.atEnd() || strings.HasPrefix(p.rest(), "&&") {
			p.writesOnly(at, writes)
			return end, writes
		}
		switch c := p.peek(0); {
		case c == '(':
			p.group()
			end = p.i
		case c == '{':
			p.block()
			end = p.i
		case c == '>' || c == '<' || c >= '0' && c <= '9' && p.peek(1) == '>' || c == '*' && p.peek(1) == '>':
			p.redirect(&writes)
		default:
			p.word()
			end = p.i
		}
	}
}

// assignment reads the value of `$name op …`: a command pipeline when it starts with a bare
// word, else an expression. `$env:NAME = <literal>` sets the environment of later calls.
func (p *psParser) assignment(name, op string) {
	p.space(false)
	env, isEnv := strings.CutPrefix(strings.ToLower(name), "env:")
	key := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(name, "{"), "}"))
	delete(p.texts, key)
	_, bare, scoped := strings.Cut(key, ":") // $global:a is $a where the line runs
	if isEnv {
		env = name[len("env:"):]
	} else {
		if op == "=" && !scoped {
			if v, ok := p.literalValue(); ok {
				p.setVal(key, v)
				return
			}
		}
		p.forgetVal(key)
		p.forgetVal(bare)
		if k, _, ok := strings.Cut(key, "-"); ok {
			p.forgetVal(k) // `$a-b = …` is read as $a
		}
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
	end, _ := p.expressionTail(start)
	if !isEnv {
		if d, ok := decoded(p.src[start:end]); ok && op == "=" && !scoped {
			p.setVal(key, psVal{items: []string{d}})
		}
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
