package shell

import (
	"strings"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/syntax"
)

// stdinScript returns the script a shell would read from stdin, if the line shows it.
// When the line shows that a script comes in but not what it is (a pipe from a decoder, a
// descriptor), how is "?": the shell is asked about. A file that existed before the line is not
// read (a documented limit), and neither is `cat FILE |` of one.
func (w *walker) stdinScript(f frame, sc *scope, st, pipeIn *syntax.Stmt) (*textBuilder, string) {
	if b, how, ok := w.heredoc(f, sc, st); ok {
		return b, how
	}
	if pipeIn != nil {
		if b := w.producer(f, sc, pipeIn); b != nil {
			return b, "|"
		}
		if !catOfFile(f, pipeIn) {
			return nil, "?"
		}
	}
	return nil, ""
}

// catOfFile reports whether a pipeline element is `cat FILE`, which passes a file on.
func catOfFile(f frame, st *syntax.Stmt) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 2 || len(st.Redirs) > 0 {
		return false
	}
	name, lit := wordValue(ce.Args[0], false)
	_, fileLit := wordValue(ce.Args[1], false)
	return lit && name == "cat" && fileLit
}

// heredoc returns the text a statement's last stdin redirection provides; ok is set when there
// is such a redirection (b is nil when it is a file, whose content is unknown).
func (w *walker) heredoc(f frame, sc *scope, st *syntax.Stmt) (b *textBuilder, how string, ok bool) {
	if st == nil {
		return nil, "", false
	}
	var last *syntax.Redirect
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			last = r
		}
	}
	if last == nil {
		return nil, "", false
	}
	switch last.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if last.Hdoc == nil {
			return nil, "", true
		}
		b = &textBuilder{w: w}
		mode := modeHeredoc
		if last.Word != nil && quotedDelim(last.Word) {
			mode = modeHeredocQuoted
		}
		b.dashTabs = last.Op == syntax.DashHdoc
		b.word(f, last.Hdoc, mode)
		return b, "<<", true
	case syntax.WordHdoc:
		b = &textBuilder{w: w}
		b.word(f, last.Word, modeWord)
		b.raw("\n")
		return b, "<<<", true
	case syntax.RdrIn:
		if b := w.procScript(f, sc, last.Word); b != nil {
			return b, "< <(…)", true
		}
		if s, known, tracked := w.scriptFile(f, sc, f.word(last.Word, false)); tracked {
			if !known {
				return nil, "?", true
			}
			b = &textBuilder{w: w}
			b.lit(s.text)
			return b, "<", true
		}
		return nil, "", true
	case syntax.DplIn:
		return nil, "?", true
	}
	return nil, "", true
}

// procScript returns what a process substitution `<(…)` used as a file prints, when it is a
// literal (`bash <(echo 'cmd')`).
func (w *walker) procScript(f frame, sc *scope, wd *syntax.Word) *textBuilder {
	if wd == nil || len(wd.Parts) != 1 {
		return nil
	}
	ps, ok := wd.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn || len(ps.Stmts) != 1 {
		return nil
	}
	return w.producer(f, sc, ps.Stmts[0])
}

func quotedDelim(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.ContainsRune(l.Value, '\\') {
			return true
		}
	}
	return false
}

// producer returns what a pipeline element writes, when it is a literal: `echo '…'`,
// `printf '…'`, or `cat` of a here-document.
func (w *walker) producer(f frame, sc *scope, st *syntax.Stmt) *textBuilder {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return nil
	}
	words := make([]rules.Word, len(ce.Args))
	for i, a := range ce.Args {
		words[i] = f.word(a, false)
	}
	switch commandName(words[0]) {
	case "echo":
		j, nl, esc := 1, true, false
		for ; j < len(words); j++ {
			v := words[j].Value
			if !words[j].Literal || len(v) < 2 || v[0] != '-' || strings.Trim(v[1:], "neE") != "" {
				break
			}
			nl = nl && !strings.ContainsRune(v, 'n')
			if strings.ContainsAny(v, "eE") {
				esc = strings.LastIndexByte(v, 'e') > strings.LastIndexByte(v, 'E')
			}
		}
		b := &textBuilder{w: w}
		if esc {
			b.decode = echoEscapes
		}
		for k := j; k < len(words); k++ {
			if k > j {
				b.raw(" ")
			}
			b.word(f, ce.Args[k], modeWord)
		}
		if nl {
			b.raw("\n")
		}
		return b
	case "printf":
		if len(words) < 2 || !words[1].Literal {
			return nil
		}
		format := words[1].Value
		if len(words) == 2 {
			if strings.Contains(strings.ReplaceAll(format, "%%", ""), "%") {
				return nil // directives without arguments
			}
			b := &textBuilder{w: w, decode: echoEscapes}
			b.lit(strings.ReplaceAll(format, "%%", "%"))
			return b
		}
		// `printf '%s\n' 'cmd' …` prints each argument on a line of its own.
		if strings.Trim(strings.NewReplacer("%s", "", "%b", "", `\n`, "", " ", "").Replace(format), "\n") != "" {
			return nil
		}
		b := &textBuilder{w: w}
		for k := 2; k < len(words); k++ {
			b.word(f, ce.Args[k], modeWord)
			b.raw("\n")
		}
		return b
	case "cat":
		if len(words) == 2 && words[1].Value != "-" {
			// cat of a file the line wrote with a literal.
			if s, known, _ := w.scriptFile(f, sc, words[1]); known {
				b := &textBuilder{w: w}
				b.lit(s.text)
				return b
			}
			return nil
		}
		if len(words) > 2 {
			return nil
		}
		b, _, _ := w.heredoc(f, sc, st)
		return b
	}
	return nil
}

// echoEscapes decodes the backslash escapes of `echo -e` and printf formats.
func echoEscapes(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return ansiC(s)
}
