package shell

import (
	"path"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxFuncCalls bounds how many calls of functions defined in the line the walk follows, and so
// the work a recursive or much-called function costs.
const maxFuncCalls = 64

// funcDef is a function the line defines, and the text its body is in.
type funcDef struct {
	body *syntax.Stmt
	f    frame
}

func (sc *scope) defineFunc(name string, d funcDef) {
	sc.own()
	if sc.funcs == nil {
		sc.funcs = map[string]funcDef{}
	}
	sc.funcs[name] = d
}

// callFunc walks the body of a function the line defined, for one of its calls: its positional
// parameters are the call's arguments, so `f(){ az "$@"; }; f group delete -n rg --yes` reports
// az with the arguments it really gets. The body was walked where it was defined too (it may
// be called where the line does not show it), and its calls are at the same place in the text:
// an edit one of them needs is the same edit, applied once.
func (w *walker) callFunc(d funcDef, sc *scope, args []rules.Word, ch chain) {
	if w.funcCalls >= maxFuncCalls {
		return
	}
	w.funcCalls++
	f, ok := w.enter(d.f, d.body, sc)
	if !ok {
		return
	}
	f.via = appendVia(ch.via, "function")
	// A function runs in the caller's shell: its cd and assignments stay. Only the positional
	// parameters are its own.
	saved := sc.vals
	sc.own()
	sc.vals.params, sc.vals.paramsKnown = nil, allLiteral(args)
	if sc.vals.paramsKnown {
		sc.vals.params = wordValues(args)
	}
	w.stmt(f, d.body, sc, nil)
	sc.vals.params, sc.vals.paramsKnown = saved.params, saved.paramsKnown
}

// builtin applies the builtins that set variables of this shell: read from a here-string,
// printf -v, shift, and the positional parameters of set. They act only when nothing wraps them.
func (w *walker) builtin(f frame, sc *scope, cmd *command, st *syntax.Stmt) {
	words := cmd.words
	if !words[0].Literal {
		return
	}
	args := words[1:]
	switch words[0].Value {
	case "read":
		w.read(f, sc, args, st)
	case "printf":
		if len(args) >= 3 && args[0].Literal && args[0].Value == "-v" && args[1].Literal && isName(args[1].Value) {
			name := args[1].Value
			if !allLiteral(args[2:]) {
				sc.forget(name)
				return
			}
			cfg, _ := w.expander(f, sc)
			out, _, err := expand.Format(cfg, args[2].Value, wordValues(args[3:]))
			if err != nil {
				sc.forget(name)
				return
			}
			sc.setValue(name, stringVar(out))
		}
	case "shift":
		n := 1
		if len(args) == 1 && args[0].Literal && isNumber(args[0].Value) {
			n, _ = strconv.Atoi(args[0].Value)
		} else if len(args) > 0 {
			sc.vals.paramsKnown = false
			return
		}
		if sc.vals.paramsKnown {
			sc.own()
			sc.vals.params = sc.vals.params[min(n, len(sc.vals.params)):]
		}
	case "set":
		for i, a := range args {
			switch {
			case !a.Literal:
				sc.own()
				sc.vals.paramsKnown = false
				return
			case a.Value == "--" || !strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "+"):
				rest := args[i:]
				if a.Value == "--" {
					rest = args[i+1:]
				}
				sc.own()
				sc.vals.params, sc.vals.paramsKnown = wordValues(rest), true
				return
			}
		}
	case "alias":
		// alias NAME=WORD: NAME runs WORD (where aliases are expanded at all).
		for _, a := range args {
			if n, v, ok := strings.Cut(a.Value, "="); ok && a.Literal && isName(n) && v != "" && !strings.ContainsAny(v, " \t;|&") {
				sc.setAlias(n, commandName(rules.Word{Value: v, Literal: true}))
			}
		}
	case "hash":
		// hash -p PATH NAME makes NAME run PATH.
		if len(args) == 3 && args[0].Literal && args[0].Value == "-p" && args[1].Literal && args[2].Literal {
			sc.setAlias(args[2].Value, path.Base(args[1].Value))
		}
	}
}

// read applies `read [-r] [-a ARRAY] NAME…`: from a here-string or here-document the line shows,
// the names get its first line; from anything else they are unknown.
func (w *walker) read(f frame, sc *scope, args []rules.Word, st *syntax.Stmt) {
	var names []string
	array := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.Literal:
			return
		case a.Value == "-a" && i+1 < len(args):
			i++
			array = args[i].Value
		case a.Value == "-r", a.Value == "-s":
		case strings.HasPrefix(a.Value, "-"):
			// -d, -n, -p, -t …: what is read is no longer the first line.
			for _, n := range args[i:] {
				if n.Literal && isName(n.Value) {
					sc.forget(n.Value)
				}
			}
			return
		default:
			names = append(names, a.Value)
		}
	}
	if array != "" {
		names = append(names, array)
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	b, _, ok := w.heredoc(f, sc, st)
	text := ""
	if ok && b != nil && len(b.phs) == 0 {
		text, _, _ = strings.Cut(b.text.String(), "\n")
	} else {
		ok = false
	}
	for _, n := range names {
		sc.forget(n)
	}
	if !ok {
		return
	}
	fields := strings.Fields(text)
	if array != "" {
		sc.setValue(array, expand.Variable{Set: true, Kind: expand.Indexed, List: fields})
		return
	}
	for i, n := range names {
		switch {
		case i == len(names)-1 && i < len(fields):
			sc.setValue(n, stringVar(strings.Join(fields[i:], " ")))
		case i < len(fields):
			sc.setValue(n, stringVar(fields[i]))
		default:
			sc.setValue(n, stringVar(""))
		}
	}
}

// loopVar sets a for loop's variable for its body: known when the loop has one item.
func (w *walker) loopVar(f frame, sc *scope, loop syntax.Loop) {
	wi, ok := loop.(*syntax.WordIter)
	if !ok || !f.s.knownName(wi.Name) {
		return
	}
	var items []string
	known := true
	for _, it := range wi.Items {
		fs, ok := w.fields(f, sc, it)
		known = known && ok
		items = append(items, fs...)
	}
	if !known || len(items) != 1 {
		// Unknown, but what it ranges over may say what it names (`for f in ~/.kube/*`).
		texts := make([]string, 0, len(wi.Items))
		for _, it := range wi.Items {
			texts = append(texts, f.word(it, false).Value)
		}
		sc.setText(wi.Name.Value, texts...)
		return
	}
	sc.setValue(wi.Name.Value, stringVar(items[0]))
}

func allLiteral(ws []rules.Word) bool {
	for _, w := range ws {
		if !w.Literal {
			return false
		}
	}
	return true
}

func wordValues(ws []rules.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Value
	}
	return out
}
