package shell

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxReparseDepth bounds how many strings deep (`bash -c "sh -c '…'"`) the walk goes: each
	// level re-parses a substring, so the total work stays linear in the line times this bound.
	maxReparseDepth = 16
	// maxNodeDepth bounds the nesting of compound commands and substitutions that the walk
	// follows within one text; deeper nodes are reported as one opaque "too deep" call.
	maxNodeDepth = 500
	// maxWrapperChain bounds `nohup nohup nohup …`: each link copies the wrapper chain.
	maxWrapperChain = 64

	// The mvdan parser recurses once per nesting level, and a goroutine stack overflow is fatal
	// (a crashed hook lets the command through). Measured worst cases are about 3.3 KB of stack
	// per opening bracket and under 0.5 KB per other byte; the runtime limit is 1 GB.
	stackPerOpener = 4096
	stackPerByte   = 512
	stackBudget    = 700 << 20
	alwaysSafeLen  = 128 << 10
	// maxBracketDepth bounds the nesting of brackets in the text. The parser's time grows
	// faster than linearly with it (10,000 nested "(" take half a second), and the walk reports
	// nodes past maxNodeDepth as opaque anyway: no real line comes near.
	maxBracketDepth = 2 * maxNodeDepth
)

// SyntaxError is returned by Parse for a line the shell would reject (or that is too deeply
// nested to parse safely). Offset is a byte offset into the text that failed; Line and Col are
// 1-based, 0 when unknown.
type SyntaxError struct {
	Offset, Line, Col int
	Msg               string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("shell syntax error at %d:%d (byte %d): %s", e.Line, e.Col, e.Offset, e.Msg)
	}
	return fmt.Sprintf("shell syntax error at byte %d: %s", e.Offset, e.Msg)
}

// Parse returns every command the line would run, in execution order, seen through wrappers.
// See the package documentation for what is reported and how. A line the shell would reject
// gives a *SyntaxError and no calls; an empty or comment-only line gives no calls and no error.
func Parse(src string) ([]rules.Call, error) {
	file, err := parseScript(src)
	if err != nil {
		return nil, err
	}
	w := &walker{line: src}
	s := &source{text: src, src: src}
	w.stmts(frame{w: w, s: s}, file.Stmts, &scope{})
	return w.calls, nil
}

var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// parseScript parses text as a bash script, refusing texts that could exhaust the stack.
func parseScript(text string) (f *syntax.File, err error) {
	if i := strings.IndexByte(text, 0); i >= 0 {
		// bash drops NUL bytes from its input, and so does the parser, but its positions then
		// drift; such a line is not worth the risk of misreading it.
		return nil, &SyntaxError{Offset: i, Msg: "NUL byte in command line"}
	}
	if err := checkStack(text); err != nil {
		return nil, err
	}
	p := parsers.Get().(*syntax.Parser)
	defer func() {
		// A panic in the third-party parser must not crash the hook: report it as an error and
		// drop the parser, whose state is unknown.
		if r := recover(); r != nil {
			f, err = nil, &SyntaxError{Msg: fmt.Sprintf("shell parser failed on this input: %v", r)}
		}
	}()
	f, err = p.Parse(strings.NewReader(text), "")
	parsers.Put(p)
	if err != nil {
		return nil, syntaxError(err)
	}
	return f, nil
}

func syntaxError(err error) error {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return &SyntaxError{Offset: int(pe.Pos.Offset()), Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Msg: pe.Text}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return &SyntaxError{Offset: int(le.Pos.Offset()), Line: int(le.Pos.Line()), Col: int(le.Pos.Col()), Msg: le.Error()}
	}
	return &SyntaxError{Msg: err.Error()}
}

// checkStack bounds the parser's recursion from the text alone: nesting needs an opening
// bracket (or a keyword, which costs far less stack) per level.
func checkStack(text string) error {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(', '{', '[':
			if depth++; depth > maxBracketDepth {
				return &SyntaxError{Offset: i, Msg: fmt.Sprintf("command line nested more than %d brackets deep, too deep to parse in time", maxBracketDepth)}
			}
		case ')', '}', ']':
			depth = max(depth-1, 0)
		}
	}
	if len(text) <= alwaysSafeLen {
		return nil
	}
	openers := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(', '{', '[', '`':
			openers++
		}
	}
	if openers*stackPerOpener+len(text)*stackPerByte > stackBudget {
		return &SyntaxError{Msg: fmt.Sprintf("command line too large or too deeply nested to parse safely (%d bytes, %d brackets)", len(text), openers)}
	}
	return nil
}

// walker collects the calls of one Parse.
type walker struct {
	line  string
	calls []rules.Call
	// Placeholders stand for expansions in strings that are parsed again; phOrig[i] is the
	// source text of placeholder i. phPrefix is chosen so that it does not occur in the line.
	phPrefix string
	phOrig   []string
	// funcCalls counts the calls of functions defined in the line that the walk followed, and
	// loopWalks the walks of loop bodies after their first (bash_value.go).
	funcCalls, loopWalks int
	// files are the files the line wrote, so far in the walk (bash_file.go); pathSet says that
	// the line assigns PATH, so a command name may find one of them.
	files   map[string]fileState
	pathSet bool
}

// source is one text being walked: the line, or a string parsed again as a script.
type source struct {
	text   string   // what the parser saw, with placeholders
	src    string   // Call.Src: text with each placeholder replaced by the expansion it stands for
	phs    []phSpan // placeholder spans, in order
	nested bool
	depth  int // re-parse depth
}

type phSpan struct{ tStart, tEnd, sStart, sEnd int }

// pos maps an offset in s.text to one in s.src; an offset strictly inside a placeholder goes to
// the start (or, for an end offset, the end) of the expansion it stands for.
func (s *source) pos(p int, end bool) int {
	if len(s.phs) == 0 {
		return p
	}
	k, _ := slices.BinarySearchFunc(s.phs, p, func(ph phSpan, p int) int {
		if ph.tEnd <= p {
			return -1
		}
		return 1
	})
	if k < len(s.phs) && s.phs[k].tStart < p {
		if end {
			return s.phs[k].sEnd
		}
		return s.phs[k].sStart
	}
	if k == 0 {
		return p
	}
	last := s.phs[k-1]
	return last.sEnd + (p - last.tEnd)
}

// hasPH reports whether text[p:e] overlaps a placeholder.
func (s *source) hasPH(p, e int) bool {
	if len(s.phs) == 0 {
		return false
	}
	k, _ := slices.BinarySearchFunc(s.phs, p, func(ph phSpan, p int) int {
		if ph.tEnd <= p {
			return -1
		}
		return 1
	})
	return k < len(s.phs) && s.phs[k].tStart < e
}

// frame is the context of a walk through one text: the wrapper chain that led to it and how
// deep in compound commands and substitutions the walk is.
type frame struct {
	w     *walker
	s     *source
	via   []string
	depth int
}

// enter returns the frame for a node one level deeper, or false (after reporting the node as
// too deep) when the limit is reached.
func (w *walker) enter(f frame, n syntax.Node, sc *scope) (frame, bool) {
	if f.depth+1 > maxNodeDepth {
		w.tooDeep(f, n, sc)
		return f, false
	}
	f.depth++
	return f, true
}

func (w *walker) tooDeep(f frame, n syntax.Node, sc *scope) {
	p, e := f.offsets(n)
	text := rules.Word{Value: f.s.src[p:e], Pos: p, End: e}
	w.calls = append(w.calls, rules.Call{
		NameWord:   text,
		Args:       []rules.Word{text},
		Env:        convertEnv(f.s, sc.env),
		Dir:        sc.dir,
		DirUnknown: sc.dirUnknown,
		Via:        appendVia(f.via, "too deep"),
		Src:        f.s.src,
		Nested:     f.s.nested,
		Start:      p,
		End:        e,
	})
}

// offsets returns the node's extent in f.s.src.
func (f frame) offsets(n syntax.Node) (int, int) {
	p, e := f.clamp(int(n.Pos().Offset())), f.clamp(int(n.End().Offset()))
	p, e = f.s.pos(p, false), f.s.pos(e, true)
	if e < p {
		e = p
	}
	return p, e
}

func (f frame) clamp(o int) int {
	return max(0, min(o, len(f.s.text)))
}

func appendVia(via []string, label string) []string {
	out := make([]string, len(via)+1)
	copy(out, via)
	out[len(via)] = label
	return out
}

func (w *walker) stmts(f frame, list []*syntax.Stmt, sc *scope) {
	for _, st := range list {
		w.stmt(f, st, sc, nil)
	}
}

// stmt walks one statement; pipeIn is the statement piping into it, if any.
func (w *walker) stmt(f frame, st *syntax.Stmt, sc *scope, pipeIn *syntax.Stmt) {
	if st.Background || st.Coprocess || st.Disown {
		sc = sc.child() // an asynchronous command runs in a subshell
	}
	switch cmd := st.Cmd.(type) {
	case nil:
		w.substRedirs(f, st.Redirs, sc)
		w.redirOnly(f, st, sc)
	case *syntax.CallExpr:
		w.callExpr(f, st, cmd, sc, pipeIn)
	default:
		w.substRedirs(f, st.Redirs, sc)
		w.command(f, st, sc)
		w.redirOnly(f, st, sc)
	}
}

func (w *walker) command(f frame, st *syntax.Stmt, sc *scope) {
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			w.pipeline(f, st, sc)
			return
		}
		// `a && b || c` nests to the left; flatten it so that long chains do not recurse.
		// Every leaf after the first may not run: what they change is unknown after the list.
		// Under && alone a leaf runs only after every earlier one did; once an || comes before
		// it, an earlier leaf may have been skipped, so it starts with their changes unknown.
		var leaves []*syntax.Stmt
		var ors []bool // whether the operator before leaves[i] is ||, in the same order
		x := st
		for {
			b, ok := x.Cmd.(*syntax.BinaryCmd)
			if !ok || (b.Op != syntax.AndStmt && b.Op != syntax.OrStmt) || x != st && (x.Background || len(x.Redirs) > 0) {
				break
			}
			leaves, ors = append(leaves, b.Y), append(ors, b.Op == syntax.OrStmt)
			x = b.X
		}
		w.stmt(f, x, sc, nil)
		after, or := sc.iteration(), false
		for i := len(leaves) - 1; i >= 0; i-- {
			if or = or || ors[i]; or {
				sc.forgetChanges(after)
			}
			w.stmt(f, leaves[i], sc, nil)
		}
		sc.forgetChanges(after)
	case *syntax.Subshell:
		if f, ok := w.enter(f, c, sc); ok {
			w.stmts(f, c.Stmts, sc.child())
		}
	case *syntax.Block:
		if f, ok := w.enter(f, c, sc); ok {
			w.stmts(f, c.Stmts, sc)
		}
	case *syntax.IfClause:
		if f, ok := w.enter(f, c, sc); ok {
			// Each branch may run or not, and a later one runs instead of an earlier: it starts
			// with what any earlier branch changed unknown, and so does what follows.
			w.stmts(f, c.Cond, sc)
			st := sc.iteration()
			w.stmts(f, c.Then, sc)
			for e := c.Else; e != nil; e = e.Else {
				sc.forgetChanges(st)
				w.stmts(f, e.Cond, sc)
				w.stmts(f, e.Then, sc)
			}
			sc.forgetChanges(st)
		}
	case *syntax.WhileClause:
		if f, ok := w.enter(f, c, sc); ok {
			w.loop(sc, func() {
				w.stmts(f, c.Cond, sc)
				w.stmts(f, c.Do, sc)
			})
		}
	case *syntax.ForClause:
		if f, ok := w.enter(f, c, sc); ok {
			w.subst(f, c.Loop, sc)
			w.loopVar(f, sc, c.Loop)
			w.loop(sc, func() { w.stmts(f, c.Do, sc) })
		}
	case *syntax.CaseClause:
		if f, ok := w.enter(f, c, sc); ok {
			w.subst(f, c.Word, sc)
			st := sc.iteration()
			for _, it := range c.Items {
				sc.forgetChanges(st)
				for _, p := range it.Patterns {
					w.subst(f, p, sc)
				}
				w.stmts(f, it.Stmts, sc)
			}
			sc.forgetChanges(st)
		}
	case *syntax.FuncDecl:
		// The body runs when the function is called, which this walk cannot follow; report its
		// calls here, in a scope of their own.
		if f, ok := w.enter(f, c, sc); ok && c.Body != nil {
			w.stmt(f, c.Body, sc.child(), nil)
			if f.s.knownName(c.Name) {
				sc.defineFunc(c.Name.Value, funcDef{body: c.Body, f: f})
			}
		}
	case *syntax.TestDecl:
		if f, ok := w.enter(f, c, sc); ok && c.Body != nil {
			w.stmt(f, c.Body, sc.child(), nil)
		}
	case *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		// Arithmetic and tests run nothing themselves, but substitutions inside them do.
		w.subst(f, c, sc)
	case *syntax.DeclClause:
		w.subst(f, c, sc)
		w.decl(f, c, sc)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			if f, ok := w.enter(f, c, sc); ok {
				f.via = appendVia(f.via, "time")
				w.stmt(f, c.Stmt, sc, nil)
			}
		}
	case *syntax.CoprocClause:
		if f, ok := w.enter(f, c, sc); ok && c.Stmt != nil {
			f.via = appendVia(f.via, "coproc")
			w.stmt(f, c.Stmt, sc.child(), nil)
		}
	}
}

// pipeline walks `a | b | c`: each element runs in a subshell of its own, and a shell at the
// end of a pipe may be reading a script from the element before it.
func (w *walker) pipeline(f frame, st *syntax.Stmt, sc *scope) {
	var elems []*syntax.Stmt
	x := st
	for {
		b, ok := x.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) || x != st && (x.Background || len(x.Redirs) > 0) {
			break
		}
		elems = append(elems, b.Y)
		x = b.X
	}
	elems = append(elems, x)
	slices.Reverse(elems)
	for i, e := range elems {
		var in *syntax.Stmt
		if i > 0 {
			in = elems[i-1]
		}
		w.stmt(f, e, sc.child(), in)
	}
}

// subst walks the command and process substitutions inside a node that is not itself a
// command (a word, an assignment, arithmetic, a test): they run before the command using it.
func (w *walker) subst(f frame, n syntax.Node, sc *scope) {
	if n == nil {
		return
	}
	if wd, ok := n.(*syntax.Word); ok && !needsWalk(wd) {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			label := "$(…)"
			if x.Backquotes {
				label = "`…`"
			}
			w.substBody(f, x, x.Stmts, label, sc)
			return false
		case *syntax.ProcSubst:
			label := "<(…)"
			if x.Op == syntax.CmdOut {
				label = ">(…)"
			}
			w.substBody(f, x, x.Stmts, label, sc)
			return false
		}
		return true
	})
}

// needsWalk reports whether a word can contain a substitution.
func needsWalk(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return true
		}
	}
	return false
}

func (w *walker) substBody(f frame, n syntax.Node, stmts []*syntax.Stmt, label string, sc *scope) {
	f, ok := w.enter(f, n, sc)
	if !ok {
		return
	}
	f.via = appendVia(f.via, label)
	w.stmts(f, stmts, sc.child())
}

func (w *walker) substRedirs(f frame, rs []*syntax.Redirect, sc *scope) {
	for _, r := range rs {
		if r.Word != nil {
			w.subst(f, r.Word, sc)
		}
		if r.Hdoc != nil {
			w.subst(f, r.Hdoc, sc)
		}
	}
}

// callExpr walks a simple command: the expansions in its words run first, then the command.
func (w *walker) callExpr(f frame, st *syntax.Stmt, ce *syntax.CallExpr, sc *scope, pipeIn *syntax.Stmt) {
	for _, a := range ce.Assigns {
		w.subst(f, a, sc)
	}
	for _, a := range ce.Args {
		w.subst(f, a, sc)
	}
	w.substRedirs(f, st.Redirs, sc)
	if len(ce.Args) == 0 {
		w.assignOnly(f, ce.Assigns, sc)
		w.redirOnly(f, st, sc)
		return
	}
	// The reader and the command it reads are one allocation.
	words, syn := w.literalWords(f, sc, ce.Args)
	if len(words) == 0 {
		// Every word expanded to nothing: the assignments stay in this shell.
		w.assignOnly(f, ce.Assigns, sc)
		w.redirOnly(f, st, sc)
		return
	}
	bc := &bashCommand{f: f, sc: sc, syn: syn, stmt: st, pipeIn: pipeIn}
	bc.cmd = command{reader: bc, words: words, s: f.s}
	cmd := &bc.cmd
	ch := chain{env: sc.env, dir: sc.dir, dirUnknown: sc.dirUnknown, via: f.via, start: -1, shellLevel: true, stdin: true}
	if len(ce.Assigns) > 0 {
		add := make([]envEntry, 0, len(ce.Assigns))
		for _, a := range ce.Assigns {
			if a.Name == nil {
				continue
			}
			add = append(add, envEntry{f.assign(a, true), f.s})
		}
		ch.env = mergeEnv(ch.env, add...)
		ch.start, _ = f.offsets(ce.Assigns[0])
	}
	first := len(w.calls)
	w.resolve(cmd, 0, len(cmd.words), ch)
	writes := w.writes(f, sc, st.Redirs)
	if first < len(w.calls) {
		// (An interpreter's code may have named files it writes already.)
		w.calls[first].Writes = append(writes, w.calls[first].Writes...)
		writes = w.calls[first].Writes
	}
	if may := sc.mayHold(cmd.words[1:], writes); len(may) > 0 {
		for i := first; i < len(w.calls); i++ {
			if w.calls[i].Src == f.s.src {
				w.calls[i].May = may
			}
		}
	}
	w.builtin(f, sc, cmd, st)
	w.runFile(f, sc, bc, ch, first)
	w.track(f, sc, bc, st, writes)
	if def, ok := sc.funcs[commandName(cmd.words[0])]; ok && cmd.words[0].Literal {
		w.callFunc(def, sc, cmd.words[1:], ch)
	}
}

// bashCommand is the bash reader's side of a simple command, for the wrapper resolver.
type bashCommand struct {
	cmd    command
	f      frame
	sc     *scope
	syn    []*syntax.Word // parallel to the command's words
	stmt   *syntax.Stmt   // for the here-documents that feed a shell
	pipeIn *syntax.Stmt   // the statement piping into this one, if any
}

func (c *bashCommand) dialect() dialect { return bashDialect }
func (c *bashCommand) name(w rules.Word) string {
	if p, ok := c.f.w.program(c.sc, w); ok {
		return p
	}
	return commandName(w)
}

func (c *bashCommand) script(ps ...piece) (*source, bool) {
	b := &textBuilder{w: c.f.w, sc: c.sc}
	for i, p := range ps {
		if i > 0 {
			b.raw(" ")
		}
		switch {
		case p.word >= 0 && c.cmd.words[p.word].Literal:
			b.lit(c.cmd.words[p.word].Value)
		case p.word >= 0:
			b.word(c.f, c.syn[p.word], modeWord)
		default:
			b.lit(p.lit)
		}
	}
	return b.source(c.f.s), true
}

func (c *bashCommand) stdin() (*source, string) {
	b, how := c.f.w.stdinScript(c.f, c.sc, c.stmt, c.pipeIn)
	if b != nil {
		return b.source(c.f.s), how
	}
	return nil, how
}

func (c *bashCommand) file(j int) (*source, bool) {
	if b := c.f.w.procScript(c.f, c.sc, c.syn[j]); b != nil {
		return b.source(c.f.s), true
	}
	if s, known, ok := c.f.w.scriptFile(c.f, c.sc, c.cmd.words[j]); ok {
		return s, known
	}
	// A process substitution whose output the line does not show (`. <(base64 -d …)`).
	for _, p := range c.syn[j].Parts {
		if ps, ok := p.(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
			return nil, false
		}
	}
	return nil, true
}

func (c *bashCommand) read(d dialect, s *source, label string, ch chain, same bool) {
	var sc *scope
	if same {
		sc = c.sc
	}
	c.f.w.readScript(d, s, label, ch, sc, c.f.depth)
}

func (c *bashCommand) state(k stateKind, args []rules.Word) {
	sc := c.sc
	switch k {
	case stateCd, statePushd, statePopd:
		sc.cd(k, args)
	case stateUnset:
		funcs := false
		for _, wd := range args {
			switch {
			case !wd.Literal:
			case wd.Value == "-f":
				funcs = true
			case strings.HasPrefix(wd.Value, "-"):
			case !funcs:
				sc.unset(wd.Value)
			}
		}
	case stateSet:
		for k := 0; k < len(args); k++ {
			v := args[k].Value
			if !args[k].Literal {
				continue
			}
			switch {
			case v == "--":
				return
			case v == "-o" || v == "+o":
				if k+1 < len(args) && args[k+1].Literal && args[k+1].Value == "allexport" {
					sc.allexport = v == "-o"
				}
				k++
			case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.ContainsRune(v, 'a'):
				sc.allexport = v[0] == '-'
			}
		}
	}
}

// assignOnly handles `VAR=x` without a command: a shell variable, which reaches the environment
// of later calls only if it is (or gets) exported.
func (w *walker) assignOnly(f frame, as []*syntax.Assign, sc *scope) {
	for _, a := range as {
		w.assignValue(f, sc, a, "")
		if a.Name == nil || a.Index != nil || a.Array != nil {
			continue
		}
		v := f.assign(a, false)
		if sc.allexport || sc.isExported(v.Name) {
			sc.setEnv(envEntry{v, f.s})
		} else {
			sc.setVar(envEntry{v, f.s})
		}
	}
}

// decl handles export, declare, typeset, local and readonly.
func (w *walker) decl(f frame, c *syntax.DeclClause, sc *scope) {
	variant := c.Variant.Value
	switch variant {
	case "export", "declare", "typeset", "local", "readonly":
	default:
		return
	}
	export, unexport, funcs := variant == "export", false, false
	flags := ""
	for _, a := range c.Args {
		if a.Naked && a.Name == nil {
			opt := ""
			if a.Value != nil {
				opt = a.Value.Lit()
			}
			switch {
			case strings.HasPrefix(opt, "-"):
				flags += opt
				if strings.ContainsRune(opt, 'x') {
					export = true
				}
				if variant == "export" && strings.ContainsRune(opt, 'n') {
					unexport = true
				}
				if strings.ContainsAny(opt, "fF") {
					funcs = true
				}
			case strings.HasPrefix(opt, "+"):
				if strings.ContainsRune(opt, 'x') {
					unexport = true
				}
			}
			continue
		}
		if !funcs && !a.Naked {
			w.assignValue(f, sc, a, flags)
		}
		if funcs || a.Name == nil || a.Index != nil || a.Array != nil {
			continue
		}
		name := f.restore(a.Name.Value)
		switch {
		case unexport:
			sc.unexport(name)
		case export && a.Naked:
			sc.exportName(name)
		case export || sc.allexport || sc.isExported(name):
			if !a.Naked {
				sc.setEnv(envEntry{f.assign(a, false), f.s})
			}
		case !a.Naked:
			sc.setVar(envEntry{f.assign(a, false), f.s})
		}
	}
}

// word converts a syntax word of the frame's text.
func (f frame) word(wd *syntax.Word, assign bool) rules.Word {
	p, e := f.clamp(int(wd.Pos().Offset())), f.clamp(int(wd.End().Offset()))
	if e < p {
		e = p
	}
	v, lit := wordValue(wd, assign)
	if s := f.s; len(s.phs) > 0 {
		if lit && s.hasPH(p, e) {
			lit = false
		}
		p, e = s.pos(p, false), s.pos(e, true)
	}
	if !lit {
		v = f.s.src[p:e]
	}
	return rules.Word{Value: v, Literal: lit, Pos: p, End: e}
}

// assign converts `NAME=value` (or `NAME+=value`, `NAME=(…)`, `NAME=`).
func (f frame) assign(a *syntax.Assign, prefix bool) rules.Assign {
	out := rules.Assign{Name: f.restore(a.Name.Value), Prefix: prefix}
	if out.Name == "PATH" {
		f.w.pathSet = true
	}
	switch {
	case a.Value != nil:
		out.Value = f.word(a.Value, true)
	case a.Array != nil:
		p, e := f.offsets(a.Array)
		out.Value = rules.Word{Value: f.s.src[p:e], Pos: p, End: e}
	default:
		_, e := f.offsets(a)
		out.Value = rules.Word{Literal: true, Pos: e, End: e}
	}
	if a.Append {
		out.Value.Literal = false
		out.Value.Value = f.s.src[out.Value.Pos:out.Value.End]
	}
	return out
}

// restore replaces placeholders in s by the expansions they stand for.
func (f frame) restore(s string) string {
	if len(f.s.phs) == 0 {
		return s
	}
	var b textBuilder
	b.w = f.w
	b.lit(s)
	return b.src.String()
}

// commandName normalises a command word: directories and a Windows suffix are stripped (a
// Windows suffix also means a case-insensitive file system, so the name is lowercased then).
// Git Bash runs a Windows program by the suffixes of rules.ProgramSuffixes.
func commandName(w rules.Word) string {
	return programName(w, rules.ProgramSuffixes(rules.ShellBash), false)
}

// programName is the program a literal command word names: the last path element without a
// suffix of suffixes, lowercased when it had one or when lower is set; "" for a word that is not
// literal.
func programName(w rules.Word, suffixes []string, lower bool) string {
	if !w.Literal {
		return ""
	}
	n := afterSlash(w.Value)
	if !lower && strings.IndexByte(n, '.') < 0 {
		return n // no suffix, and nothing to lowercase: most command words
	}
	l := strings.ToLower(n)
	for _, suf := range suffixes {
		if len(l) > len(suf) && strings.HasSuffix(l, suf) {
			return l[:len(l)-len(suf)]
		}
	}
	if lower {
		return l
	}
	return n
}
