package shell

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/ctxguard/ctxguard/rules"
)

// writes returns the files a statement's redirections open for writing (rules.Call.Writes).
// `>&` is a duplication when its word is a descriptor number or `-`, and a file otherwise
// (`cmd >& out` is bash's `&>`).
func (w *walker) writes(f frame, sc *scope, rs []*syntax.Redirect) []rules.Word {
	var out []rules.Word
	for _, r := range rs {
		if r.Word == nil {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		case syntax.DplOut:
			if v, lit := wordValue(r.Word, false); lit && (v == "-" || isNumber(v)) {
				continue
			}
		default:
			continue
		}
		wd := f.word(r.Word, false)
		if !wd.Literal {
			if v, ok := w.path(f, sc, r.Word); ok {
				wd.Value, wd.Literal = v.Value, v.Literal
			}
		}
		out = append(out, w.through(sc, wd))
	}
	return out
}

// redirOnly reports a statement without a simple command whose redirections write files
// (`> f`, `{ …; } > f`, `while …; done >> f`) as a call with no command word, so that the
// files are seen.
func (w *walker) redirOnly(f frame, st *syntax.Stmt, sc *scope) {
	ws := w.writes(f, sc, st.Redirs)
	if len(ws) == 0 {
		return
	}
	p, _ := f.offsets(st)
	w.calls = append(w.calls, rules.Call{
		NameWord: rules.Word{Pos: p, End: p}, Env: convertEnv(f.s, sc.env), Dir: sc.dir, DirUnknown: sc.dirUnknown,
		Via: f.via, Src: f.s.src, Nested: f.s.nested, Start: p, End: p, Writes: ws, May: sc.mayHold(ws),
	})
}
