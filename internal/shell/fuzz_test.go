package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/corpus"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ctxguard/ctxguard/rules"
)

func seed(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.src)
	}
	commands, err := corpus.Commands()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range commands {
		f.Add(c)
	}
}

func FuzzParse(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, src string) {
		calls, err := Parse(src)
		if err != nil {
			if calls != nil {
				t.Fatalf("Parse(%q) returned calls with error %v", src, err)
			}
			return
		}
		checkCalls(t, src, calls)
		for _, c := range calls {
			if n := len(c.Via); n > 0 && c.Via[n-1] == "too deep" {
				return // the rest of that subtree is one opaque call
			}
		}
		names := map[string]bool{}
		for _, c := range calls {
			// A copy or a link of a program the line made is named as that program.
			names[c.Name], names[commandName(c.NameWord)] = true, true
		}
		for _, name := range walkNames(t, src) {
			if !names[name] {
				t.Errorf("Parse(%q): the command %q is in the syntax tree but not among the calls %q", src, name, callNames(calls))
			}
		}
	})
}

// walkNames returns the literal command words of every simple command in the syntax tree.
func walkNames(t *testing.T, src string) []string {
	f, err := parseScript(src)
	if err != nil {
		t.Fatalf("Parse accepted %q but the parser does not: %v", src, err)
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			if v, lit := wordValue(ce.Args[0], false); lit {
				out = append(out, commandName(rules.Word{Value: v, Literal: true}))
			}
		}
		return true
	})
	return out
}

func callNames(calls []rules.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Name)
	}
	return out
}

// special reports the commands whose meaning changes when words are appended (the wrapper table's
// wrappers, shells and builtins that change the shell's state, the producers of a script piped
// into a shell, and the copies and links whose destination later calls run): the engine only
// binds guarded CLIs, which are none of these.
func special(name string) bool {
	switch name {
	case "echo", "printf", "cat", "cp", "install", "ln", "mv":
		return true
	}
	return wrapperNamed(bashDialect, name) != nil
}

// FuzzRewrite binds every ordinary call of a line the way the engine does (a flag after its last
// argument) and checks that Rewrite accepts it and that the result runs the same commands.
func FuzzRewrite(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, src string) {
		calls, err := Parse(src)
		if err != nil {
			return
		}
		for _, c := range calls {
			if n := len(c.Via); n > 0 && c.Via[n-1] == "too deep" {
				return
			}
		}
		funcs := slices.ContainsFunc(calls, func(c rules.Call) bool { return slices.Contains(c.Via, "function") })
		for _, c := range calls {
			if c.Nested || c.Name == "" || c.ArgsAppended || special(c.Name) || funcs {
				// (The arguments of a call of a function defined in the line are another call's.)
				continue
			}
			if strings.HasSuffix(src[:c.End], `\`) {
				continue // a backslash at the very end of the line would escape the inserted space
			}
			if strings.HasSuffix(src[:c.End], "\r") || strings.HasPrefix(src[c.End:], "\r") {
				continue // the parser folds "\r\n" into a newline: an insertion there changes the word
			}
			edit := rules.Edit{At: c.End, Text: " --context dev"}
			out, err := Rewrite(src, []rules.Edit{edit})
			if err != nil {
				t.Errorf("Rewrite(%q, %v) for %s: %v", src, edit, render(c), err)
				continue
			}
			again, err := Parse(out)
			if err != nil {
				t.Fatalf("Rewrite(%q) = %q, which does not parse: %v", src, out, err)
			}
			if !slices.Equal(callNames(calls), callNames(again)) {
				t.Errorf("Rewrite(%q) = %q: commands %q became %q", src, out, callNames(calls), callNames(again))
			}
			if !strings.Contains(out, "--context dev") {
				t.Errorf("Rewrite(%q) = %q lost the edit", src, out)
			}
		}
	})
}
