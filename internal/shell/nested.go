package shell

import (
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

// child is text that a command in s runs as a script: a text of its own, whose calls are Nested.
func (s *source) child(text string) *source {
	return &source{text: text, src: text, nested: true, depth: s.depth + 1}
}

// readScript walks s, a string that a shell runs, read in dialect d. sc is the scope it runs in
// for eval and source; nil for a child shell, which starts from ch. depth is the node depth of
// the command that runs it.
func (w *walker) readScript(d dialect, s *source, label string, ch chain, sc *scope, depth int) {
	via := appendVia(ch.via, label)
	if s.depth > maxReparseDepth {
		w.unreadable(s, appendVia(via, "too deep"), ch)
		return
	}
	switch d {
	case psDialect:
		if len(s.phs) > 0 {
			// The outer shell expands parts of the text before PowerShell reads it: what those
			// parts become in PowerShell's syntax is not known.
			w.unreadable(s, via, ch)
			return
		}
		ch.via = via
		w.powershell(s, ch)
		return
	case cmdDialect:
		if !sameInCmd(s.text) {
			w.unreadable(s, via, ch)
			return
		}
	}
	file, err := parseScript(s.text)
	if err != nil {
		w.unreadable(s, via, ch)
		return
	}
	if sc == nil {
		sc = &scope{env: slices.Clone(ch.env), dir: ch.dir, dirUnknown: ch.dirUnknown, owned: true}
		for _, e := range ch.env {
			sc.exported = append(sc.exported, e.a.Name)
			if e.a.Value.Literal {
				sc.setValue(e.a.Name, stringVar(e.a.Value.Value))
			}
		}
		if ch.hasParams && allLiteral(ch.params) && len(ch.params) > 0 {
			sc.vals.arg0, sc.vals.arg0Known = ch.params[0].Value, true
			sc.vals.params, sc.vals.paramsKnown = wordValues(ch.params[1:]), true
		}
	}
	w.stmts(frame{w: w, s: s, via: via, depth: depth + 1}, file.Stmts, sc)
}

// unreadable reports a script that cannot be read as one call whose command word and single
// argument are its text, not literal: a guard that looks for guarded names in non-literal
// command words still sees it.
func (w *walker) unreadable(s *source, via []string, ch chain) {
	text := rules.Word{Value: s.src, Pos: 0, End: len(s.src)}
	w.calls = append(w.calls, rules.Call{
		NameWord: text, Args: []rules.Word{text}, Env: convertEnv(s, ch.env),
		Dir: ch.dir, DirUnknown: ch.dirUnknown, Via: via, Src: s.src, Nested: s.nested, End: len(s.src),
		ArgsAppended: ch.appended,
	})
}

// sameInCmd reports whether cmd.exe and bash read text alike, for the calls it makes.
func sameInCmd(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == ' ' || c == '\t':
		default:
			if strings.IndexByte("-_./:=,@+\"&|<>", c) < 0 {
				return false
			}
		}
	}
	return true
}
