package shell

import (
	"fmt"
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
// Each command is handed to the same wrapper resolver as bash's (resolve.go, over the table in
// wrapper.go), so `sudo`, `wsl`, `env X=1`, `xargs` and `bash -lc '…'` mean the same in both.
// Strings run again (Invoke-Expression/iex with a literal string or a literal piped into it,
// pwsh/powershell -Command or -EncodedCommand, bash -c, cmd /c) are read in the language of what
// runs them, their calls Nested. A command started in a way that cannot be followed
// (Start-Process, a string that is not literal) is reported with Name "" and its text as a
// non-literal command word, so that the engine asks about it when it names a guarded command. A
// line the tokenizer cannot read is reported as one such call too, never as an error:
// PowerShell has more syntax than ctxguard models.
//
// Command names are lowercased (PowerShell finds commands without regard to case) and a path, a
// Windows suffix and .ps1 are stripped. A word is literal only when its value is known without
// running anything: a variable the line assigned a literal is (powershell_value.go); any other
// variable, a subexpression, a script block, an array (`a,b`) or a word that PowerShell would
// read as a number (`0x10`, `1kb`) is not.

// ParsePowerShell returns every command a PowerShell line would run, in execution order, with
// byte offsets into src. It fails only for a NUL byte, which no PowerShell line sent by a harness
// contains and which would make offsets unreliable.
func ParsePowerShell(src string) ([]rules.Call, error) {
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, &SyntaxError{Offset: i, Msg: "NUL byte in command line"}
	}
	w := &walker{line: src}
	w.powershell(&source{text: src, src: src}, chain{})
	return w.calls, nil
}

// powershell reads s as PowerShell, starting from the environment, directory and wrappers of
// ch. A text it cannot read is reported as one call whose command word is the whole text.
func (w *walker) powershell(s *source, ch chain) {
	if strings.IndexByte(s.text, 0) >= 0 {
		w.unreadable(s, appendVia(ch.via, "powershell (unreadable: NUL byte)"), ch)
		return
	}
	first := len(w.calls)
	p := &psParser{w: w, s: s, src: s.text, via: ch.via, env: ch.env, dir: ch.dir, dirUnk: ch.dirUnknown, vals: ch.psVals}
	if own := newPSValues(s.text); p.vals == nil {
		p.vals = own
	} else if own.off {
		p.vals.turnOff()
	}
	if err := p.run(); err != nil {
		w.calls = w.calls[:first]
		w.unreadable(s, appendVia(ch.via, "powershell (unreadable: "+err.Error()+")"), ch)
	}
}

// errPS is a PowerShell syntax error (or a construct too deep to follow).
type errPS struct {
	at  int
	msg string
}

func (e *errPS) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.at) }

type psParser struct {
	w      *walker
	s      *source
	src    string // s.text
	i      int
	via    []string
	nest   int        // bracket depth within src
	env    []envEntry // $env: variables set so far, later ones last
	dir    string
	dirUnk bool
	// vals are the variables the text knows, funcs the functions it defines, binding the
	// arguments the next param block takes (powershell_value.go).
	vals    *psValues
	funcs   map[string]psFunc
	binding *psBinding
	// shadowed holds, for the block being walked, the caller's values of its parameters.
	shadowed *psShadow
	// compound is set after a compound statement, which no `&` can put in the background.
	compound bool
	// piped is set while the reader starts a pipeline element after the first.
	piped bool
	// texts are what foreach variables may hold, as the line writes it (values.texts in bash).
	texts map[string][]string
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

// command reads a command from its name word and hands it to the wrapper resolver. op is the
// call operator, if any. It returns what the command writes to the pipeline when that is
// literal: Write-Output's literal arguments, one a line.
func (p *psParser) command(op string, pipeIn *rules.Word) *rules.Word {
	piped := p.piped
	words := []rules.Word{p.word()}
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
			words = append(words, p.stopParsing()...)
			continue
		}
		words = append(words, p.args()...)
	}
	name := psCommandName(words[0])
	switch {
	case psDefiner(name) || strings.HasSuffix(strings.ToLower(words[0].Value), ".ps1") || op == ".":
		// It may define what later commands run (an alias of Set-Variable), or run code the
		// line does not show in this scope.
		p.vals.turnOff()
	case name == "" || psSetter(name) || slices.ContainsFunc(words[1:], psVariableParam):
		// It may set any variable by name (a command word that is not literal is asked about
		// anyway).
		p.vals.forgetAll()
	}
	via := p.via
	if op != "" {
		via = appendVia(via, op)
	}
	// Calls in the command's own words (groups, subexpressions) ran first and are already
	// listed; the command follows them.
	ch := chain{env: p.env, dir: p.dir, dirUnknown: p.dirUnk, via: via, start: -1, shellLevel: true, stdin: true}
	first := len(p.w.calls)
	p.w.resolve(&command{reader: &psCommand{p: p, words: words, pipeIn: pipeIn, piped: piped}, words: words, s: p.s}, 0, len(words), ch)
	p.w.calls[first].Writes = writes
	if may := held(p.texts, true, words[1:], writes); len(may) > 0 {
		for i := first; i < len(p.w.calls); i++ {
			if p.w.calls[i].Src == p.s.src {
				p.w.calls[i].May = may
			}
		}
	}
	p.runFile(words[0], ch, first)
	if f, ok := p.funcs[name]; ok && op != "." {
		p.invoke(f.body, f.params, words[1:])
	} else if p.vals.defined[name] {
		p.vals.forgetAll() // defined in another text of the line: not walked here
	}
	out := psOutput(name, words)
	p.trackFile(name, words, writes, out, pipeIn, piped)
	if len(writes) > 0 {
		return nil
	}
	return out
}

// psOutput is what Write-Output writes when its arguments are literal, one a line; nil for any
// other command.
func psOutput(name string, words []rules.Word) *rules.Word {
	if name != "echo" && name != "write-output" || len(words) < 2 {
		return nil
	}
	out := make([]string, 0, len(words)-1)
	for _, a := range words[1:] {
		if !a.Literal || psFlag(a) {
			return nil
		}
		out = append(out, a.Value)
	}
	return &rules.Word{Value: strings.Join(out, "\n"), Literal: true}
}

// psCommand is the PowerShell reader's side of a command, for the wrapper resolver.
type psCommand struct {
	p      *psParser
	words  []rules.Word
	pipeIn *rules.Word // the literal piped into the command, if any
	piped  bool        // whether anything is piped into it
}

func (c *psCommand) dialect() dialect { return psDialect }

func (c *psCommand) name(w rules.Word) string {
	if p, ok := c.p.program(w); ok {
		return p
	}
	return psCommandName(w)
}

// script joins literal words; a script block is read where it stands, and any other value is
// not known.
func (c *psCommand) script(ps ...piece) (*source, bool) {
	var b strings.Builder
	for i, pc := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		if pc.word < 0 {
			b.WriteString(pc.lit)
			continue
		}
		wd := c.words[pc.word]
		if !wd.Literal {
			if d, ok := decoded(wd.Value); ok && len(ps) == 1 {
				return c.p.s.child(d), true
			}
			return nil, len(ps) == 1 && strings.HasPrefix(wd.Value, "{")
		}
		b.WriteString(wd.Value)
	}
	return c.p.s.child(b.String()), true
}

// stdin is the literal piped into the command; "?" when something is piped whose text the line
// does not show.
func (c *psCommand) stdin() (*source, string) {
	switch {
	case c.pipeIn != nil:
		return c.p.s.child(c.pipeIn.Value), "|"
	case c.piped:
		return nil, "?"
	}
	return nil, ""
}

// file is a script file the line wrote (`pwsh -File s.ps1`, `bash s.sh`).
func (c *psCommand) file(j int) (*source, bool) {
	fs, ok := c.p.file(c.words[j])
	switch {
	case !ok || fs.program != "" || fs.link != "":
		return nil, true
	case !fs.known:
		return nil, false
	}
	return c.p.s.child(fs.content), true
}

func (c *psCommand) state(k stateKind, args []rules.Word) {
	switch k {
	case stateCd, statePushd:
		c.p.cd(args)
	case statePopd:
		c.p.dirUnk = true
	}
}

// read walks a script; one that runs in this scope (Invoke-Expression) shares its variables.
func (c *psCommand) read(d dialect, s *source, label string, ch chain, same bool) {
	if same && d == psDialect {
		ch.psVals = c.p.vals
	}
	c.p.w.readScript(d, s, label, ch, nil, c.p.nest)
}

// psCommandName normalises a PowerShell command word: a path and a suffix are dropped and the
// name is lowercased, as PowerShell resolves commands case-insensitively.
func psCommandName(w rules.Word) string {
	return programName(w, rules.ProgramSuffixes(rules.ShellPowerShell), true)
}

// psFlag reports whether a word is a parameter or an option: a literal that starts with a dash.
func psFlag(w rules.Word) bool {
	return w.Literal && len(w.Value) > 1 && w.Value[0] == '-' && w.Value != "--"
}
