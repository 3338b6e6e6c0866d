package shell

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Constant propagation: a variable the line assigns from literal text has that value wherever
// the line expands it, so `a=az; $a group list` runs az as surely as `az group list` does. The
// walk keeps, per shell scope, the values it knows (strings, arrays, namerefs, the positional
// parameters) and expands words with mvdan.cc/sh/v3/expand over them: every parameter
// expansion operator, brace expansion, field splitting and quote removal are done the way the
// shell does them. A word that reads anything the line does not show (a variable from the
// environment, a glob, a command substitution that is not a literal echo) stays non-literal.

// errUnknown stops an expansion that depends on something the line does not show.
var errUnknown = errors.New("not known from the line")

// values is what a scope knows of its shell's variables. A name that is absent is unknown (it
// may come from the environment); an unset one is known to be unset.
type values struct {
	vars   map[string]expand.Variable
	params []string // $1 … when paramsKnown
	arg0   string   // $0 when arg0Known
	// paramsKnown and arg0Known are set when the line shows the positional parameters: set --,
	// a function call, or the arguments after `sh -c STRING`.
	paramsKnown, arg0Known bool
	// texts are what variables whose value is unknown may hold, as the line writes it: a for
	// loop's items (`~/.kube/*`), an assignment's value (`$HOME/.kube/config`). A path argument
	// or a redirection's target that reads one is reported with that text in its place as well
	// (rules.Call.May), so that a write to a state file by way of a loop variable is seen.
	texts map[string][]string
}

func (v values) clone() values {
	v.vars, v.texts = maps.Clone(v.vars), maps.Clone(v.texts)
	return v
}

func (sc *scope) setValue(name string, vr expand.Variable) {
	sc.own()
	if sc.vals.vars == nil {
		sc.vals.vars = map[string]expand.Variable{}
	}
	sc.vals.vars[name] = vr
	delete(sc.vals.texts, name)
}

// setText forgets a variable's value and keeps the texts it may hold.
func (sc *scope) setText(name string, texts ...string) {
	sc.forget(name)
	sc.own()
	if sc.vals.texts == nil {
		sc.vals.texts = map[string][]string{}
	}
	sc.vals.texts[name] = texts
}

// maxHeld bounds the words mayHold makes of one word.
const maxHeld = 16

// mayHold lists the words that are not literal with each variable whose text the line shows
// ($f, ${f}) replaced by that text, for rules.Call.May.
func (sc *scope) mayHold(words ...[]rules.Word) []rules.Word {
	return held(sc.vals.texts, false, words...)
}

// held is mayHold over the texts of variables by name; fold matches names in any case, as
// PowerShell does.
func held(texts map[string][]string, fold bool, words ...[]rules.Word) []rules.Word {
	if len(texts) == 0 {
		return nil
	}
	var out []rules.Word
	for _, ws := range words {
		for _, wd := range ws {
			if wd.Literal || !strings.Contains(wd.Value, "$") {
				continue
			}
			vs := []string{wd.Value}
			// Longer names first: $_.FullName before $_.
			names := slices.Sorted(maps.Keys(texts))
			slices.SortStableFunc(names, func(a, b string) int { return len(b) - len(a) })
			for _, name := range names {
				var next []string
				for _, v := range vs {
					for _, t := range texts[name] {
						if r, ok := replaceVar(v, name, t, fold); ok && len(next) < maxHeld {
							next = append(next, r)
						}
					}
				}
				if len(next) > 0 {
					vs = next
				}
			}
			for _, v := range vs {
				if v != wd.Value {
					out = append(out, rules.Word{Value: v, Pos: wd.Pos, End: wd.End})
				}
			}
		}
	}
	return out
}

// replaceVar replaces $name and ${name} in v by t (the name in any case with fold); ok is false
// when v reads neither.
func replaceVar(v, name, t string, fold bool) (string, bool) {
	r := v
	for _, ref := range []string{"${" + name + "}", "$" + name} {
		for i := 0; ; {
			at := r[i:]
			if fold {
				at = strings.ToLower(at)
			}
			j := strings.Index(at, ref)
			if j < 0 {
				break
			}
			j += i
			end := j + len(ref)
			if ref[1] != '{' && end < len(r) && isNameByte(r[end]) {
				i = end
				continue
			}
			r = r[:j] + t + r[end:]
			i = j + len(t)
		}
	}
	return r, r != v
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (sc *scope) forget(name string) {
	if _, ok := sc.vals.vars[name]; ok {
		sc.own()
		delete(sc.vals.vars, name)
	}
}

// maxLoopWalks bounds the walks of loop bodies after their first in one line, so that nested
// loops cost a bounded amount of work; past it a loop is walked once, with nothing known.
const maxLoopWalks = 64

// loop walks a loop's body (its condition too, for while) once for each state an iteration can
// start in. The first iteration starts with what the line showed before the loop; a later one
// with everything an earlier iteration changed unknown (a variable, the positional parameters,
// the directory) and the functions and names the earlier one defined. So in
// `a=ls; for i in 1 2; do $a x; a=az; done` the second walk sees a command word that is not
// known.
func (w *walker) loop(sc *scope, body func()) {
	pre := sc.iteration()
	start := pre
	w.runs(body, func() bool {
		sc.forgetChanges(pre)
		sc.forgetChanges(start)
		next := sc.iteration()
		last := next.same(start)
		start = next
		return last
	}, sc.forgetAll)
}

// runs walks a body that may run again until settle, called after each walk, says that the next
// run would start as the last one did; calls found again are at the same place in the text, so
// an edit one of them needs is applied once. Past maxLoopWalks, top makes everything unknown
// and the body is walked once more. The bash and the PowerShell reader share it.
func (w *walker) runs(body func(), settle func() bool, top func()) {
	if w.loopWalks >= maxLoopWalks {
		top()
		body()
		return
	}
	for {
		body()
		if settle() {
			return
		}
		if w.loopWalks >= maxLoopWalks {
			top()
			body()
			return
		}
		w.loopWalks++
	}
}

// iteration is the state of a scope that an iteration of a loop, or a branch of an if or a case,
// reads.
type iteration struct {
	dir   dirState
	env   []envEntry
	vals  values
	funcs map[string]funcDef
	names map[string]string
}

// iteration copies what it keeps: a scope that owns its maps changes them in place. The
// environment is never changed in place (setEnv and unset make a new slice), so its header is
// a snapshot.
func (sc *scope) iteration() iteration {
	v := sc.vals
	v.vars, v.params = maps.Clone(v.vars), slices.Clone(v.params)
	return iteration{sc.dirState(), sc.env, v, maps.Clone(sc.funcs), maps.Clone(sc.names)}
}

func (a iteration) same(b iteration) bool {
	return a.dir == b.dir && slices.Equal(a.env, b.env) && a.vals.paramsKnown == b.vals.paramsKnown && slices.Equal(a.vals.params, b.vals.params) &&
		maps.EqualFunc(a.vals.vars, b.vals.vars, sameVariable) &&
		maps.EqualFunc(a.funcs, b.funcs, func(x, y funcDef) bool { return x.body == y.body }) && maps.Equal(a.names, b.names)
}

// forgetChanges makes unknown what differs from st: variables (exported ones too), the
// positional parameters and the directory. It is called after a body that may or may not have
// run.
func (sc *scope) forgetChanges(st iteration) {
	if sc.dirState() != st.dir {
		sc.dirUnknown = true
	}
	if env := unsure(st.env, sc.env, "$"); !slices.Equal(env, sc.env) {
		sc.own()
		sc.env = env
	}
	for name, vr := range sc.vals.vars {
		if old, ok := st.vals.vars[name]; !ok || !sameVariable(old, vr) {
			sc.forget(name)
		}
	}
	if sc.vals.paramsKnown && (!st.vals.paramsKnown || !slices.Equal(sc.vals.params, st.vals.params)) {
		sc.own()
		sc.vals.params, sc.vals.paramsKnown = nil, false
	}
}

// forgetAll makes every variable, the positional parameters and the directory unknown.
func (sc *scope) forgetAll() {
	sc.own()
	sc.vals.vars, sc.vals.params, sc.vals.paramsKnown = nil, nil, false
	sc.dirUnknown = true
}

func sameVariable(a, b expand.Variable) bool {
	return a.Set == b.Set && a.Kind == b.Kind && a.Str == b.Str && slices.Equal(a.List, b.List) && maps.Equal(a.Map, b.Map)
}

func stringVar(s string) expand.Variable {
	return expand.Variable{Set: true, Kind: expand.String, Str: s}
}

// knownEnv is the expand package's view of a scope: known values, and a note of any lookup of
// something unknown, which makes the expansion's result unknown.
type knownEnv struct {
	sc      *scope
	unknown bool
	gets    int
	// tildeHome makes $HOME expand to ~, for a path: the rules resolve ~ to the home directory
	// the hook runs with, which is the shell's.
	tildeHome bool
}

func (e *knownEnv) Get(name string) expand.Variable {
	e.gets++
	v := &e.sc.vals
	switch name {
	case "PWD":
		if e.gets <= 2 {
			// expand reads IFS and then PWD (for globbing, refused anyway) before any word.
			return expand.Variable{}
		}
	case "HOME":
		if vr, ok := v.vars[name]; ok {
			return vr
		}
		if e.tildeHome {
			return stringVar("~")
		}
	case "IFS":
		if vr, ok := v.vars[name]; ok {
			return vr
		}
		return expand.Variable{} // the default, unless the line sets it
	case "@", "*":
		if v.paramsKnown {
			return expand.Variable{Set: true, Kind: expand.Indexed, List: v.params}
		}
	case "#":
		if v.paramsKnown {
			return stringVar(strconv.Itoa(len(v.params)))
		}
	case "0":
		if v.arg0Known {
			return stringVar(v.arg0)
		}
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		if v.paramsKnown {
			n := int(name[0] - '0')
			if n <= len(v.params) {
				return stringVar(v.params[n-1])
			}
			return expand.Variable{}
		}
	default:
		if vr, ok := v.vars[name]; ok {
			return vr
		}
	}
	e.unknown = true
	return expand.Variable{}
}

func (e *knownEnv) Each(fn func(string, expand.Variable) bool) {
	for name, vr := range e.sc.vals.vars {
		if !fn(name, vr) {
			return
		}
	}
}

// Set records ${x:=word}, which assigns as it expands.
func (e *knownEnv) Set(name string, vr expand.Variable) error {
	e.sc.setValue(name, vr)
	return nil
}

// expander returns the expansion config over sc for words of frame f.
func (w *walker) expander(f frame, sc *scope) (*expand.Config, *knownEnv) {
	env := &knownEnv{sc: sc}
	cfg := &expand.Config{
		Env: env,
		CmdSubst: func(out io.Writer, cs *syntax.CmdSubst) error {
			// `$(echo az)`: a substitution that prints a literal.
			if len(cs.Stmts) == 1 && len(cs.Stmts[0].Redirs) == 0 {
				if b := w.producer(f, sc, cs.Stmts[0]); b != nil && len(b.phs) == 0 {
					_, err := io.WriteString(out, b.text.String())
					return err
				}
			}
			return errUnknown
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errUnknown },
		ReadDir2:  func(string) ([]fs.DirEntry, error) { return nil, errUnknown },
	}
	return cfg, env
}

// known reports whether a word of frame f may be expanded from the scope: its text holds no
// placeholder (an expansion of an enclosing text, unknown here) and it has an expansion at all.
func (f frame) known(wd *syntax.Word) bool {
	p, e := f.clamp(int(wd.Pos().Offset())), f.clamp(int(wd.End().Offset()))
	return !f.s.hasPH(p, e)
}

// fields expands an argument word as the shell does; ok is false when the result depends on
// something the line does not show.
func (w *walker) fields(f frame, sc *scope, wd *syntax.Word) ([]string, bool) {
	if sc == nil || !f.known(wd) || hasGlob(wd) {
		return nil, false
	}
	cfg, env := w.expander(f, sc)
	out, err := expand.Fields(cfg, wd)
	if err != nil || env.unknown {
		return nil, false
	}
	if !quoted(wd) {
		// An unquoted empty field (from a brace alternative, say) is removed by the shell.
		kept := out[:0]
		for _, s := range out {
			if s != "" {
				kept = append(kept, s)
			}
		}
		out = kept
	}
	return out, true
}

// value expands a word that is not split (an assignment's value, a redirection's target).
func (w *walker) value(f frame, sc *scope, wd *syntax.Word) (string, bool) {
	if sc == nil || !f.known(wd) || hasGlob(wd) {
		return "", false
	}
	cfg, env := w.expander(f, sc)
	s, err := expand.Literal(cfg, wd)
	if err != nil || env.unknown {
		return "", false
	}
	return s, true
}

// path expands a word that names a file (a redirection's target): like value, and else with
// $HOME standing for ~ ("$HOME/.kube/config" is ~/.kube/config), which comes back not literal,
// as a ~ path does.
func (w *walker) path(f frame, sc *scope, wd *syntax.Word) (rules.Word, bool) {
	if v, ok := w.value(f, sc, wd); ok {
		return rules.Word{Value: v, Literal: true}, true
	}
	if sc == nil || !f.known(wd) || hasGlob(wd) {
		return rules.Word{}, false
	}
	cfg, env := w.expander(f, sc)
	env.tildeHome = true
	v, err := expand.Literal(cfg, wd)
	if err != nil || env.unknown || !strings.HasPrefix(v, "~/") || !plainText(v[2:]) {
		return rules.Word{}, false
	}
	return rules.Word{Value: v}, true
}

// part expands one part of a word on its own (a parameter expansion inside a string that a
// shell runs), for the text builder.
func (w *walker) part(f frame, sc *scope, p syntax.WordPart) (string, bool) {
	return w.value(f, sc, &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{p}}}})
}

// hasGlob reports whether a word has an unquoted glob character, which the shell matches
// against files: what it becomes is not known from the line. A tilde is left to the callers,
// which know the home directory.
func hasGlob(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[~") {
			return true
		}
	}
	return false
}

func quoted(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// assignValue records what an assignment gives its variable: a value the line shows, or
// unknown. decl is the declare/local flags ("A" for an associative array, "n" for a nameref).
func (w *walker) assignValue(f frame, sc *scope, a *syntax.Assign, flags string) {
	if a.Name == nil || !f.s.knownName(a.Name) {
		return
	}
	name := a.Name.Value
	vr, ok := w.assigned(f, sc, a, flags)
	if !ok {
		if a.Value != nil && !a.Append && a.Index == nil {
			sc.setText(name, f.word(a.Value, true).Value)
			return
		}
		sc.forget(name)
		return
	}
	if a.Append {
		old, known := sc.vals.vars[name]
		switch {
		case !known:
			sc.forget(name)
			return
		case vr.Kind == expand.Indexed && old.Kind == expand.Indexed:
			vr.List = append(append([]string(nil), old.List...), vr.List...)
		case vr.Kind == expand.String && old.Kind == expand.String:
			vr.Str = old.Str + vr.Str
		default:
			sc.forget(name)
			return
		}
	}
	sc.setValue(name, vr)
}

func (w *walker) assigned(f frame, sc *scope, a *syntax.Assign, flags string) (expand.Variable, bool) {
	switch {
	case a.Index != nil:
		return expand.Variable{}, false // one element: the rest of the array is left as it was
	case a.Array != nil:
		if strings.Contains(flags, "A") {
			m := map[string]string{}
			for _, el := range a.Array.Elems {
				k, kok := w.indexKey(f, sc, el.Index)
				v, vok := "", el.Value == nil
				if el.Value != nil {
					v, vok = w.value(f, sc, el.Value)
				}
				if !kok || !vok {
					return expand.Variable{}, false
				}
				m[k] = v
			}
			return expand.Variable{Set: true, Kind: expand.Associative, Map: m}, true
		}
		var list []string
		for _, el := range a.Array.Elems {
			if el.Index != nil || el.Value == nil {
				return expand.Variable{}, false
			}
			fs, ok := w.fields(f, sc, el.Value)
			if !ok {
				return expand.Variable{}, false
			}
			list = append(list, fs...)
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: list}, true
	case a.Value == nil:
		return stringVar(""), true
	}
	if v, lit := wordValue(a.Value, true); lit && f.known(a.Value) {
		if strings.Contains(flags, "n") {
			return expand.Variable{Set: true, Kind: expand.NameRef, Str: v}, true
		}
		return stringVar(v), true
	}
	v, ok := w.value(f, sc, a.Value)
	if !ok {
		return expand.Variable{}, false
	}
	if strings.Contains(flags, "n") {
		return expand.Variable{Set: true, Kind: expand.NameRef, Str: v}, true
	}
	return stringVar(v), true
}

func (w *walker) indexKey(f frame, sc *scope, idx syntax.ArithmExpr) (string, bool) {
	wd, ok := idx.(*syntax.Word)
	if !ok {
		return "", false
	}
	return w.value(f, sc, wd)
}

// knownName reports whether a variable name in text s is written out (not a placeholder).
func (s *source) knownName(l *syntax.Lit) bool {
	return l != nil && !s.hasPH(int(l.Pos().Offset()), int(l.End().Offset()))
}

// literalWords expands a simple command's words with what the scope knows: a word that is not
// literal but whose value the line shows becomes the literal fields it expands to (several when
// it splits, none when it is empty), each spanning the original word. The syntax words are
// returned in step, so that they stay parallel to the words.
func (w *walker) literalWords(f frame, sc *scope, args []*syntax.Word) ([]rules.Word, []*syntax.Word) {
	words := make([]rules.Word, 0, len(args))
	syn := make([]*syntax.Word, 0, len(args))
	for _, a := range args {
		wd := f.word(a, false)
		fs, ok := []string(nil), false
		if !wd.Literal {
			fs, ok = w.fields(f, sc, a)
		}
		if !ok {
			words, syn = append(words, wd), append(syn, a)
			continue
		}
		for _, v := range fs {
			words, syn = append(words, rules.Word{Value: v, Literal: true, Pos: wd.Pos, End: wd.End}), append(syn, a)
		}
	}
	return words, syn
}
