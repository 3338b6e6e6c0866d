package shell

import (
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/syntax"
)

// simpleCmd is one simple command's words as the wrapper loop sees them.
type simpleCmd struct {
	words  []rules.Word
	syn    []*syntax.Word // parallel to words
	stmt   *syntax.Stmt   // for the here-documents that feed a shell
	pipeIn *syntax.Stmt   // the statement piping into this one, if any
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
}

type feed struct {
	pipe   *syntax.Stmt   // the statement piping into xargs or parallel
	inputs []*syntax.Word // parallel's arguments after :::
	repl   string         // the replace string, "" if none
}

// resolve reports the call whose command word is words[i] (its words end at end), then, if it
// is a wrapper, the call it runs.
func (w *walker) resolve(f frame, sc *scope, cmd *simpleCmd, i, end int, ch chain) {
	if ch.links >= maxWrapperChain {
		p, e := cmd.words[i].Pos, cmd.words[end-1].End
		text := rules.Word{Value: f.s.src[p:e], Pos: p, End: e}
		w.calls = append(w.calls, rules.Call{
			NameWord: text, Args: []rules.Word{text}, Env: convertEnv(f, ch.env),
			Dir: ch.dir, DirUnknown: ch.dirUnknown, Via: appendVia(ch.via, "too deep"),
			Src: f.s.src, Nested: f.s.nested, Start: p, End: e, ArgsAppended: ch.appended,
		})
		return
	}
	nw := cmd.words[i]
	name := commandName(nw)
	c := rules.Call{
		Name: name, NameWord: nw, Env: convertEnv(f, ch.env), Dir: ch.dir, DirUnknown: ch.dirUnknown,
		Src: f.s.src, Nested: f.s.nested, Start: nw.Pos, End: cmd.words[end-1].End, ArgsAppended: ch.appended,
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
	w.calls = append(w.calls, c)
	if name == "" {
		// `$SHELL -c '…'`: an unknown command given -c and a string is most likely a shell.
		if !nw.Literal && end > i+2 {
			next := ch
			next.links++
			next.start, next.shellLevel, next.stdin = -1, false, false
			w.shell(f, sc, cmd, "(dynamic command)", i+1, end, next, next, true)
		}
		return
	}

	a := i + 1 // first argument
	next := ch
	next.links++
	next.start = -1
	next.shellLevel = false
	wrap := func(label string, j int) {
		if j >= 0 && j < end {
			next.via = appendVia(ch.via, label)
			w.resolve(f, sc, cmd, j, end, next)
		}
	}
	lit := func(k int) (string, bool) {
		if k < end && cmd.words[k].Literal {
			return cmd.words[k].Value, true
		}
		return "", false
	}

	switch name {
	case "sudo", "doas":
		preserve, noCmd := false, false
		var dir *rules.Word
		o := opts{val: "ugpCDrtTUR", long: []string{"--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--host"}}
		if name == "doas" {
			o = opts{val: "uC"}
		}
		j := scanOpts(cmd.words, a, end, o, func(opt string, val *rules.Word) {
			switch opt {
			case "-E", "--preserve-env":
				preserve = name == "sudo"
			case "-D", "--chdir":
				dir = val
			case "-e", "--edit", "-l", "--list", "-V", "--version", "-v", "--validate", "-K", "--remove-timestamp", "-h", "--help", "-L":
				noCmd = true
			case "-C":
				noCmd = noCmd || name == "doas"
			}
		})
		if noCmd {
			return
		}
		if !preserve {
			next.env = nil
		}
		if dir != nil {
			next.chdir(*dir)
		}
		if name == "sudo" {
			j = w.assignWords(f, cmd, j, end, &next)
		}
		wrap(name, j)
	case "env":
		noCmd := false
		var split *rules.Word
		j := scanOpts(cmd.words, a, end, opts{val: "uCSPa", long: []string{"--unset", "--chdir", "--split-string", "--argv0"}}, func(opt string, val *rules.Word) {
			switch opt {
			case "-i", "--ignore-environment":
				next.env = nil
			case "-u", "--unset":
				if val != nil {
					next.env = removeName(next.env, val.Value)
				}
			case "-C", "--chdir":
				if val != nil {
					next.chdir(*val)
				}
			case "-S", "--split-string":
				split = val
			case "--help", "--version", "--list-signal-handling":
				noCmd = true
			}
		})
		if noCmd {
			return
		}
		if v, ok := lit(j); ok && v == "-" {
			next.env = nil
			j++
		}
		if split != nil {
			// `env -S 'cmd args'` splits the string into words: close enough to a script.
			b := &textBuilder{w: w}
			b.lit(split.Value)
			for k := j; k < end; k++ {
				b.raw(" ")
				b.word(f, cmd.syn[k], modeWord)
			}
			w.reparse(f, sc, b, "env -S", next, false)
			return
		}
		j = w.assignWords(f, cmd, j, end, &next)
		wrap("env", j)
	case "command":
		lookup := false
		j := scanOpts(cmd.words, a, end, opts{}, func(opt string, _ *rules.Word) {
			lookup = lookup || opt == "-v" || opt == "-V"
		})
		if !lookup {
			next.shellLevel = ch.shellLevel
			wrap("command", j)
		}
	case "builtin":
		next.shellLevel = ch.shellLevel
		wrap("builtin", scanOpts(cmd.words, a, end, opts{}, nil))
	case "exec":
		wrap("exec", scanOpts(cmd.words, a, end, opts{val: "a"}, func(opt string, _ *rules.Word) {
			if opt == "-c" {
				next.env = nil
			}
		}))
	case "nohup", "setsid", "busybox", "chronic":
		wrap(name, scanOpts(cmd.words, a, end, opts{}, nil))
	case "time":
		wrap("time", scanOpts(cmd.words, a, end, opts{val: "fo", long: []string{"--format", "--output"}}, nil))
	case "timeout":
		j := scanOpts(cmd.words, a, end, opts{val: "sk", long: []string{"--signal", "--kill-after"}}, nil)
		if j < end {
			wrap("timeout", j+1) // skip DURATION
		}
	case "nice":
		wrap("nice", scanOpts(cmd.words, a, end, opts{val: "n", long: []string{"--adjustment"}}, nil))
	case "ionice":
		noCmd := false
		j := scanOpts(cmd.words, a, end, opts{val: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}}, func(opt string, _ *rules.Word) {
			switch opt {
			case "-p", "-P", "-u", "--pid", "--pgid", "--uid":
				noCmd = true // acts on running processes
			}
		})
		if !noCmd {
			wrap("ionice", j)
		}
	case "stdbuf":
		wrap("stdbuf", scanOpts(cmd.words, a, end, opts{val: "ioe", long: []string{"--input", "--output", "--error"}}, nil))
	case "watch":
		exec := false
		j := scanOpts(cmd.words, a, end, opts{val: "nqs", long: []string{"--interval", "--equexit", "--shotsdir"}}, func(opt string, _ *rules.Word) {
			exec = exec || opt == "-x" || opt == "--exec"
		})
		next.stdin = false
		// Without -x, watch joins its arguments and hands them to `sh -c`.
		if !exec && j < end && slices.ContainsFunc(cmd.words[j:end], func(wd rules.Word) bool {
			return !wd.Literal || strings.ContainsAny(wd.Value, " \t\n;&|<>()$`\\\"'*?[#~=%{}")
		}) {
			w.reparse(f, sc, w.joinWords(f, cmd, j, end), "watch", next, false)
			return
		}
		wrap("watch", j)
	case "xargs":
		noCmd, fromFile, repl := false, false, ""
		j := scanOpts(cmd.words, a, end, opts{val: "adEILnPs", opt: "eil", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}}, func(opt string, val *rules.Word) {
			switch opt {
			case "--help", "--version":
				noCmd = true
			case "-a", "--arg-file":
				fromFile = true
			case "-I", "--replace":
				repl = "{}"
				if val != nil {
					repl = val.Value
				}
			case "-i":
				repl = "{}"
			}
		})
		if strings.HasPrefix(repl, "-i") { // -iR: the replace string is attached
			repl = repl[2:]
		}
		if !noCmd {
			next.appended, next.stdin = true, false
			if ch.stdin && !fromFile && cmd.pipeIn != nil {
				next.feed = &feed{pipe: cmd.pipeIn, repl: repl}
			}
			wrap("xargs", j)
		}
	case "parallel":
		w.parallel(f, sc, cmd, a, end, next)
	case "trap":
		j := scanOpts(cmd.words, a, end, opts{}, nil)
		if end-j >= 2 {
			if v, ok := lit(j); !ok || v != "-" && v != "" && !isNumber(v) {
				b := &textBuilder{w: w}
				b.word(f, cmd.syn[j], modeWord)
				w.reparse(f, sc, b, "trap", next, false)
			}
		}
	case "ssh":
		// The words after the host are joined and run by the remote user's shell.
		j := scanOpts(cmd.words, a, end, opts{val: "BbcDEeFIiJLlmOopQRSWw"}, nil)
		if j+1 < end {
			next.env, next.dir, next.dirUnknown = nil, "", true
			w.reparse(f, sc, w.joinWords(f, cmd, j+1, end), "ssh", next, false)
		}
	case "wsl":
		noCmd := false
		j := scanOpts(cmd.words, a, end, opts{val: "du", long: []string{"--distribution", "--user", "--cd", "--shell-type"}}, func(opt string, _ *rules.Word) {
			switch opt {
			case "-e", "--exec", "--":
			case "-d", "-u", "--distribution", "--user", "--cd", "--shell-type":
			default:
				noCmd = true // --list, --shutdown, --install, …
			}
		})
		if !noCmd {
			next.env, next.dirUnknown = nil, true
			wrap("wsl", j)
		}
	case "chroot":
		j := scanOpts(cmd.words, a, end, opts{long: []string{"--userspec", "--groups"}}, nil)
		next.dirUnknown = true
		wrap("chroot", j+1) // skip NEWROOT
	case "find":
		next.appended, next.stdin = true, false
		for k := a; k < end; k++ {
			v, _ := lit(k)
			switch v {
			case "-exec", "-execdir", "-ok", "-okdir":
			default:
				continue
			}
			s, m := k+1, k+1
			for ; m < end; m++ {
				t, _ := lit(m)
				if t == ";" || t == "+" && m > s && cmd.words[m-1].Literal && cmd.words[m-1].Value == "{}" {
					break
				}
			}
			if s < m {
				next.via = appendVia(ch.via, "find "+v)
				w.resolve(f, sc, cmd, s, m, next)
			}
			k = m
		}
	case "fd", "fdfind":
		next.appended, next.stdin = true, false
		for k := a; k < end; k++ {
			v, _ := lit(k)
			switch v {
			case "-x", "--exec", "-X", "--exec-batch":
			default:
				continue
			}
			s, m := k+1, k+1
			for m < end {
				if t, _ := lit(m); t == ";" {
					break
				}
				m++
			}
			if s < m {
				next.via = appendVia(ch.via, "fd "+v)
				w.resolve(f, sc, cmd, s, m, next)
			}
			k = m
		}
	case "eval":
		j := scanOpts(cmd.words, a, end, opts{}, nil)
		if j < end {
			next.shellLevel = ch.shellLevel
			w.reparse(f, sc, w.joinWords(f, cmd, j, end), "eval", next, ch.shellLevel)
		}
	case "su", "runuser":
		for k := a; k < end; k++ {
			if v, _ := lit(k); (v == "-c" || v == "--command") && k+1 < end {
				b := &textBuilder{w: w}
				b.word(f, cmd.syn[k+1], modeWord)
				w.reparse(f, sc, b, name+" -c", next, false)
				return
			}
		}
	case "cmd":
		// cmd.exe /c "…" under a Windows shell: its syntax is close enough for simple commands.
		for k := a; k < end; k++ {
			if v, _ := lit(k); strings.EqualFold(v, "/c") || strings.EqualFold(v, "/k") {
				w.reparse(f, sc, w.joinWords(f, cmd, k+1, end), "cmd /c", next, false)
				return
			}
		}
	case "powershell", "pwsh":
		for k := a; k < end; k++ {
			if v, _ := lit(k); strings.EqualFold(v, "-c") || strings.EqualFold(v, "-command") {
				w.reparse(f, sc, w.joinWords(f, cmd, k+1, end), name+" -c", next, false)
				return
			}
		}
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish":
		w.shell(f, sc, cmd, name, a, end, ch, next, false)
	case "source", ".":
		if j := scanOpts(cmd.words, a, end, opts{}, nil); j < end {
			if b := w.procScript(f, cmd.syn[j]); b != nil {
				next.shellLevel = ch.shellLevel
				w.reparse(f, sc, b, name+" <(…)", next, ch.shellLevel)
			}
		}
	case "script":
		// script [-q] -c 'command' [file] runs the command through a shell.
		for k := a; k < end; k++ {
			if v, _ := lit(k); (v == "-c" || v == "--command") && k+1 < end {
				b := &textBuilder{w: w}
				b.word(f, cmd.syn[k+1], modeWord)
				w.reparse(f, sc, b, "script -c", next, false)
				return
			} else if strings.HasPrefix(v, "-") && strings.HasSuffix(v, "c") && !strings.HasPrefix(v, "--") && k+1 < end {
				b := &textBuilder{w: w}
				b.word(f, cmd.syn[k+1], modeWord)
				w.reparse(f, sc, b, "script -c", next, false)
				return
			}
		}
	case "flock":
		// flock [options] FILE COMMAND [ARGS] or flock [options] FILE -c COMMAND.
		j := scanOpts(cmd.words, a, end, opts{val: "wE", long: []string{"--timeout", "--wait", "--conflict-exit-code"}}, nil)
		if v, _ := lit(j + 1); (v == "-c" || v == "--command") && j+2 < end {
			b := &textBuilder{w: w}
			b.word(f, cmd.syn[j+2], modeWord)
			w.reparse(f, sc, b, "flock -c", next, false)
			return
		}
		wrap("flock", j+1)
	case "cd", "pushd", "popd":
		if ch.shellLevel {
			sc.cd(name, cmd.words[a:end])
		}
	case "unset":
		if ch.shellLevel {
			funcs := false
			for _, wd := range cmd.words[a:end] {
				switch {
				case !wd.Literal:
				case wd.Value == "-f":
					funcs = true
				case strings.HasPrefix(wd.Value, "-"):
				case !funcs:
					sc.unset(wd.Value)
				}
			}
		}
	case "set":
		if ch.shellLevel {
			for k := a; k < end; k++ {
				v, _ := lit(k)
				switch {
				case v == "--":
					return
				case v == "-o" || v == "+o":
					if o, _ := lit(k + 1); o == "allexport" {
						sc.allexport = v == "-o"
					}
					k++
				case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.ContainsRune(v, 'a'):
					sc.allexport = v[0] == '-'
				}
			}
		}
	}
}

func (ch *chain) chdir(d rules.Word) {
	sc := &scope{dir: ch.dir, dirUnknown: ch.dirUnknown}
	sc.cd("cd", []rules.Word{d})
	ch.dir, ch.dirUnknown = sc.dir, sc.dirUnknown
}

// assignWords takes the `NAME=value` words that env and sudo accept before the command: they
// become Prefix assignments of the wrapped call, which starts at the first of them.
func (w *walker) assignWords(f frame, cmd *simpleCmd, j, end int, ch *chain) int {
	var add []envEntry
	for ; j < end; j++ {
		wd := cmd.words[j]
		var name string
		if wd.Literal {
			n, _, ok := strings.Cut(wd.Value, "=")
			if !ok || n == "" {
				break
			}
			name = n
		} else {
			// `env "$K"=v` or `env K="$V"`: a name that is known only when written plainly.
			l, ok := cmd.syn[j].Parts[0].(*syntax.Lit)
			if !ok {
				break
			}
			n, _, ok := strings.Cut(l.Value, "=")
			if !ok || !isName(n) {
				break
			}
			name = f.restore(n)
		}
		if ch.start < 0 {
			ch.start = wd.Pos
		}
		add = append(add, envEntry{assignFromWord(f, wd, name), f.s})
	}
	if len(add) > 0 {
		ch.env = mergeEnv(ch.env, add...)
	}
	return j
}

// assignFromWord splits the word `NAME=value` into an assignment. The value keeps a position
// when the word is written plainly (the usual case); otherwise (`"A"=1`) it has none (-1).
func assignFromWord(f frame, wd rules.Word, name string) rules.Assign {
	a := rules.Assign{Name: name, Prefix: true}
	if strings.HasPrefix(f.s.src[wd.Pos:wd.End], name+"=") {
		v := rules.Word{Literal: wd.Literal, Pos: wd.Pos + len(name) + 1, End: wd.End}
		if wd.Literal {
			v.Value = wd.Value[len(name)+1:]
		} else {
			v.Value = f.s.src[v.Pos:v.End]
		}
		a.Value = v
		return a
	}
	a.Value = rules.Word{Value: strings.TrimPrefix(wd.Value, name+"="), Literal: wd.Literal, Pos: -1, End: -1}
	return a
}

// joinWords builds the script that eval (or watch, cmd /c) runs: the words joined by spaces.
func (w *walker) joinWords(f frame, cmd *simpleCmd, j, end int) *textBuilder {
	b := &textBuilder{w: w}
	for k := j; k < end; k++ {
		if k > j {
			b.raw(" ")
		}
		b.word(f, cmd.syn[k], modeWord)
	}
	return b
}

// shell handles bash, sh and friends: `-c STRING` is parsed as a script, and so is the script
// read from stdin when no script file is named (a here-document, a here-string, a pipe).
func (w *walker) shell(f frame, sc *scope, cmd *simpleCmd, name string, a, end int, ch, next chain, onlyC bool) {
	cFlag, sFlag := false, false
	k := a
	for ; k < end; k++ {
		wd := cmd.words[k]
		if !wd.Literal {
			break
		}
		v := wd.Value
		if v == "--" {
			k++
			break
		}
		if v == "-" {
			sFlag = true
			k++
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				k++
			}
			continue
		}
		if len(v) < 2 || v[0] != '-' && v[0] != '+' {
			break
		}
		for _, c := range v[1:] {
			switch c {
			case 'c':
				cFlag = cFlag || v[0] == '-'
			case 's':
				sFlag = true
			case 'o', 'O':
				k++ // takes an option name
			}
		}
	}
	switch {
	case cFlag:
		// Under `xargs`, the string may come from xargs' input: `xargs -I{} sh -c {}`, or the
		// first appended argument of `xargs sh -c`.
		if fd := ch.feed; fd != nil && (k >= end || fd.repl != "" && cmd.words[k].Literal && cmd.words[k].Value == fd.repl) {
			if fd.pipe != nil {
				if b := w.producer(f, fd.pipe); b != nil {
					w.reparse(f, sc, b, name+" -c", next, false)
				}
			}
			for _, in := range fd.inputs {
				b := &textBuilder{w: w}
				b.word(f, in, modeWord)
				w.reparse(f, sc, b, name+" -c", next, false)
			}
			return
		}
		if k < end {
			b := &textBuilder{w: w}
			b.word(f, cmd.syn[k], modeWord)
			w.reparse(f, sc, b, name+" -c", next, false)
		}
	case onlyC:
	case k < end && !sFlag:
		// `bash <(echo '…')`: a script file that is a process substitution printing a literal.
		if b := w.procScript(f, cmd.syn[k]); b != nil {
			w.reparse(f, sc, b, name+" <(…)", next, false)
		}
	case sFlag || k >= end:
		if !ch.stdin {
			return
		}
		b, how := w.stdinScript(f, cmd)
		switch {
		case b == nil:
		case how == "|":
			w.reparse(f, sc, b, "| "+name, next, false)
		default:
			w.reparse(f, sc, b, name+" "+how, next, false)
		}
	}
}

// parallel handles GNU parallel: `parallel [options] cmd args ::: inputs`, or, without a
// command, `parallel ::: 'cmd 1' 'cmd 2'` where each input is a command line.
func (w *walker) parallel(f frame, sc *scope, cmd *simpleCmd, a, end int, next chain) {
	sep := func(k int) bool {
		switch v := cmd.words[k]; {
		case !v.Literal:
			return false
		default:
			return v.Value == ":::" || v.Value == "::::" || v.Value == ":::+" || v.Value == "::::+"
		}
	}
	j := a
	for j < end && !sep(j) {
		v := cmd.words[j]
		if !v.Literal || len(v.Value) < 2 || v.Value[0] != '-' {
			break
		}
		j++
		switch v.Value {
		case "-a", "--arg-file", "--arg-file-sep", "--arg-sep", "--basefile", "--bf", "--block", "-C", "--colsep",
			"-d", "--delimiter", "-E", "--env", "-I", "-j", "--jobs", "-P", "--joblog", "-L", "--max-lines", "-n",
			"--max-args", "-N", "--max-replace-args", "--results", "--res", "-S", "--sshlogin", "--sshloginfile",
			"--slf", "-s", "--max-chars", "--tagstring", "--tag-string", "--tmpdir", "--timeout", "--wd", "--workdir",
			"--delay", "--retries", "--memfree", "--load", "--nice", "--termseq", "--halt", "--limit", "--return",
			"--transferfile", "--tf", "--profile", "-J", "--semaphorename", "--id":
			j++
		}
	}
	k := j
	for k < end && !sep(k) {
		k++
	}
	fd := &feed{repl: "{}"}
	if next.stdin && k == end {
		fd.pipe = cmd.pipeIn
	}
	if k < end && cmd.words[k].Value == ":::" {
		for m := k + 1; m < end && !sep(m); m++ {
			fd.inputs = append(fd.inputs, cmd.syn[m])
		}
	}
	next.appended, next.stdin = true, false
	if k > j {
		next.feed = fd
		next.via = appendVia(next.via, "parallel")
		w.resolve(f, sc, cmd, j, k, next)
		return
	}
	// No command: each input is a command line.
	for _, in := range fd.inputs {
		b := &textBuilder{w: w}
		b.word(f, in, modeWord)
		w.reparse(f, sc, b, "parallel", next, false)
	}
	if fd.pipe != nil {
		if b := w.producer(f, fd.pipe); b != nil {
			w.reparse(f, sc, b, "parallel", next, false)
		}
	}
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
// fn, if not nil, gets each option with its value.
func scanOpts(words []rules.Word, i, end int, o opts, fn func(opt string, val *rules.Word)) int {
	if fn == nil {
		fn = func(string, *rules.Word) {}
	}
	for i < end {
		wd := words[i]
		v := wd.Value
		if !wd.Literal || len(v) < 2 || v[0] != '-' {
			return i
		}
		i++
		if v == "--" {
			return i
		}
		if strings.HasPrefix(v, "--") {
			name, val, ok := strings.Cut(v, "=")
			switch {
			case ok:
				fn(name, &rules.Word{Value: val, Literal: true, Pos: wd.Pos, End: wd.End})
			case slices.Contains(o.long, name) && i < end:
				fn(name, &words[i])
				i++
			default:
				fn(name, nil)
			}
			continue
		}
		for k := 1; k < len(v); k++ {
			c := v[k]
			opt := "-" + v[k:k+1]
			switch {
			case strings.IndexByte(o.val, c) >= 0:
				switch {
				case k+1 < len(v):
					fn(opt, &rules.Word{Value: v[k+1:], Literal: true, Pos: wd.Pos, End: wd.End})
				case i < end:
					fn(opt, &words[i])
					i++
				default:
					fn(opt, nil)
				}
			case strings.IndexByte(o.opt, c) >= 0:
				fn(opt, nil)
			default:
				fn(opt, nil)
				continue
			}
			break
		}
	}
	return i
}

// reparse walks the string b as a script that a shell runs: a child shell, or this one for
// eval (sameShell), whose cd and export then act on the current scope.
func (w *walker) reparse(f frame, sc *scope, b *textBuilder, label string, ch chain, sameShell bool) {
	ns := b.source(f.s)
	via := appendVia(ch.via, label)
	fallback := func(via []string) {
		text := rules.Word{Value: ns.src, Pos: 0, End: len(ns.src)}
		w.calls = append(w.calls, rules.Call{
			NameWord: text, Args: []rules.Word{text}, Env: convertEnv(frame{s: ns}, ch.env),
			Dir: ch.dir, DirUnknown: ch.dirUnknown, Via: via, Src: ns.src, Nested: true, End: len(ns.src),
			ArgsAppended: ch.appended,
		})
	}
	if ns.depth > maxReparseDepth {
		fallback(appendVia(via, "too deep"))
		return
	}
	file, err := parseScript(ns.text)
	if err != nil {
		fallback(via)
		return
	}
	nsc := sc
	if !sameShell {
		nsc = &scope{env: slices.Clone(ch.env), dir: ch.dir, dirUnknown: ch.dirUnknown, owned: true}
		for _, e := range ch.env {
			nsc.exported = append(nsc.exported, e.a.Name)
		}
	}
	w.stmts(frame{w: w, s: ns, via: via, depth: f.depth + 1}, file.Stmts, nsc)
}
