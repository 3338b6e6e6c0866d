package rules

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxguard/ctxguard/spec"
)

// argv is a call's arguments read with one provider's knowledge of its flags: which global
// flags take a separate value. Patterns, flag values and positional targets are all read from it.
type argv struct {
	words      []Word
	valueFlags []string
	// attached says a short option's value may be the rest of its word (spec.AttachedValues).
	attached bool
}

// argvOf reads a call's arguments with a provider's flags (none for nil).
func argvOf(p *spec.Spec, words []Word) argv {
	if p == nil {
		return argv{words: words}
	}
	return argv{words: words, valueFlags: p.ValueFlags, attached: p.AttachedValues}
}

// isFlag reports whether a word is an option: a dash followed by something. A lone "-" is an
// argument (stdin), and "--" ends the options.
func isFlag(w Word) bool {
	return w.Literal && len(w.Value) > 1 && w.Value[0] == '-' && w.Value != "--"
}

// flagName returns the option's name without an attached "=value".
func flagName(v string) string {
	if i := strings.IndexByte(v, '='); i >= 0 {
		return v[:i]
	}
	return v
}

// path returns the call's command path: its positional words read from the left, skipping the
// declared value flags with their values and any `--flag=value`. Flags before the first
// positional word are skipped (global flags such as `kubectl -n x get`); after it, the first
// other flag ends the path, because its value could otherwise pass for a subcommand
// (`az group show --name delete`).
func (a argv) path() []string {
	var out []string
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w.Literal && w.Value == "--" {
			break
		}
		if isFlag(w) {
			name := flagName(w.Value)
			switch {
			case name != w.Value:
			case slices.Contains(a.valueFlags, name):
				i++
			case len(out) > 0:
				return out
			}
			continue
		}
		out = append(out, w.Value)
	}
	return out
}

// positionals returns the positional words after the first skip ones, skipping every flag and
// the values of declared value flags. Used for switch targets ("config use-context prod").
func (a argv) positionals(skip int) []Word {
	var out []Word
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w.Literal && w.Value == "--" {
			out = append(out, a.words[i+1:]...)
			break
		}
		if isFlag(w) {
			if flagName(w.Value) == w.Value && slices.Contains(a.valueFlags, w.Value) {
				i++
			}
			continue
		}
		out = append(out, w)
	}
	if skip >= len(out) {
		return nil
	}
	return out[skip:]
}

// flag returns the value of the last occurrence of any of the named flags, written either
// `--name value` or `--name=value`. found is false when the flag is absent; a flag present
// without a following value gives a non-literal empty word.
func (a argv) flag(names []string) (val Word, found bool) {
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w.Literal && w.Value == "--" {
			break
		}
		if !isFlag(w) {
			continue
		}
		name := flagName(w.Value)
		if !slices.Contains(names, name) {
			// -cprod is -c prod, and -c=prod too, where the CLI reads values so.
			if short := w.Value[:2]; a.attached && len(w.Value) > 2 && short[1] != '-' && slices.Contains(names, short) {
				found = true
				v := strings.TrimPrefix(w.Value[2:], "=")
				val = Word{Value: v, Literal: true, Pos: w.End - len(v), End: w.End}
			}
			continue
		}
		found = true
		if name != w.Value {
			val = Word{Value: w.Value[len(name)+1:], Literal: true, Pos: w.Pos + len(name) + 1, End: w.End}
			continue
		}
		if i+1 < len(a.words) {
			i++
			val = a.words[i]
		} else {
			val = Word{Pos: w.End, End: w.End}
		}
	}
	if !found {
		// A non-literal word could be any flag: `--subscription` hidden in "$ARGS" is not seen.
		return Word{}, false
	}
	return val, true
}

// own returns the part of a call's arguments in which the provider's own flags count: all of
// them, or for a CLI whose global flags must precede the subcommand (Spec.GlobalsFirst) the
// words before the first positional one.
func own(p *spec.Spec, a argv) argv {
	if !p.GlobalsFirst {
		return a
	}
	return argv{words: a.words[:a.subcommand()], valueFlags: a.valueFlags, attached: a.attached}
}

// subcommand returns the index of the first positional word, skipping flags and the values of
// declared value flags; len(words) when there is none.
func (a argv) subcommand() int {
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if !isFlag(w) {
			return i
		}
		if flagName(w.Value) == w.Value && slices.Contains(a.valueFlags, w.Value) {
			i++
		}
	}
	return len(a.words)
}

// hasFlag reports whether the flag is present; with a value, whether it has that value
// (case-insensitive, as CLIs compare verbs such as --method delete).
func (a argv) hasFlag(name, value string, withValue bool) bool {
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w.Literal && w.Value == "--" {
			return false
		}
		if !isFlag(w) || flagName(w.Value) != name {
			continue
		}
		if !withValue {
			return true
		}
		v := ""
		if n := len(name); len(w.Value) > n {
			v = w.Value[n+1:]
		} else if i+1 < len(a.words) {
			v = a.words[i+1].Value
		}
		if strings.EqualFold(v, value) {
			return true
		}
	}
	return false
}

// hasAny reports whether the call has any of the flags; one written with a value
// (--set-current-context=false) counts only with that value.
func (a argv) hasAny(names []string) bool {
	for _, n := range names {
		name, value, withValue := strings.Cut(n, "=")
		if a.hasFlag(name, value, withValue) {
			return true
		}
	}
	return false
}

// pattern is a parsed command pattern: path words (with * for one word, ** for one or more, and
// a trailing * for a word's start: delete-*) and flags that must be present.
type pattern struct {
	text  string
	words []string
	flags []string
	// first is the first path word when it is literal, which most calls' first word is not: a
	// call is then turned away without the general match.
	first string
}

// parsePattern is called for every pattern of every provider a line needs (some thirty each):
// the words are kept in the slice strings.Fields made, flags moved out of it.
func parsePattern(s string) pattern {
	p := pattern{text: s}
	fields := strings.Fields(s)
	words := fields[:0]
	for _, f := range fields {
		if strings.HasPrefix(f, "-") {
			p.flags = append(p.flags, f)
		} else {
			words = append(words, f)
		}
	}
	if len(words) > 0 {
		p.words = slices.Clip(words)
	}
	if len(p.words) > 0 && !strings.Contains(p.words[0], "*") {
		p.first = p.words[0]
	}
	return p
}

// match reports whether the pattern matches the call, and how many path words it consumed
// (a switch's positional target is read after them). The path words match a prefix of the
// call's command path; flags match anywhere.
func (p *pattern) match(a argv, path []string) (int, bool) {
	if p.first != "" && (len(path) == 0 || path[0] != p.first) {
		return 0, false
	}
	n := consumed(p.words, path)
	if n < 0 {
		return 0, false
	}
	for _, f := range p.flags {
		name, value, withValue := strings.Cut(f, "=")
		if !a.hasFlag(name, value, withValue) {
			return 0, false
		}
	}
	return n, true
}

// consumed returns how many path words the pattern words match as a prefix, or -1. "*" is one
// word, "**" one or more (shortest first, so that `** delete` stops at the first delete).
func consumed(pat, path []string) int {
	if len(pat) == 0 {
		return 0
	}
	if len(path) == 0 {
		return -1
	}
	switch pat[0] {
	case "**":
		for n := 1; n <= len(path); n++ {
			if k := consumed(pat[1:], path[n:]); k >= 0 {
				return n + k
			}
		}
		return -1
	case "*":
	default:
		if !wordMatch(pat[0], path[0]) {
			return -1
		}
	}
	if k := consumed(pat[1:], path[1:]); k >= 0 {
		return 1 + k
	}
	return -1
}

// wordMatch matches one path word: exactly, or by its start when the pattern word ends in *
// (aws names its verbs delete-bucket, delete-stack …: `** delete-*`).
func wordMatch(pat, word string) bool {
	if prefix, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(word, prefix)
	}
	return pat == word
}

// matchAny returns the first of the patterns that matches, if any.
func matchAny(pats []pattern, a argv, path []string) (string, bool) {
	for i := range pats {
		if _, ok := pats[i].match(a, path); ok {
			return pats[i].text, true
		}
	}
	return "", false
}

// specPatterns are a provider's command patterns, parsed once per line, in the order of the
// spec's lists: every call of the CLI is matched against most of them (some fifty for kubectl),
// and looking each one up by its text cost more than matching it.
type specPatterns struct {
	exempt, reject, switches, overrides, redefines, destructive []pattern
}

func (e *engine) patternsOf(p *spec.Spec) *specPatterns {
	if ps, ok := e.parsed[p]; ok {
		return ps
	}
	ps := &specPatterns{
		exempt:      parseEach(p.Exempt, func(s string) string { return s }),
		switches:    parseEach(p.Switch, func(s spec.Switch) string { return s.Command }),
		overrides:   parseEach(p.Overrides, func(o spec.Override) string { return o.Command }),
		redefines:   parseEach(p.Redefine, func(r spec.Redefine) string { return r.Command }),
		destructive: parseEach(p.Destructive, func(d spec.Destructive) string { return d.Match }),
	}
	if p.Bind != nil {
		ps.reject = parseEach(p.Bind.Reject, func(s string) string { return s })
	}
	e.parsed[p] = ps
	return ps
}

func parseEach[T any](items []T, text func(T) string) []pattern {
	out := make([]pattern, len(items))
	for i, it := range items {
		out[i] = parsePattern(text(it))
	}
	return out
}

// switcher is a switched_by entry's command word, with its length in characters (a call of
// another length is no such command: strings.EqualFold only matches equal lengths), and the
// pattern after it.
type switcher struct {
	name  string
	runes int
	rest  string
}

// switchersOf splits a spec's switched_by entries once per line: every call of the line is
// compared with every entry of every provider the line needs (twenty for kubectl alone).
func (e *engine) switchersOf(p *spec.Spec) []switcher {
	if s, ok := e.switchers[p]; ok {
		return s
	}
	s := make([]switcher, len(p.SwitchedBy))
	for i, sw := range p.SwitchedBy {
		name, rest, _ := strings.Cut(sw.Command, " ")
		s[i] = switcher{name, utf8.RuneCountInString(name), rest}
	}
	e.switchers[p] = s
	return s
}

// pattern parses a pattern that is not one of a spec's lists (a user rule's, a switched_by
// entry's) once per line.
func (e *engine) pattern(s string) pattern {
	p, ok := e.patterns[s]
	if !ok {
		p = parsePattern(s)
		e.patterns[s] = p
	}
	return p
}
