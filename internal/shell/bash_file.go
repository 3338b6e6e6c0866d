package shell

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Files the line writes are tracked within the line: what a file's content is when the line
// wrote it from a literal (echo, printf, a here-document, tee), that it is a copy of or a link to
// a program (cp "$(command -v az)" x), or a symlink to another path. Running, sourcing or
// reading such a file as a script (bash FILE, ./FILE, source, sh < FILE, BASH_ENV, make -f)
// reads that content; a file the line wrote by other means is unknown, and running it is asked
// about. A script that existed before the line is not read: that is a documented limit.

// fileState is what the line left in one file.
type fileState struct {
	content string // when known
	known   bool
	program string // the program it is a copy of or a link to ("az")
	link    string // the path a symlink points at, as written
}

// fileKey is the tracking key of a path the line names: relative to the line's directory.
func (sc *scope) fileKey(v string) (string, bool) {
	if sc.dirUnknown || v == "" || strings.HasPrefix(v, "~") && !strings.HasPrefix(v, "~/") {
		return "", false
	}
	if path.IsAbs(v) || strings.HasPrefix(v, "~/") {
		return path.Clean(v), true
	}
	return path.Join(sc.dir, v), true
}

// The files are the walker's, not a scope's: a subshell or a pipeline element writes the same
// file system.
func (w *walker) file(sc *scope, wd rules.Word) (fileState, bool) {
	k, ok := sc.wordKey(wd)
	if !ok {
		return fileState{}, false
	}
	fs, ok := w.files[k]
	return fs, ok
}

func (w *walker) setFile(sc *scope, wd rules.Word, fs fileState) {
	k, ok := sc.wordKey(wd)
	if !ok {
		return
	}
	if w.files == nil {
		w.files = map[string]fileState{}
	}
	w.files[k] = fs
}

// wordKey is the tracking key of a path word: literal, or ~/… written plainly.
func (sc *scope) wordKey(wd rules.Word) (string, bool) {
	if !wd.Literal && !(strings.HasPrefix(wd.Value, "~/") && plainText(wd.Value[2:])) {
		return "", false
	}
	return sc.fileKey(wd.Value)
}

func (sc *scope) setAlias(name, program string) {
	sc.own()
	if sc.names == nil {
		sc.names = map[string]string{}
	}
	sc.names[name] = program
}

// program is the program a command word runs when the line made it another's: a name hashed
// to another program's path, a path the line copied or linked a program to, or, once the line
// changes PATH (to a folder it may have put such a copy in), a name one of them has.
func (w *walker) program(sc *scope, wd rules.Word) (string, bool) {
	if !wd.Literal {
		return "", false
	}
	if !hasSlash(wd.Value) {
		if p, ok := sc.names[wd.Value]; ok || !w.pathSet {
			return p, ok
		}
		for _, k := range slices.Sorted(maps.Keys(w.files)) {
			if fs := w.files[k]; fs.program != "" && path.Base(k) == wd.Value {
				return fs.program, true
			}
		}
		return "", false
	}
	fs, ok := w.file(sc, wd)
	if ok && fs.program != "" {
		return fs.program, true
	}
	return "", false
}

// through returns the path a write to w really changes: the target of a symlink the line made.
func (w *walker) through(sc *scope, wd rules.Word) rules.Word {
	for range 8 {
		fs, ok := w.file(sc, wd)
		if !ok || fs.link == "" {
			return wd
		}
		t := fs.link
		if !path.IsAbs(t) {
			t = path.Join(path.Dir(wd.Value), t)
		}
		wd = rules.Word{Value: t, Literal: true, Pos: wd.Pos, End: wd.End}
	}
	return wd
}

// programOf returns the program a copy's source word names: a literal path (../bin/az), or the
// lookup of a name (`$(command -v az)`, `$(which az)`, `$(type -P az)`).
func (w *walker) programOf(f frame, sc *scope, src rules.Word, syn *syntax.Word) string {
	if p, ok := w.program(sc, src); ok {
		return p
	}
	if src.Literal {
		if hasSlash(src.Value) {
			return commandName(src)
		}
		return ""
	}
	var cs *syntax.CmdSubst
	for _, p := range syn.Parts {
		switch x := p.(type) {
		case *syntax.CmdSubst:
			cs = x
		case *syntax.DblQuoted:
			if len(x.Parts) == 1 {
				cs, _ = x.Parts[0].(*syntax.CmdSubst)
			}
		}
	}
	if cs == nil || len(cs.Stmts) != 1 {
		return ""
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) < 2 {
		return ""
	}
	words := make([]string, 0, len(ce.Args))
	for _, a := range ce.Args {
		v, lit := wordValue(a, false)
		if !lit {
			return ""
		}
		words = append(words, v)
	}
	last := words[len(words)-1]
	switch {
	case words[0] == "which", words[0] == "command" && words[1] == "-v", words[0] == "type" && words[1] == "-P":
		return last
	}
	return ""
}

// track records what a simple command does to the files it writes: its redirections, and the
// file commands whose effect on a file's content is plain (tee, cp, install, ln, mv, rm).
func (w *walker) track(f frame, sc *scope, bc *bashCommand, st *syntax.Stmt, writes []rules.Word) {
	words, syn := bc.cmd.words, bc.syn
	name := commandName(words[0])
	for i, t := range writes {
		fs := fileState{}
		if b := w.producer(f, sc, st); b != nil && len(b.phs) == 0 {
			fs = fileState{content: b.text.String(), known: true}
		} else if name == "cat" && len(words) == 2 {
			// cat SRC > DST copies SRC.
			if src, ok := w.file(sc, words[1]); ok {
				fs = src
			} else if p := w.programOf(f, sc, words[1], syn[1]); p != "" {
				fs = fileState{program: p}
			}
		}
		if appends(st, i) {
			old, ok := w.file(sc, t)
			switch {
			case fs.known && ok && old.known:
				fs.content = old.content + fs.content
			case fs.known && !ok && t.Literal && (t.Value == "/dev/null"):
			default:
				fs = fileState{}
			}
		}
		if t.Literal && strings.HasPrefix(t.Value, "/dev/") {
			continue
		}
		w.setFile(sc, t, fs)
	}
	// The operands are read only for the commands below: most calls are none of them.
	switch name {
	case "tee":
		ops := operands(words[1:])
		content, known := "", false
		if b, _ := w.stdinScript(f, sc, st, bc.pipeIn); b != nil && len(b.phs) == 0 {
			content, known = b.text.String(), true
		}
		for _, o := range ops {
			old, ok := w.file(sc, o)
			fs := fileState{content: content, known: known}
			if hasOpt(words[1:], "-a") {
				if ok && old.known && known {
					fs.content = old.content + content
				} else {
					fs = fileState{}
				}
			}
			w.setFile(sc, o, fs)
		}
	case "cp", "install", "ln", "mv":
		ops := operands(words[1:])
		if len(ops) < 2 {
			return
		}
		dst, src := ops[len(ops)-1], ops[0]
		srcSyn := syn[1+indexOf(words[1:], src)]
		fs, ok := w.file(sc, src)
		switch {
		case name == "ln" && hasOpt(words[1:], "-s"):
			fs = fileState{link: src.Value}
			if !src.Literal {
				fs.link = ""
			}
			if p := w.programOf(f, sc, src, srcSyn); p != "" {
				fs.program = p
			}
		case ok:
		case w.programOf(f, sc, src, srcSyn) != "":
			fs = fileState{program: w.programOf(f, sc, src, srcSyn)}
		default:
			fs = fileState{}
		}
		w.setFile(sc, dst, fs)
	case "git":
		// git config alias.NAME '!command' makes `git NAME` run the command.
		ops := operands(words[1:])
		if len(ops) == 3 && ops[0].Value == "config" && strings.HasPrefix(ops[1].Value, "alias.") && allLiteral(ops) {
			w.setFile(sc, rules.Word{Value: "~/.gitconfig alias." + strings.TrimPrefix(ops[1].Value, "alias."), Literal: true}, fileState{content: ops[2].Value, known: true})
		}
	case "rm":
		for _, o := range operands(words[1:]) {
			if k, ok := sc.wordKey(o); ok {
				delete(w.files, k)
			}
		}
	}
}

// appends reports whether the i-th writing redirection of st appends (>>).
func appends(st *syntax.Stmt, i int) bool {
	n := 0
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
			if n == i {
				return r.Op == syntax.AppOut || r.Op == syntax.AppAll || r.Op == syntax.AppClob || r.Op == syntax.AppAllClob
			}
			n++
		}
	}
	return false
}

// operands are the words that are not options.
func operands(ws []rules.Word) []rules.Word {
	var out []rules.Word
	skip := false
	for i, w := range ws {
		if w.Literal && w.Value == "--" {
			return append(out, ws[i+1:]...)
		}
		if w.Literal && len(w.Value) > 1 && w.Value[0] == '-' {
			switch w.Value {
			case "-t", "--target-directory":
				return nil // the destination is an option's value: give up rather than misread it
			case "-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix":
				skip = true
			}
			continue
		}
		if skip {
			skip = false
			continue
		}
		out = append(out, w)
	}
	return out
}

func hasOpt(ws []rules.Word, opt string) bool {
	for _, w := range ws {
		if w.Literal && len(w.Value) > 1 && w.Value[0] == '-' && w.Value[1] != '-' && strings.ContainsRune(w.Value[1:], rune(opt[1])) {
			return true
		}
	}
	return false
}

func indexOf(ws []rules.Word, w rules.Word) int {
	for i := range ws {
		if ws[i].Pos == w.Pos && ws[i].Value == w.Value {
			return i
		}
	}
	return 0
}

// scriptFile is the script a file the line wrote holds, for a shell that runs or sources it:
// known is false when the line wrote the file by means whose result it does not show (then
// running it is asked about); ok is false when the line did not write the file at all.
func (w *walker) scriptFile(f frame, sc *scope, wd rules.Word) (s *source, known, ok bool) {
	fs, ok := w.file(sc, wd)
	if !ok {
		return nil, false, false
	}
	if !fs.known {
		return nil, false, true
	}
	return f.s.child(fs.content), true, true
}

// runFile follows what a command runs from a file the line wrote: the file itself (./s.sh), a
// copy's program is already its name), a shell's startup files (BASH_ENV for bash, ENV for an
// interactive sh, ~/.bashrc and PROMPT_COMMAND for an interactive bash), a Makefile's recipes,
// a git alias, an npm script. Content the line does not show is asked about.
func (w *walker) runFile(f frame, sc *scope, bc *bashCommand, ch chain, call int) {
	words := bc.cmd.words
	name := bc.name(words[0])
	read := func(wd rules.Word, label string) {
		fs, ok := w.file(sc, wd)
		switch {
		case !ok || fs.program != "" || fs.link != "":
		case !fs.known:
			w.unknownScript(call, label)
		default:
			w.readScript(bashDialect, f.s.child(fs.content), label, ch, nil, f.depth)
		}
	}
	env := func(name string) (rules.Word, bool) {
		for i := len(ch.env) - 1; i >= 0; i-- {
			if ch.env[i].a.Name == name {
				return ch.env[i].a.Value, true
			}
		}
		if vr, ok := sc.vals.vars[name]; ok && vr.Kind == expand.String {
			return rules.Word{Value: vr.Str, Literal: true}, true
		}
		return rules.Word{}, false
	}
	interactive := hasOpt(words[1:], "-i")
	switch {
	case strings.ContainsAny(words[0].Value, "/") && words[0].Literal:
		read(words[0], words[0].Value)
	case name == "bash":
		if v, ok := env("BASH_ENV"); ok && !interactive {
			read(v, "BASH_ENV")
		}
		if interactive {
			read(rules.Word{Value: path.Join("~", ".bashrc"), Literal: true}, "~/.bashrc")
			if v, ok := env("PROMPT_COMMAND"); ok {
				if v.Literal {
					w.readScript(bashDialect, f.s.child(v.Value), "PROMPT_COMMAND", ch, nil, f.depth)
				} else {
					w.unknownScript(call, "PROMPT_COMMAND")
				}
			}
		}
	case name == "sh" || name == "dash":
		if v, ok := env("ENV"); ok && interactive {
			read(v, "ENV")
		}
	case name == "make":
		file := ""
		for i := 1; i < len(words); i++ {
			if words[i].Literal && words[i].Value == "-f" && i+1 < len(words) {
				file = words[i+1].Value
			}
		}
		for _, mf := range []string{file, "GNUmakefile", "makefile", "Makefile"} {
			if mf == "" {
				continue
			}
			fs, ok := w.file(sc, rules.Word{Value: mf, Literal: true})
			if !ok {
				continue
			}
			if !fs.known {
				w.unknownScript(call, "make")
				return
			}
			w.readScript(bashDialect, f.s.child(recipes(fs.content)), "make", ch, nil, f.depth)
			return
		}
	case name == "git":
		w.gitAlias(f, sc, words, ch, call)
		// A hook the line wrote runs on the git command that triggers it.
		hooks, _ := sc.fileKey(".git/hooks")
		for _, k := range slices.Sorted(maps.Keys(w.files)) {
			if strings.HasPrefix(k, hooks+"/") {
				read(rules.Word{Value: k, Literal: true}, "git hook "+path.Base(k))
			}
		}
	case name == "npm" || name == "yarn" || name == "pnpm":
		w.npmScript(f, sc, words, ch, call)
	}
}

// npmScript reads `npm run NAME` from a package.json the line wrote.
func (w *walker) npmScript(f frame, sc *scope, words []rules.Word, ch chain, call int) {
	var ops []string
	for _, wd := range words[1:] {
		if !wd.Literal {
			return
		}
		if !strings.HasPrefix(wd.Value, "-") {
			ops = append(ops, wd.Value)
		}
	}
	if len(ops) < 2 || ops[0] != "run" && ops[0] != "run-script" {
		return
	}
	fs, ok := w.file(sc, rules.Word{Value: "package.json", Literal: true})
	if !ok {
		return
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if !fs.known || json.Unmarshal([]byte(fs.content), &pkg) != nil {
		w.unknownScript(call, "npm run")
		return
	}
	if script, ok := pkg.Scripts[ops[1]]; ok {
		w.readScript(bashDialect, f.s.child(script), "npm run "+ops[1], ch, nil, f.depth)
	}
}

// recipes are a Makefile's recipe lines (those that start with a tab), each a shell command.
func recipes(mk string) string {
	var b strings.Builder
	for _, l := range strings.Split(mk, "\n") {
		if r, ok := strings.CutPrefix(l, "\t"); ok {
			b.WriteString(strings.TrimLeft(r, "@-+"))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// gitAlias reads a git alias that runs a shell command: `git -c alias.x='!cmd' x`, or one the
// line set with git config.
func (w *walker) gitAlias(f frame, sc *scope, words []rules.Word, ch chain, call int) {
	aliases := map[string]rules.Word{}
	i := 1
	for ; i < len(words); i++ {
		v := words[i]
		if !v.Literal || !strings.HasPrefix(v.Value, "-") {
			break
		}
		if v.Value == "-c" && i+1 < len(words) {
			i++
			if k, val, ok := strings.Cut(words[i].Value, "="); ok && strings.HasPrefix(k, "alias.") {
				aliases[strings.TrimPrefix(k, "alias.")] = rules.Word{Value: val, Literal: words[i].Literal}
			}
		}
		if v.Value == "-C" {
			i++
		}
	}
	if i >= len(words) || !words[i].Literal {
		return
	}
	sub := words[i].Value
	a, ok := aliases[sub]
	if !ok {
		var fs fileState
		if fs, ok = w.file(sc, rules.Word{Value: "~/.gitconfig alias." + sub, Literal: true}); ok {
			a = rules.Word{Value: fs.content, Literal: true}
		}
	}
	switch {
	case !ok:
	case !a.Literal:
		w.unknownScript(call, "git "+sub)
	case strings.HasPrefix(a.Value, "!"):
		w.readScript(bashDialect, f.s.child(a.Value[1:]), "git "+sub, ch, nil, f.depth)
	}
}

// unknownScript reports that a call runs a script the line wrote by means it does not show: a
// call with the call's text as its non-literal command word, which the engine asks about.
func (w *walker) unknownScript(call int, label string) {
	if call >= len(w.calls) {
		return
	}
	c := w.calls[call]
	text := rules.Word{Value: c.Src[c.Start:c.End], Pos: c.Start, End: c.End}
	w.calls = append(w.calls, rules.Call{NameWord: text, Args: []rules.Word{text}, Env: c.Env, Dir: c.Dir, DirUnknown: c.DirUnknown,
		Via: appendVia(c.Via, label), Src: c.Src, Nested: c.Nested, Start: c.Start, End: c.End})
}
