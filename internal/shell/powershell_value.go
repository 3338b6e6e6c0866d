package shell

import (
	"maps"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

// Constant propagation in PowerShell, as bash_value.go does it for bash: a variable the line
// assigns from literal strings has that value where the line reads it, so `$a = 'az'; & $a
// group list` runs az, `$c = 'kubectl delete ns x'; iex $c` runs that string, and `$x =
// 'group','list'; az @x` passes two words. A value is an array of strings (`'a','b'`,
// `@('a','b')`) or one string; anything else assigned (a number that is not its own text, a
// command's output, a script block) leaves the variable unknown, and so does a read that may
// change it (`$a[0] = …`, `$a++`, `$a, $b = …`, `[string]$a = …`).
//
// PowerShell can also set a variable by its name (Set-Variable and its aliases, -OutVariable and
// the other common parameters, the variable: drive, [ref], $ExecutionContext): a line that does
// any of that, or runs a command whose name is not known, a script file or a module, has no known
// variables from there on. Automatic variables ($_, $args, $input …) are never taken from an
// assignment. A body that may not run, or runs again (a script block, a loop, a branch), is
// walked as bash's are: again for each state a later run can start in, and what it changed is
// unknown after it. Functions the line defines are walked at each call with its literal
// arguments as $args and as their parameters, and so is a script block invoked with arguments
// (`& { param($v) … } x`); Invoke-Expression runs its string in the caller's scope.

// psVal is a known value: its items, and whether it is an array (one item or several).
type psVal struct {
	items []string
	array bool
}

// psValues is what a PowerShell text knows of its variables, by lowercased name (PowerShell
// finds variables without regard to case). A string Invoke-Expression runs shares it.
type psValues struct {
	m map[string]psVal
	// defined are the functions any text of the line defines: one defined in another text is
	// not walked at its call, which may change anything.
	defined map[string]bool
	// off is set once the line may set variables by means the reader does not follow.
	off    bool
	resets int
}

// psAutomatic are PowerShell's automatic and preference variables that change what a line
// means or are set by PowerShell itself: an assignment never makes them known.
func psAutomatic(name string) bool {
	switch name {
	case "_", "psitem", "args", "input", "this", "matches", "lastexitcode", "?", "^", "$", "error",
		"foreach", "switch", "psboundparameters", "myinvocation", "pscmdlet", "ofs", "true", "false",
		"null", "host", "home", "pwd", "pshome", "profile", "executioncontext", "sender", "event",
		"eventargs", "eventsubscriber", "stacktrace", "psscriptroot", "pscommandpath", "psdefaultparametervalues":
		return true
	}
	return false
}

// psIndirect are texts that set a variable by a name or a reference the reader does not follow;
// a text holding one has no known variables (propagation is off).
var psIndirect = []string{"variable:", "-variable", "psvariable", "[ref]", "executioncontext", "psobject", "alias:", "function:"}

// psSetter reports whether a command sets variables by name: an alias of the variable cmdlets
// (Set-Variable is set and sv, New-Variable nv, …; the cmdlets' own names hold "-variable").
func psSetter(name string) bool {
	switch name {
	case "set", "sv", "nv", "gv", "clv", "rv":
		return true
	}
	return false
}

// psDefiner reports whether a command defines what later commands run: a module's import, or a
// new alias, which may stand for Set-Variable.
func psDefiner(name string) bool {
	switch name {
	case "import-module", "ipmo", "set-alias", "new-alias", "sal", "nal":
		return true
	}
	return false
}

// psVariableParam reports whether a parameter word may be one of the common parameters that
// store output in a variable (-OutVariable, -PipelineVariable, -ErrorVariable,
// -WarningVariable, -InformationVariable, any unambiguous prefix, or an alias).
func psVariableParam(w rules.Word) bool {
	if !psFlag(w) {
		return false
	}
	name, _, _ := strings.Cut(strings.ToLower(w.Value), ":")
	switch name {
	case "-ov", "-pv", "-ev", "-wv", "-iv":
		return true
	case "-o", "-e", "-w", "-i":
		return false // ambiguous for every command: OutBuffer, ErrorAction, WarningAction, InformationAction
	}
	for _, p := range []string{"-outvariable", "-pipelinevariable", "-errorvariable", "-warningvariable", "-informationvariable"} {
		if strings.HasPrefix(p, name) {
			return true
		}
	}
	return false
}

func newPSValues(text string) *psValues {
	v := &psValues{}
	lower := strings.ToLower(text)
	v.off = slices.ContainsFunc(psIndirect, func(s string) bool { return strings.Contains(lower, s) })
	return v
}

// turnOff makes every variable unknown for the rest of the line.
func (v *psValues) turnOff() {
	v.forgetAll()
	v.off = true
}

// forgetAll makes every variable unknown; resets counts it, so that a body's parameters do not
// give the caller back values something in the body may have changed.
func (v *psValues) forgetAll() {
	v.m = nil
	v.resets++
}

func (p *psParser) setVal(name string, val psVal) {
	if p.vals.off || psAutomatic(name) || strings.Contains(name, ":") {
		p.forgetVal(name)
		return
	}
	if p.vals.m == nil {
		p.vals.m = map[string]psVal{}
	}
	p.vals.m[name] = val
}

func (p *psParser) forgetVal(name string) { delete(p.vals.m, name) }

// lookupVal is the known value of a variable: a plain name, or $env:NAME with a literal value
// the line set.
func (p *psParser) lookupVal(name string) (psVal, bool) {
	if env, ok := strings.CutPrefix(name, "env:"); ok {
		for i := len(p.env) - 1; i >= 0; i-- {
			if strings.EqualFold(p.env[i].a.Name, env) {
				if v := p.env[i].a.Value; v.Literal {
					return psVal{items: []string{v.Value}}, true
				}
				return psVal{}, false
			}
		}
		return psVal{}, false
	}
	if p.vals.off {
		return psVal{}, false
	}
	v, ok := p.vals.m[name]
	return v, ok
}

// varAt reads the variable name at i (its `$` or `@`): `$name`, `$scope:name` or `${name}`,
// lowercased, and where it ends; ok is false for anything else (`$(`, `$$`, `$?`).
func (p *psParser) varAt(i int) (name string, end int, ok bool) {
	j := i + 1
	if j < len(p.src) && p.src[j] == '{' {
		k := strings.IndexByte(p.src[j:], '}')
		if k < 2 {
			return "", 0, false
		}
		return strings.ToLower(p.src[j+1 : j+k]), j + k + 1, true
	}
	for j < len(p.src) && (isVarByte(p.src[j]) || p.src[j] == ':' && j+1 < len(p.src) && isVarByte(p.src[j+1])) {
		j++
	}
	if j == i+1 {
		return "", 0, false
	}
	return strings.ToLower(p.src[i+1 : j]), j, true
}

func isVarByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// plainRead reports whether the variable that ends at end is only read there. Before an
// assignment operator, ++ or --, an index, or a comma (`$a, $b = …`), it may be changed: it
// is forgotten, and false returned.
func (p *psParser) plainRead(name string, end int) bool {
	k := end
	for k < len(p.src) && (p.src[k] == ' ' || p.src[k] == '\t') {
		k++
	}
	rest := p.src[k:]
	if assignOp(rest) != "" || strings.HasPrefix(p.src[end:], "++") || strings.HasPrefix(p.src[end:], "--") ||
		end < len(p.src) && p.src[end] == '[' || strings.HasPrefix(rest, ",") {
		p.forgetVal(name)
		return false
	}
	return true
}

// knownString is the value of the variable read at p.i when it is a known string that the word
// goes on with: not an array and, outside a double-quoted string (where only the name is
// expanded: "$d.yaml"), not followed by a member or an index.
func (p *psParser) knownString(inString bool) (string, int, bool) {
	name, end, ok := p.varAt(p.i)
	if !ok || !inString && !p.plainRead(name, end) {
		return "", 0, false
	}
	if !inString && end < len(p.src) && (p.src[end] == '.' || p.src[end] == '[' || p.src[end] == '(') {
		return "", 0, false
	}
	v, ok := p.lookupVal(name)
	if !ok || v.array {
		return "", 0, false
	}
	return v.items[0], end, true
}

// args reads one argument of a command: a known variable standing alone as the word (`$x`, or
// splatted, `@x`) is its items, each a word at the variable's place; anything else is one word.
func (p *psParser) args() []rules.Word {
	if c := p.peek(0); c == '$' || c == '@' {
		if name, end, ok := p.varAt(p.i); ok && (end >= len(p.src) || !isBareByte(p.src[end])) && p.plainRead(name, end) {
			if v, ok := p.lookupVal(name); ok && (v.array || c == '@') {
				out := make([]rules.Word, len(v.items))
				for k, it := range v.items {
					out[k] = rules.Word{Value: it, Literal: true, Pos: p.i, End: end}
				}
				p.i = end
				return out
			}
		}
	}
	return []rules.Word{p.word()}
}

// literalValue reads the value of `$name = …` when it is known: strings (quoted, or known
// variables), and decimal integers, one or several joined by commas, maybe in @( ); p.i is
// left where it was when the value is anything else.
func (p *psParser) literalValue() (psVal, bool) {
	save := p.i
	wrapped := p.peek(0) == '@' && p.peek(1) == '('
	if wrapped {
		p.i += 2
	}
	var items []string
	for {
		p.space(wrapped)
		s, ok := p.literalItem()
		if !ok {
			p.i = save
			return psVal{}, false
		}
		items = append(items, s)
		p.space(wrapped)
		if p.peek(0) != ',' {
			break
		}
		p.i++
	}
	if wrapped {
		if p.peek(0) != ')' {
			p.i = save
			return psVal{}, false
		}
		p.i++
		p.space(false)
	}
	if !p.atEnd() {
		p.i = save
		return psVal{}, false
	}
	return psVal{items: items, array: wrapped || len(items) > 1}, true
}

// literalItem reads one item of a literal value.
func (p *psParser) literalItem() (string, bool) {
	r, n := p.runeAt(p.i)
	var b strings.Builder
	switch {
	case isSingleQuote(r):
		p.i += n
		p.single(&b)
	case isDoubleQuote(r):
		if !p.doubleKnown(p.i + n) {
			return "", false
		}
		p.i += n
		if !p.double(&b, false) {
			return "", false
		}
	case r == '$':
		s, end, ok := p.knownString(false)
		if !ok {
			return "", false
		}
		p.i = end
		return s, true
	case r >= '0' && r <= '9':
		j := p.i
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		if s := p.src[p.i:j]; numberKeepsText(s) && (j == len(p.src) || !isBareByte(p.src[j]) || p.src[j] == ',') {
			p.i = j
			return s, true
		}
		return "", false
	default:
		return "", false
	}
	if p.i < len(p.src) && isBareByte(p.src[p.i]) && p.src[p.i] != ',' {
		return "", false
	}
	return b.String(), true
}

// doubleKnown reports whether the double-quoted string whose text starts at i expands nothing
// but known strings, so that reading it runs nothing.
func (p *psParser) doubleKnown(i int) bool {
	for i < len(p.src) {
		r, n := p.runeAt(i)
		switch {
		case r == '`':
			i += 2
			continue
		case isDoubleQuote(r):
			if r2, _ := p.runeAt(i + n); isDoubleQuote(r2) {
				i += 2 * n
				continue
			}
			return true
		case r == '$':
			name, end, ok := p.varAt(i)
			if !ok {
				return false
			}
			if v, known := p.lookupVal(name); !known || v.array {
				return false
			}
			i = end
			continue
		}
		i += n
	}
	return false
}

// psSnapshot is what a body may change of the known values.
type psSnapshot map[string]psVal

func (p *psParser) snapshot() psSnapshot { return maps.Clone(p.vals.m) }

func sameVal(a, b psVal) bool { return a.array == b.array && slices.Equal(a.items, b.items) }

// forgetChanges makes unknown every variable whose value differs from s.
func (p *psParser) forgetChanges(s psSnapshot) {
	for name, v := range p.vals.m {
		if old, ok := s[name]; !ok || !sameVal(old, v) {
			delete(p.vals.m, name)
		}
	}
}

// iterate walks a body that may run any number of times (body sets p.i to its start) as bash's
// loops are walked (walker.loop); afterwards what it changed is unknown.
func (p *psParser) iterate(body func()) {
	pre := p.snapshot()
	start := pre
	p.w.runs(body, func() bool {
		p.forgetChanges(pre)
		p.forgetChanges(start)
		next := p.snapshot()
		last := maps.EqualFunc(next, start, sameVal)
		start = next
		return last
	}, p.vals.turnOff)
}

// psFunc is a function the line defines: where its body starts, and its parameters when it
// declares them in parentheses (`function f($a, $b)`).
type psFunc struct {
	body   int
	params psParams
}

// psParams are a param list's names in order; bindable is false when the list has more than
// plain names (defaults, attributes other than types), which makes binding them a guess.
type psParams struct {
	names    []string
	bindable bool
}

// paramList reads the names of the param list in the group from open (its `(`) to close (its
// `)`): each item a name, maybe after a plain type (`[string]$v`). Any other item (a default,
// an attribute such as [Parameter(Position=1)], a [switch], which takes no position) makes the
// list not bindable; the names in it are still found, so that the body does not read the
// caller's values for them.
func (p *psParser) paramList(open, close int) psParams {
	ps := psParams{bindable: true}
	if strings.TrimSpace(p.src[open+1:close]) == "" {
		return ps // param()
	}
	depth, from := 0, open+1
	item := func(to int) {
		text := strings.TrimSpace(p.src[from:to])
		if t, rest, ok := strings.Cut(text, "]"); ok && strings.HasPrefix(t, "[") {
			switch strings.ToLower(strings.TrimSpace(t[1:])) {
			case "string", "object", "int", "long", "string[", "object[":
				text = strings.TrimSpace(strings.TrimPrefix(rest, "]"))
			}
		}
		if n, ok := plainVar(text); ok {
			ps.names = append(ps.names, n)
			return
		}
		ps.bindable = false
		for m := from; m < to; m++ {
			if name, _, ok := p.varAt(m); ok && p.src[m] == '$' && !slices.Contains(ps.names, name) {
				ps.names = append(ps.names, name)
			}
		}
	}
	for k := open + 1; k < close; k++ {
		switch p.src[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				item(k)
				from = k + 1
			}
		}
	}
	item(close)
	return ps
}

// plainVar is the lowercased name of text when it is one variable, `$name` or `${name}`.
func plainVar(text string) (string, bool) {
	name, ok := strings.CutPrefix(text, "$")
	if !ok || name == "" {
		return "", false
	}
	if b, ok := strings.CutPrefix(name, "{"); ok {
		b, ok = strings.CutSuffix(b, "}")
		return strings.ToLower(b), ok && b != "" && !strings.ContainsAny(b, "{}")
	}
	for i := 0; i < len(name); i++ {
		if !isVarByte(name[i]) {
			return "", false
		}
	}
	return strings.ToLower(name), true
}

// psBinding is the arguments a body is walked with: a function's call, or a script block's.
type psBinding struct {
	args []rules.Word
}

// bind gives a body's parameters their values: positionally from the literal arguments when
// the list is plain and no argument names a parameter, and $args the rest; else all unknown.
func (p *psParser) bind(ps psParams, b *psBinding) {
	for _, n := range append(ps.names, "args") {
		p.shadow(n)
	}
	if b == nil {
		for _, n := range ps.names {
			p.forgetVal(n)
		}
		return
	}
	if p.vals.m == nil {
		p.vals.m = map[string]psVal{}
	}
	args := b.args
	if ps.bindable && !slices.ContainsFunc(args, psFlag) {
		for k, n := range ps.names {
			if k < len(args) {
				p.vals.m[n] = psVal{items: []string{args[k].Value}}
			} else {
				p.forgetVal(n)
			}
		}
		args = args[min(len(ps.names), len(args)):]
		p.vals.m["args"] = psVal{items: wordValues(args), array: true}
		return
	}
	for _, n := range ps.names {
		p.forgetVal(n)
	}
	p.forgetVal("args")
}

// invoke walks the body (a script block at start) again with the literal arguments of a call:
// a function's, or `& { … } a b`. What the body changed is unknown after it.
func (p *psParser) invoke(start int, params psParams, args []rules.Word) {
	if p.w.funcCalls >= maxFuncCalls || p.vals.off || !allLiteral(args) {
		// The body may set anything of the caller's ($global:a), and is not walked here.
		p.vals.forgetAll()
		return
	}
	p.w.funcCalls++
	save, pre, outer, shadowed := p.i, p.snapshot(), p.binding, p.shadowed
	p.shadowed = nil
	if p.vals.m == nil {
		p.vals.m = map[string]psVal{}
	}
	b := &psBinding{args: args}
	p.shadow("args")
	if params.names != nil {
		p.bind(params, b)
		b = nil // the parentheses were the parameters
	} else {
		p.vals.m["args"] = psVal{items: wordValues(args), array: true}
	}
	via := p.via
	p.via = appendVia(p.via, "function")
	p.i = start
	p.settleDir(func() { p.walkBlock(b) })
	p.unshadow()
	p.i, p.binding, p.via, p.shadowed = save, outer, via, shadowed
	p.forgetChanges(pre)
}

// psShadow holds, for the body being walked, the caller's values of its parameters, and how
// often every variable had been forgotten when they were kept.
type psShadow struct {
	vals   map[string]*psVal
	resets int
}

// shadow keeps the caller's value of a name a body's parameter takes, once per body.
func (p *psParser) shadow(name string) {
	if p.shadowed == nil {
		p.shadowed = &psShadow{vals: map[string]*psVal{}, resets: p.vals.resets}
	}
	if _, ok := p.shadowed.vals[name]; ok {
		return
	}
	if v, ok := p.vals.m[name]; ok {
		p.shadowed.vals[name] = &v
	} else {
		p.shadowed.vals[name] = nil
	}
}

// unshadow gives the names the body's parameters took their caller's values back, unless
// every variable was forgotten meanwhile.
func (p *psParser) unshadow() {
	if p.shadowed == nil {
		return
	}
	for name, v := range p.shadowed.vals {
		switch {
		case v == nil || p.vals.resets != p.shadowed.resets:
			delete(p.vals.m, name)
		case p.vals.m == nil:
			p.vals.m = map[string]psVal{name: *v}
		default:
			p.vals.m[name] = *v
		}
	}
	p.shadowed = nil
}
