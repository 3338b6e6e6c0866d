package shell

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
	"mvdan.cc/sh/v3/expand"
)

// scope is the shell state that later calls of the same shell see: exported variables, shell
// variables that an `export NAME` would export, and the working directory. A child scope (a
// subshell) starts as a copy; it copies its slices before changing them, so it never writes
// into its parent's.
type scope struct {
	env        []envEntry // exported variables, later ones last
	vars       []envEntry // unexported shell variables with a known value
	exported   []string   // names marked for export
	dir        string
	dirUnknown bool
	allexport  bool
	owned      bool
	vals       values // what the line shows of its variables (bash_value.go)
	funcs      map[string]funcDef
	names      map[string]string // names that run another program (hash -p)
}

// envEntry is an assignment and the text its positions refer to.
type envEntry struct {
	a rules.Assign
	s *source
}

func (sc *scope) child() *scope {
	c := *sc
	c.owned = false
	return &c
}

func (sc *scope) own() {
	if !sc.owned {
		sc.env, sc.vars, sc.exported = slices.Clone(sc.env), slices.Clone(sc.vars), slices.Clone(sc.exported)
		sc.vals = sc.vals.clone()
		sc.funcs, sc.names = maps.Clone(sc.funcs), maps.Clone(sc.names)
		sc.owned = true
	}
}

func (sc *scope) isExported(name string) bool { return slices.Contains(sc.exported, name) }

func (sc *scope) setEnv(e envEntry) {
	sc.own()
	e.a.Prefix = false
	sc.env = append(removeName(sc.env, e.a.Name), e)
	sc.vars = removeName(sc.vars, e.a.Name)
	if !sc.isExported(e.a.Name) {
		sc.exported = append(sc.exported, e.a.Name)
	}
}

func (sc *scope) setVar(e envEntry) {
	sc.own()
	sc.vars = append(removeName(sc.vars, e.a.Name), e)
}

func (sc *scope) exportName(name string) {
	if i := slices.IndexFunc(sc.vars, func(e envEntry) bool { return e.a.Name == name }); i >= 0 {
		sc.setEnv(sc.vars[i])
		return
	}
	if !sc.isExported(name) {
		sc.own()
		sc.exported = append(sc.exported, name)
	}
}

func (sc *scope) unexport(name string) {
	sc.own()
	if i := slices.IndexFunc(sc.env, func(e envEntry) bool { return e.a.Name == name }); i >= 0 {
		sc.vars = append(sc.vars, sc.env[i])
	}
	sc.env = removeName(sc.env, name)
	sc.exported = slices.DeleteFunc(sc.exported, func(n string) bool { return n == name })
}

func (sc *scope) unset(name string) {
	sc.own()
	sc.setValue(name, expand.Variable{})
	sc.env = removeName(sc.env, name)
	sc.vars = removeName(sc.vars, name)
	sc.exported = slices.DeleteFunc(sc.exported, func(n string) bool { return n == name })
}

// removeName drops the entries named name. It never writes into es when there is nothing to
// drop, so callers may pass shared slices.
func removeName(es []envEntry, name string) []envEntry {
	if !slices.ContainsFunc(es, func(e envEntry) bool { return e.a.Name == name }) {
		return es
	}
	out := make([]envEntry, 0, len(es))
	for _, e := range es {
		if e.a.Name != name {
			out = append(out, e)
		}
	}
	return out
}

// mergeEnv returns base with add appended, an added name replacing an earlier one.
func mergeEnv(base []envEntry, add ...envEntry) []envEntry {
	out := make([]envEntry, 0, len(base)+len(add))
	for _, e := range base {
		if !slices.ContainsFunc(add, func(a envEntry) bool { return a.a.Name == e.a.Name }) {
			out = append(out, e)
		}
	}
	for i, a := range add {
		if !slices.ContainsFunc(add[i+1:], func(b envEntry) bool { return b.a.Name == a.a.Name }) {
			out = append(out, a)
		}
	}
	return out
}

// unsure returns env with every variable that differs from before (set, changed or removed
// since) replaced by one whose value is not known: a body that may or may not have run (an
// if/case branch, a loop, the right side of && or ||) leaves such a variable set to what the
// branch gave, or to what it was. A later call then neither trusts an allowed value that only
// one branch gave it, nor misses another context that one branch picks: the engine asks about
// a binding it cannot read. ref is how the dialect names a variable's value ($, $env:).
func unsure(before, env []envEntry, ref string) []envEntry {
	if slices.Equal(before, env) {
		return env // most bodies change nothing of it: no allocation
	}
	same := func(e envEntry) bool {
		return slices.ContainsFunc(before, func(b envEntry) bool { return b.a.Name == e.a.Name && b.a.Value == e.a.Value })
	}
	out := make([]envEntry, 0, len(env)+len(before))
	for _, e := range env {
		if !same(e) {
			e.a.Value = rules.Word{Value: ref + e.a.Name, Pos: -1, End: -1}
		}
		out = append(out, e)
	}
	for _, b := range before {
		if !slices.ContainsFunc(env, func(e envEntry) bool { return e.a.Name == b.a.Name }) {
			b.a.Value = rules.Word{Value: ref + b.a.Name, Pos: -1, End: -1}
			out = append(out, b)
		}
	}
	return out
}

// convertEnv gives the environment as a call in text s reports it: entries from another text
// have no position in f's Src.
func convertEnv(s *source, es []envEntry) []rules.Assign {
	if len(es) == 0 {
		return nil
	}
	out := make([]rules.Assign, len(es))
	for i, e := range es {
		out[i] = e.a
		if e.s != s {
			out[i].Value.Pos, out[i].Value.End = -1, -1
		}
	}
	return out
}

type dirState struct {
	dir     string
	unknown bool
}

func (sc *scope) dirState() dirState { return dirState{sc.dir, sc.dirUnknown} }

// cd applies `cd`, `pushd` or `popd` with the given arguments.
func (sc *scope) cd(k stateKind, args []rules.Word) {
	if k == statePopd {
		sc.dirUnknown = true
		return
	}
	for len(args) > 0 && args[0].Literal && len(args[0].Value) > 1 && args[0].Value[0] == '-' {
		v := args[0].Value
		args = args[1:]
		if v == "--" {
			break
		}
		if strings.Trim(v[1:], "LPe@") != "" { // not an option after all: `cd -3` and the like
			sc.dirUnknown = true
			return
		}
	}
	if len(args) == 0 {
		if k == statePushd {
			sc.dirUnknown = true // swaps the top two directories of the stack
			return
		}
		sc.dir, sc.dirUnknown = "~", false
		return
	}
	if len(args) > 1 {
		sc.dirUnknown = true
		return
	}
	a := args[0]
	v := a.Value
	if !a.Literal {
		// `~` and `~/dir` name the home directory without depending on anything else.
		if rest, ok := strings.CutPrefix(v, "~"); ok && (rest == "" || rest[0] == '/') && plainText(rest) {
			sc.dir, sc.dirUnknown = path.Clean(v), false
			return
		}
		sc.dirUnknown = true
		return
	}
	switch {
	case v == "-" || k == statePushd && len(v) > 1 && (v[0] == '+' || v[0] == '-'):
		sc.dirUnknown = true
	case v == "":
		// bash ignores `cd ""`
	case v[0] == '/':
		sc.dir, sc.dirUnknown = path.Clean(v), false
	default:
		d := path.Join(sc.dir, v)
		if strings.HasPrefix(sc.dir, "~") && d != "~" && !strings.HasPrefix(d, "~/") {
			sc.dirUnknown = true // climbed out of the home directory: where to is unknown
		}
		if d == "." {
			d = ""
		}
		sc.dir = d
	}
}

func plainText(s string) bool {
	return !strings.ContainsAny(s, "$`\"'\\*?[{~")
}
