package shell

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxguard/ctxguard/rules"
)

// command is a simple command as a reader hands it to the wrapper resolver: its words, the text
// they are in, and the reader's hooks for what only the reader of its dialect knows.
type command struct {
	reader
	words []rules.Word
	s     *source
}

// reader is what the resolver needs from the reader of a command's dialect.
type reader interface {
	dialect() dialect
	// name is the command name a word makes, "" when the word is not literal.
	name(w rules.Word) string
	// script is the text the pieces make when a shell joins them with blanks. It is nil and true
	// when there is nothing more to read (a PowerShell script block, read where it stands), nil
	// and false when the text cannot be known.
	script(ps ...piece) (*source, bool)
	// stdin is the script the command reads from stdin, when the line shows it, and how it gets
	// there ("<<", "<<<", "|").
	stdin() (*source, string)
	// file is a script file whose content the line shows (`bash <(echo …)`, a file the line
	// wrote); known is false when the line wrote it by means whose result it does not show.
	file(j int) (s *source, known bool)
	// state applies a builtin that changes the reader's shell (cd, unset, set).
	state(k stateKind, args []rules.Word)
	// read walks a script in dialect d: in this shell when same is set (eval, source), else in
	// a child that starts from ch.
	read(d dialect, s *source, label string, ch chain, same bool)
}

// piece is a part of a script a wrapper runs: a word of the command (word >= 0), or literal text
// (an option's attached value).
type piece struct {
	word int
	lit  string
}

func wordPiece(j int) piece { return piece{word: j} }

// valuePiece is an option's value as scanOpts gives it: the word at, or attached text.
func valuePiece(val *rules.Word, at int) piece {
	if at >= 0 {
		return wordPiece(at)
	}
	return piece{word: -1, lit: val.Value}
}

// chain is what a command word gets from the words and wrappers before it.
type chain struct {
	env        []envEntry
	dir        string
	dirUnknown bool
	via        []string
	start      int  // Start of the next call, or -1 for its command word
	appended   bool // a wrapper appends arguments (xargs, find -exec)
	shellLevel bool // no wrapper yet but builtin/command: cd, unset and eval act on this shell
	stdin      bool // the command reads the statement's stdin (here-document, pipe)
	links      int
	// feed is what xargs or parallel append to the command, when the line shows it:
	// `echo 'cmd' | xargs -I{} sh -c {}` and `parallel sh -c ::: 'cmd'` run those strings.
	feed *feed
	// params are $0, $1 … of a script the command runs (`sh -c STRING a0 a1`, `bash FILE a1`),
	// when hasParams is set.
	params    []rules.Word
	hasParams bool
	// cleared and unset say what the wrappers removed from the environment the line does not
	// show (env -i, sudo; env -u NAME).
	cleared bool
	unset   []string
	// psVals are the variables of the PowerShell scope a string runs in (Invoke-Expression);
	// nil for a new one.
	psVals *psValues
}

type feed struct {
	stdin  bool   // the wrapper's stdin
	inputs []int  // parallel's arguments after :::
	repl   string // the replace string, "" if none
}

func (ch *chain) chdir(d rules.Word) {
	sc := &scope{dir: ch.dir, dirUnknown: ch.dirUnknown}
	sc.cd(stateCd, []rules.Word{d})
	ch.dir, ch.dirUnknown = sc.dir, sc.dirUnknown
}

// site is a wrapper's call being resolved: what it runs starts from next.
type site struct {
	cmd    *command
	call   int // the wrapper's call, in walker.calls
	name   string
	a, end int // its arguments
	ch     chain
	next   chain
}

func (st *site) lit(k int) string {
	if k < st.end && st.cmd.words[k].Literal {
		return st.cmd.words[k].Value
	}
	return ""
}

// resolve reports the call whose command word is words[i] (its words end at end), then, if it
// is a wrapper, what it runs.
func (w *walker) resolve(cmd *command, i, end int, ch chain) {
	src := cmd.s.src
	if ch.links >= maxWrapperChain {
		p, e := cmd.words[i].Pos, cmd.words[end-1].End
		text := rules.Word{Value: src[p:e], Pos: p, End: e}
		w.calls = append(w.calls, rules.Call{
			NameWord: text, Args: []rules.Word{text}, Env: convertEnv(cmd.s, ch.env),
			Dir: ch.dir, DirUnknown: ch.dirUnknown, Via: appendVia(ch.via, "too deep"),
			Src: src, Nested: cmd.s.nested, Start: p, End: e, ArgsAppended: ch.appended,
		})
		return
	}
	nw := cmd.words[i]
	if ch.appended && nw.Literal && (nw.Value == "{}" || ch.feed != nil && ch.feed.repl != "" && strings.Contains(nw.Value, ch.feed.repl)) {
		// `find … -exec {} …`, `xargs -I{} {} …`: the command is what is found or read.
		nw.Literal = false
		nw.Value = src[nw.Pos:nw.End]
	}
	name := cmd.name(nw)
	c := rules.Call{
		Name: name, NameWord: nw, Env: convertEnv(cmd.s, ch.env), Dir: ch.dir, DirUnknown: ch.dirUnknown,
		Src: src, Nested: cmd.s.nested, Start: nw.Pos, End: cmd.words[end-1].End, ArgsAppended: ch.appended,
		EnvCleared: ch.cleared, Unset: ch.unset, Wrapped: i > 0,
	}
	if ch.start >= 0 {
		c.Start = ch.start
	}
	if len(ch.via) > 0 {
		c.Via = ch.via[:len(ch.via):len(ch.via)]
	}
	if end > i+1 {
		// Wrapper and wrapped calls share the words' storage: calls are read-only.
		c.Args = cmd.words[i+1 : end : end]
	}
	if len(w.calls) == cap(w.calls) {
		// Doubled, where append grows a long slice by a quarter or so: a line of a thousand
		// calls copies its calls (256 bytes each) far less often.
		w.calls = slices.Grow(w.calls, len(w.calls)+1)
	}
	w.calls = append(w.calls, c)
	next := ch
	next.links++
	next.start, next.shellLevel = -1, false
	st := &site{cmd: cmd, call: len(w.calls) - 1, name: name, a: i + 1, end: end, ch: ch, next: next}
	if name == "" {
		// `$SHELL -c '…'`: an unknown command given -c and a string is most likely a shell.
		if !nw.Literal && end > i+2 {
			st.name, st.next.stdin = "(dynamic command)", false
			st.ch = st.next
			w.shell(st, &posixShell, true)
		}
		return
	}
	k := wrapperNamed(cmd.dialect(), name)
	if k != nil {
		w.wrapped(st, k)
	}
	if k == nil || k.runs == runsNothing {
		w.afterDashes(st)
	}
}

// afterDashes follows a command that no row describes (or one that runs only what its options
// say): the words after a "--" that start with a command name are taken as the command it runs,
// as secret managers and env loaders do (`op run -- az …`, `runuser -u U -- kubectl …`). A name
// that no provider guards costs nothing, and a guarded one is bound in place like any call.
func (w *walker) afterDashes(st *site) {
	words := st.cmd.words
	for j := st.a; j+1 < st.end; j++ {
		if words[j].Literal && words[j].Value == "--" {
			if n := words[j+1]; n.Literal && n.Value != "" && n.Value[0] != '-' {
				next := st.next
				next.via = appendVia(st.ch.via, st.name+" --")
				w.resolve(st.cmd, j+1, st.end, next)
			}
			return
		}
	}
}

// wrapped follows what the wrapper k runs, as its row in the table says.
func (w *walker) wrapped(st *site, k *wrapper) {
	cmd, end := st.cmd, st.end
	label := cmp.Or(k.label, st.name)
	switch k.runs {
	case runsState:
		if st.ch.shellLevel {
			cmd.state(k.state, cmd.words[st.a:end])
		}
		return
	case runsShell:
		w.shell(st, k.shell, false)
		return
	case runsExec:
		w.execRuns(st, k, label)
		return
	case runsFirst:
		w.first(st, k)
		return
	case runsCode:
		w.code(st, k)
		return
	case runsOpaque:
		if !k.blocks || slices.ContainsFunc(cmd.words[st.a:end], func(wd rules.Word) bool {
			return !wd.Literal && !strings.HasPrefix(wd.Value, "{")
		}) {
			w.opaque(st, label)
		}
		return
	}
	next := &st.next
	if k.sameShell {
		next.shellLevel = st.ch.shellLevel
	}
	same := k.sameShell && st.ch.shellLevel
	var (
		noCmd, keepEnv, noSh, fromFile, delimited bool
		repl                                      string
		script, split                             *piece
	)
	j := scanOpts(cmd.words, st.a, end, k.opts, k.permute, func(opt string, val *rules.Word, at int) {
		switch {
		case slices.Contains(k.noCmd, opt), k.onlyIf != nil && !slices.Contains(k.onlyIf, opt):
			noCmd = true
		case slices.Contains(k.keepEnv, opt):
			keepEnv = true
		case slices.Contains(k.emptyEnv, opt):
			next.env, next.cleared = nil, true
		case slices.Contains(k.viaSh, opt):
			noSh = true
		case slices.Contains(k.argFile, opt):
			fromFile = true
		case slices.Contains(k.delimit, opt):
			delimited = true
		case slices.Contains(k.replace, opt):
			repl = "{}"
			if val != nil {
				repl = val.Value
			}
		case val == nil: // the options below need their value
		case slices.Contains(k.unsetEnv, opt):
			next.env = removeName(next.env, val.Value)
			next.unset = append(slices.Clip(next.unset), val.Value)
		case slices.Contains(k.chdir, opt):
			next.chdir(*val)
		case slices.Contains(k.script, opt):
			p := valuePiece(val, at)
			script = &p
		case slices.Contains(k.split, opt):
			p := valuePiece(val, at)
			split = &p
		}
	})
	if noCmd {
		return
	}
	if k.clearEnv && !keepEnv {
		next.env, next.cleared = nil, true
	}
	if k.dirUnknown {
		next.dir, next.dirUnknown = "", true
	}
	if k.dashEmpty && st.lit(j) == "-" {
		next.env, next.cleared = nil, true
		j++
	}
	switch {
	case script != nil:
		w.readPieces(st, k.lang, scriptLabel(k, st.name, k.script), same, *script)
		return
	case split != nil:
		// `env -S 'cmd args'` splits the string into words: close enough to a script.
		w.readPieces(st, k.lang, scriptLabel(k, st.name, k.split), same, append([]piece{*split}, wordPieces(j, end)...)...)
		return
	}
	j = min(j+k.skip, end)
	// `flock FILE -c COMMAND`: a script option after the operands.
	if slices.Contains(k.script, st.lit(j)) && j+1 < end {
		w.readPieces(st, k.lang, scriptLabel(k, st.name, k.script), same, wordPiece(j+1))
		return
	}
	switch k.runs {
	case runsNothing:
		return
	case runsHandler:
		// `trap STRING SIG…`; `trap - SIG`, `trap '' SIG` and `trap SIG` reset or ignore.
		if end-j >= 2 {
			if v := cmd.words[j]; !v.Literal || v.Value != "-" && v.Value != "" && !isNumber(v.Value) {
				w.readPieces(st, k.lang, label, same, wordPiece(j))
			}
		}
		return
	case runsJoined:
		if k.marker != nil {
			m := slices.IndexFunc(cmd.words[j:end], func(wd rules.Word) bool {
				return wd.Literal && slices.ContainsFunc(k.marker, func(mk string) bool { return strings.EqualFold(wd.Value, mk) })
			})
			if m < 0 {
				return
			}
			j += m + 1
		}
		if j < end {
			w.readPieces(st, k.lang, label, same, wordPieces(j, end)...)
		}
		return
	case runsSource:
		if j < end && isStdinPath(cmd.words[j]) {
			if s, how := cmd.stdin(); s != nil {
				cmd.read(bashDialect, s, st.name+" "+how, *next, same)
			} else if how == "?" {
				w.opaque(st, st.name)
			}
			return
		}
		if j < end {
			switch s, known := cmd.file(j); {
			case !known:
				w.opaque(st, st.name)
			case s != nil:
				cmd.read(bashDialect, s, st.name+" "+scriptName(cmd.words[j]), *next, same)
			}
		}
		return
	case runsParallel:
		w.parallel(st, j)
		return
	}
	if k.assigns {
		j = w.assignWords(cmd, j, end, next)
	}
	if k.noStdin || k.appends {
		next.stdin = false
	}
	// watch hands its operands to `sh -c`: read them as a script when they need a shell's
	// reading, else as the command they are, which stays editable in place.
	if k.viaSh != nil && !noSh && j < end && slices.ContainsFunc(cmd.words[j:end], func(wd rules.Word) bool {
		return !wd.Literal || strings.ContainsAny(wd.Value, " \t\n;&|<>()$`\\\"'*?[#~=%{}")
	}) {
		w.readPieces(st, bashDialect, label, false, wordPieces(j, end)...)
		return
	}
	if k.appends {
		next.appended = true
		if k.replace != nil && st.ch.stdin && !fromFile {
			next.feed = &feed{stdin: true, repl: repl}
		}
	}
	if j < end {
		next.via = appendVia(st.ch.via, label)
		first := len(w.calls)
		w.resolve(cmd, j, end, *next)
		if k.appends && st.ch.stdin && !fromFile && !delimited {
			w.fed(st, first, repl)
		}
	}
}

// fed gives the calls from first on what xargs appends to them when the line shows its input
// (`echo .ctxguard.yaml | xargs rm`), in rules.Call.May: the input's words at the place of the
// call's command word; with a replace string (-I{}), each input line in its place. Input with
// quotes or backslashes, which xargs reads its own way, is not given.
func (w *walker) fed(st *site, first int, repl string) {
	s, _ := st.cmd.stdin()
	if s == nil || len(s.phs) > 0 || strings.ContainsAny(s.text, `"'\\`) {
		return
	}
	for i := first; i < len(w.calls); i++ {
		c := &w.calls[i]
		if c.Src != st.cmd.s.src || !c.ArgsAppended {
			continue
		}
		if repl == "" {
			for _, f := range strings.Fields(s.text) {
				c.May = append(c.May, rules.Word{Value: f, Literal: true, Pos: c.NameWord.Pos, End: c.NameWord.End})
			}
			continue
		}
		for _, a := range c.Args {
			if !a.Literal || !strings.Contains(a.Value, repl) {
				continue
			}
			for _, l := range strings.Split(s.text, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					c.May = append(c.May, rules.Word{Value: strings.ReplaceAll(a.Value, repl, l), Pos: a.Pos, End: a.End})
				}
			}
		}
	}
}

// scriptLabel is the Via label of a script given in one of opts: "su -c", "env -S".
func scriptLabel(k *wrapper, name string, opts []string) string {
	if k.scriptLabel != "" {
		return k.scriptLabel
	}
	return name + " " + opts[0]
}

func wordPieces(j, end int) []piece {
	ps := make([]piece, 0, end-j)
	for ; j < end; j++ {
		ps = append(ps, wordPiece(j))
	}
	return ps
}

// readPieces reads the script the pieces make, from the wrapper's next chain; a script that
// cannot be known makes the wrapper opaque.
func (w *walker) readPieces(st *site, d dialect, label string, same bool, ps ...piece) {
	s, ok := st.cmd.script(ps...)
	switch {
	case s != nil:
		st.cmd.read(d, s, label, st.next, same)
	case !ok:
		w.opaque(st, label)
	}
}

// opaque reports that a wrapper starts something ctxguard cannot follow: a call with the
// wrapper's text as its non-literal command word, which the engine asks about when it names a
// guarded command.
func (w *walker) opaque(st *site, label string) {
	c := w.calls[st.call]
	text := rules.Word{Value: c.Src[c.Start:c.End], Pos: c.Start, End: c.End}
	w.calls = append(w.calls, rules.Call{NameWord: text, Args: []rules.Word{text}, Env: c.Env, Dir: c.Dir, DirUnknown: c.DirUnknown,
		Via: appendVia(c.Via, label), Src: c.Src, Nested: c.Nested, Start: c.Start, End: c.End})
}

// shell follows what a shell runs: a -c string (or pwsh's -Command, -EncodedCommand), a script
// file whose content the line shows, or the script it reads from stdin. onlyC is set for a
// command that is only guessed to be a shell.
func (w *walker) shell(st *site, g *shellGrammar, onlyC bool) {
	cmd, end, name := st.cmd, st.end, st.name
	run := g.scan(cmd.words, st.a, end)
	if run.what == shellFile && st.lit(run.at) == "-" {
		run.what = shellStdin // `pwsh -File -`
	}
	label := name + " " + run.opt
	switch run.what {
	case shellString:
		// Under xargs, the string may come from xargs' input: `xargs -I{} sh -c {}`, or the
		// first appended argument of `xargs sh -c`.
		if fd := st.ch.feed; fd != nil && (run.at >= end || fd.repl != "" && st.lit(run.at) == fd.repl) {
			if fd.stdin {
				if s, _ := cmd.stdin(); s != nil {
					cmd.read(g.lang, s, label, st.next, false)
				}
			}
			for _, in := range fd.inputs {
				w.readPieces(st, g.lang, label, false, wordPiece(in))
			}
			return
		}
		switch {
		case run.at >= end:
		case st.ch.feed != nil && st.ch.feed.repl != "" && g.lang == bashDialect && strings.Contains(st.lit(run.at), st.ch.feed.repl):
			// `xargs -I{} sh -c '{} group list'`: each {} is replaced by what xargs reads.
			b := &textBuilder{w: w}
			for k, part := range strings.Split(st.lit(run.at), st.ch.feed.repl) {
				if k > 0 {
					b.exp(st.ch.feed.repl)
				}
				b.lit(part)
			}
			cmd.read(g.lang, b.source(cmd.s), label, st.next, false)
		case run.join && run.at == end-1 && st.lit(run.at) == "-":
			w.shellStdin(st, g, onlyC) // `pwsh -Command -`
		case run.join:
			w.readPieces(st, g.lang, label, false, wordPieces(run.at, end)...)
		default:
			// The words after the string are its $0, $1 …; without them $0 is the shell's name.
			// (Not under xargs or find, which append more.)
			if !st.next.appended {
				st.next.params, st.next.hasParams = cmd.words[run.at+1:end], true
				if run.at+1 >= end {
					st.next.params = []rules.Word{{Value: name, Literal: true}}
				}
			}
			w.readPieces(st, g.lang, label, false, wordPiece(run.at))
		}
	case shellEncoded:
		if run.at >= end {
			return
		}
		text, ok := decodeEncoded(cmd.words[run.at])
		if !ok {
			w.opaque(st, label)
			return
		}
		cmd.read(psDialect, cmd.s.child(text), label, st.next, false)
	case shellFile:
		// `bash <(echo '…')`: a script file that is a process substitution printing a literal.
		if !onlyC && run.at < end {
			if isStdinPath(cmd.words[run.at]) {
				w.shellStdin(st, g, onlyC) // bash /dev/stdin
				return
			}
			switch s, known := cmd.file(run.at); {
			case !known:
				w.opaque(st, name)
			case s != nil:
				next := st.next
				next.params, next.hasParams = cmd.words[run.at:end], !next.appended
				cmd.read(g.lang, s, name+" "+scriptName(cmd.words[run.at]), next, false)
			}
		}
	case shellStdin:
		w.shellStdin(st, g, onlyC)
	}
}

func (w *walker) shellStdin(st *site, g *shellGrammar, onlyC bool) {
	if onlyC || !st.ch.stdin {
		return
	}
	s, how := st.cmd.stdin()
	switch {
	case s == nil && how == "?":
		// A script comes in, but the line does not show what it is (`… | base64 -d | bash`).
		w.opaque(st, "| "+st.name)
	case s == nil:
	case how == "|":
		st.cmd.read(g.lang, s, "| "+st.name, st.next, false)
	default:
		st.cmd.read(g.lang, s, st.name+" "+how, st.next, false)
	}
}

// first handles Invoke-Expression: the value of its script parameter, else its first operand,
// else the literal piped into it, is a PowerShell script, run in the caller's scope.
func (w *walker) first(st *site, k *wrapper) {
	for m := st.a; m < st.end; m++ {
		if wd := st.cmd.words[m]; psFlag(wd) {
			if m+1 < st.end && slices.ContainsFunc(k.script, func(p string) bool { return psParamPrefix(wd.Value, p) }) {
				w.readPieces(st, k.lang, k.scriptLabel, true, wordPiece(m+1))
				return
			}
			continue
		}
		w.readPieces(st, k.lang, k.scriptLabel, true, wordPiece(m))
		return
	}
	switch s, how := st.cmd.stdin(); {
	case s != nil:
		st.cmd.read(k.lang, s, k.scriptLabel, st.next, true)
	case how == "?":
		w.opaque(st, k.scriptLabel)
	}
}

// psParamPrefix reports whether the option word v names the PowerShell parameter name (given
// with its dash, any case): PowerShell accepts any prefix of a parameter's name.
func psParamPrefix(v, name string) bool {
	return len(v) >= 2 && strings.HasPrefix(name, strings.ToLower(v))
}

// execRuns handles find -exec and fd -x: each run of words after one of the wrapper's exec
// options is a command.
func (w *walker) execRuns(st *site, k *wrapper, label string) {
	next := st.next
	next.appended, next.stdin = true, false
	var found []rules.Word
	if ws := st.cmd.words[st.a:st.end]; slices.ContainsFunc(ws, func(wd rules.Word) bool {
		return wd.Literal && (slices.Contains(k.deleteOpts, wd.Value) || slices.Contains(k.execOpts, wd.Value))
	}) {
		found = finds(st, k)
		if slices.ContainsFunc(ws, func(wd rules.Word) bool { return wd.Literal && slices.Contains(k.deleteOpts, wd.Value) }) {
			w.calls[st.call].Writes = append(w.calls[st.call].Writes, found...)
		}
	}
	for m := st.a; m < st.end; m++ {
		v := st.lit(m)
		if !slices.Contains(k.execOpts, v) {
			continue
		}
		s, e := m+1, m+1
		for ; e < st.end; e++ {
			if t := st.lit(e); t == ";" || k.plusEnds && t == "+" && e > s && st.lit(e-1) == "{}" {
				break
			}
		}
		if s < e {
			next.via = appendVia(st.ch.via, label+" "+v)
			first := len(w.calls)
			w.resolve(st.cmd, s, e, next)
			for i := first; i < len(w.calls); i++ {
				stands(&w.calls[i], found)
			}
		}
		m = e
	}
}

// maxFoundDepth is how deep below its start a found file is spelled out, for the checks of
// what it may be: the state files of the CLIs lie at most that deep in the home folder.
const maxFoundDepth = 4

// finds is what a find-like command may find, as words that are not literal (patterns under its
// starting points, at each depth), at the place of the wrapper's name: for the checks of the
// files it deletes, or that the commands it runs with {} write.
func finds(st *site, k *wrapper) []rules.Word {
	ws := st.cmd.words[st.a:st.end]
	var starts, names []string
	i := 0
	for ; k.startFirst && i < len(ws); i++ {
		if v := ws[i].Value; ws[i].Literal && (strings.HasPrefix(v, "-") || v == "(" || v == "!") {
			break
		}
		starts = append(starts, strings.TrimSuffix(ws[i].Value, "/"))
	}
	every := false
	for ; i < len(ws); i++ {
		switch v := ws[i].Value; {
		case !ws[i].Literal:
		case slices.Contains(k.nameOpts, v) && i+1 < len(ws):
			i++
			names = append(names, ws[i].Value)
		case v == "-o" || v == "-or" || v == "!" || v == "-not" || v == ",":
			every = true // the names do not narrow what is found
		}
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	if len(names) == 0 || every {
		names = []string{"*"}
	}
	nw := st.cmd.words[st.a-1]
	var out []rules.Word
	for _, s := range starts {
		for _, n := range names {
			for d := range maxFoundDepth {
				out = append(out, rules.Word{Value: s + strings.Repeat("/*", d) + "/" + n, Pos: nw.Pos, End: nw.End})
			}
		}
	}
	return out
}

// stands adds to Call.May what a call's {} arguments stand for: each path the finder may find.
func stands(c *rules.Call, found []rules.Word) {
	for _, a := range c.Args {
		if !a.Literal || !strings.Contains(a.Value, "{}") {
			continue
		}
		for _, f := range found {
			c.May = append(c.May, rules.Word{Value: strings.ReplaceAll(a.Value, "{}", f.Value), Pos: a.Pos, End: a.End})
		}
	}
}

// parallel handles GNU parallel after its options: `parallel cmd args ::: inputs`, or, without
// a command, `parallel ::: 'cmd 1' 'cmd 2'`, where each input is a command line.
func (w *walker) parallel(st *site, j int) {
	sep := func(m int) bool {
		switch st.lit(m) {
		case ":::", "::::", ":::+", "::::+":
			return true
		}
		return false
	}
	k := j
	for k < st.end && !sep(k) {
		k++
	}
	fd := &feed{repl: "{}", stdin: st.ch.stdin && k == st.end}
	if st.lit(k) == ":::" {
		for m := k + 1; m < st.end && !sep(m); m++ {
			fd.inputs = append(fd.inputs, m)
		}
	}
	st.next.appended, st.next.stdin = true, false
	if k > j {
		next := st.next
		next.feed = fd
		next.via = appendVia(next.via, "parallel")
		w.resolve(st.cmd, j, k, next)
		return
	}
	// No command: each input is a command line.
	for _, in := range fd.inputs {
		w.readPieces(st, bashDialect, "parallel", false, wordPiece(in))
	}
	if fd.stdin {
		if s, _ := st.cmd.stdin(); s != nil {
			st.cmd.read(bashDialect, s, "parallel", st.next, false)
		}
	}
}

// assignWords takes the `NAME=value` words that env and sudo accept before the command: they
// become Prefix assignments of the wrapped call, which starts at the first of them. A word that
// is not literal is one only when its name is written plainly (`env K="$V"`, not `env "$K"=v`).
func (w *walker) assignWords(cmd *command, j, end int, ch *chain) int {
	var add []envEntry
	for ; j < end; j++ {
		wd := cmd.words[j]
		name, _, ok := strings.Cut(wd.Value, "=")
		if !ok || name == "" || !wd.Literal && !isName(name) {
			break
		}
		if ch.start < 0 {
			ch.start = wd.Pos
		}
		if name == "PATH" {
			w.pathSet = true
		}
		add = append(add, envEntry{assignFromWord(cmd.s, wd, name), cmd.s})
	}
	if len(add) > 0 {
		ch.env = mergeEnv(ch.env, add...)
	}
	return j
}

// assignFromWord splits the word `NAME=value` into an assignment. The value keeps a position
// when the word is written plainly (the usual case); otherwise (`"A"=1`) it has none (-1).
func assignFromWord(s *source, wd rules.Word, name string) rules.Assign {
	a := rules.Assign{Name: name, Prefix: true}
	if strings.HasPrefix(s.src[wd.Pos:wd.End], name+"=") {
		v := rules.Word{Literal: wd.Literal, Pos: wd.Pos + len(name) + 1, End: wd.End}
		if wd.Literal {
			v.Value = wd.Value[len(name)+1:]
		} else {
			v.Value = s.src[v.Pos:v.End]
		}
		a.Value = v
		return a
	}
	a.Value = rules.Word{Value: strings.TrimPrefix(wd.Value, name+"="), Literal: wd.Literal, Pos: -1, End: -1}
	return a
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// opts describes a wrapper's options: short ones that take a value (val), short ones whose
// value can only be attached (opt, like xargs -i[R]), and long ones that take the next word.
type opts struct {
	val, opt string
	long     []string
}

// scanOpts walks the option words from i and returns the index of the first operand: the first
// word not starting with "-", the word after "--", or a non-literal word (which may be either).
// With permute, options after operands are walked too (GNU getopt's default). fn, if not nil,
// gets each option with its value: the word at (-1 when the value is attached to the option).
func scanOpts(words []rules.Word, i, end int, o opts, permute bool, fn func(opt string, val *rules.Word, at int)) int {
	if fn == nil {
		fn = func(string, *rules.Word, int) {}
	}
	first := -1
	for i < end {
		wd := words[i]
		v := wd.Value
		if !wd.Literal || len(v) < 2 || v[0] != '-' {
			if !permute {
				return i
			}
			if first < 0 {
				first = i
			}
			i++
			continue
		}
		i++
		if v == "--" {
			break
		}
		if strings.HasPrefix(v, "--") {
			name, val, ok := strings.Cut(v, "=")
			switch {
			case ok:
				fn(name, &rules.Word{Value: val, Literal: true, Pos: wd.Pos, End: wd.End}, -1)
			case slices.Contains(o.long, name) && i < end:
				fn(name, &words[i], i)
				i++
			default:
				fn(name, nil, -1)
			}
			continue
		}
		for k := 1; k < len(v); k++ {
			c := v[k]
			opt := "-" + v[k:k+1]
			attached := func() *rules.Word { return &rules.Word{Value: v[k+1:], Literal: true, Pos: wd.Pos, End: wd.End} }
			switch {
			case strings.IndexByte(o.val, c) >= 0:
				switch {
				case k+1 < len(v):
					fn(opt, attached(), -1)
				case i < end:
					fn(opt, &words[i], i)
					i++
				default:
					fn(opt, nil, -1)
				}
			case strings.IndexByte(o.opt, c) >= 0:
				if k+1 < len(v) {
					fn(opt, attached(), -1)
				} else {
					fn(opt, nil, -1)
				}
			default:
				fn(opt, nil, -1)
				continue
			}
			break
		}
	}
	if first >= 0 {
		return first
	}
	return i
}

// isStdinPath reports whether a script file argument is the shell's own stdin.
func isStdinPath(w rules.Word) bool {
	switch w.Value {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return w.Literal
	}
	return false
}

// scriptName is how a Via label names a script file: <(…) for a process substitution.
func scriptName(w rules.Word) string {
	if w.Literal {
		return w.Value
	}
	return "<(…)"
}

// code follows an interpreter's literal program: the files it opens for writing are the
// interpreter call's Writes, and a program that starts a process is reported as a call whose
// non-literal command word is the program, which the engine asks about when it names a guarded
// CLI. What the program computes at run time (a name built from pieces) is not seen.
func (w *walker) code(st *site, k *wrapper) {
	cmd := st.cmd
	text, at, found := "", -1, false
	var given []string // the other options' values (awk -v c=az): the code may use them
	j := scanOpts(cmd.words, st.a, st.end, k.opts, false, func(opt string, val *rules.Word, i int) {
		switch {
		case slices.Contains(k.code, opt) && val != nil && !found:
			text, at, found = val.Value, i, val.Literal
		case val != nil:
			given = append(given, val.Value)
		}
	})
	switch {
	case found:
	case k.codeFirst && j < st.end:
		text, at, found = cmd.words[j].Value, j, cmd.words[j].Literal
	case !k.codeFirst && (j >= st.end || st.lit(j) == "-") && st.ch.stdin:
		if s, _ := cmd.stdin(); s != nil && len(s.phs) == 0 {
			text, found = s.text, true
		}
	}
	if !found || text == "" {
		return
	}
	if k.writes != "" {
		span := rules.Word{Pos: w.calls[st.call].Start, End: w.calls[st.call].End}
		if at >= 0 {
			span = cmd.words[at]
		}
		for _, m := range compiled(k.writes).FindAllStringSubmatch(text, -1) {
			w.calls[st.call].Writes = append(w.calls[st.call].Writes, rules.Word{Value: m[1], Literal: true, Pos: span.Pos, End: span.End})
		}
	}
	if k.spawn != "" && compiled(k.spawn).MatchString(text) {
		if len(given) > 0 {
			text += "\n" + strings.Join(given, " ")
		}
		s := cmd.s.child(text)
		c := w.calls[st.call]
		code := rules.Word{Value: text, Pos: 0, End: len(text)}
		w.calls = append(w.calls, rules.Call{NameWord: code, Args: []rules.Word{code}, Env: c.Env, Dir: c.Dir, DirUnknown: c.DirUnknown,
			Via: appendVia(c.Via, st.name+" code"), Src: s.src, Nested: true, End: len(text), Code: true})
	}
}

// interpreterExprs are the wrapper table's expressions for interpreters' code (spawn, writes),
// compiled once each: a line may run the same interpreter many times.
var interpreterExprs sync.Map

func compiled(expr string) *regexp.Regexp {
	if re, ok := interpreterExprs.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(expr)
	interpreterExprs.Store(expr, re)
	return re
}
