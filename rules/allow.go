package rules

import (
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// identity is every spelling of one context: the value as written and, where the state file
// lists the context, its id and its name. A policy may name either.
type identity []string

func identify(value string, known []spec.Known, fold bool) identity {
	id := identity{value}
	for _, k := range known {
		if eq(k.ID, value, fold) || (k.Name != "" && eq(k.Name, value, fold)) {
			id = append(id, k.ID, k.Name)
		}
	}
	return id
}

func eq(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Allows reports whether the policy allows the context value, named by its id or by its name
// in known (the contexts the state file lists): the check a call's context gets, for `ctxguard
// doctor` to mark an active context the policy forbids.
func (cp *ContextPolicy) Allows(value string, known []spec.Known, fold bool) bool {
	return value != "" && cp.allows(identify(value, known, fold), fold)
}

// Literals are the contexts the allow lists name literally and every layer allows: the ones a
// fix can name.
func (cp *ContextPolicy) Literals(known []spec.Known, fold bool) []string {
	return cp.literals(known, fold)
}

// allows reports whether every layer's allow list has a pattern that matches some spelling of
// the context. A policy without lists allows everything.
func (cp *ContextPolicy) allows(id identity, fold bool) bool {
	for _, list := range cp.Allow {
		if !list.matches(id, fold) {
			return false
		}
	}
	return true
}

func (l AllowList) matches(id identity, fold bool) bool {
	for _, p := range l.Patterns {
		for _, v := range id {
			if v != "" && Glob(p, v, fold) {
				return true
			}
		}
	}
	return false
}

// allowedList renders what the allow lists allow together, for a reason. Layers intersect (a
// context must be in every list: a managed or user policy narrows the repository's), so with
// more than one list it is the entries of any list that every list allows, the repository's
// first, and where a pattern of each list could match the same context without either holding
// the other (dev-* and *-eu), those patterns too; "none" when no context is in every list. A
// pattern is in another list when that list has a pattern that matches it as text: dev-eu-* is
// in dev-*, everything in *. known gives each literal's other spelling (a name for an id).
func (cp *ContextPolicy) allowedList(known []spec.Known, fold bool) string {
	switch len(cp.Allow) {
	case 0:
		return "any"
	case 1:
		return strings.Join(cp.Allow[0].Patterns, ", ")
	}
	var out []string
	var found []identity
	left := make([][]string, len(cp.Allow)) // each list's patterns not in every other list
	for i := len(cp.Allow) - 1; i >= 0; i-- {
		for _, pat := range cp.Allow[i].Patterns {
			id := identify(pat, known, fold)
			if cp.allows(id, fold) {
				if !seen(found, id, fold) {
					found = append(found, id)
					out = append(out, pat)
				}
			} else if isGlob(pat) {
				left[i] = append(left[i], pat)
			}
		}
	}
	if overlap(left, fold) {
		var each []string
		for i := len(left) - 1; i >= 0; i-- {
			each = append(each, strings.Join(left[i], " or "))
		}
		out = append(out, "what matches each of "+strings.Join(each, " and "))
	}
	if len(out) == 0 {
		return "none: no context is in every policy's list"
	}
	return strings.Join(out, ", ")
}

// overlap reports whether some context matches a pattern of every list.
func overlap(lists [][]string, fold bool) bool {
	var walk func(i int, pats []string) bool
	walk = func(i int, pats []string) bool {
		if i == len(lists) {
			return true
		}
		for _, p := range lists[i] {
			if all(pats, func(q string) bool { return common(p, q, fold) }) && walk(i+1, append(pats, p)) {
				return true
			}
		}
		return false
	}
	return walk(0, nil)
}

func all(s []string, f func(string) bool) bool {
	for _, v := range s {
		if !f(v) {
			return false
		}
	}
	return true
}

// common reports whether some string matches both Glob patterns a and b.
func common(a, b string, fold bool) bool {
	if fold {
		a, b = strings.ToLower(a), strings.ToLower(b)
	}
	memo := map[[2]int]bool{}
	var ok func(i, j int) bool
	ok = func(i, j int) bool {
		k := [2]int{i, j}
		if v, done := memo[k]; done {
			return v
		}
		var r bool
		switch {
		case i == len(a) && j == len(b):
			r = true
		case i < len(a) && a[i] == '*':
			r = ok(i+1, j) || j < len(b) && ok(i, j+1)
		case j < len(b) && b[j] == '*':
			r = ok(i, j+1) || i < len(a) && ok(i+1, j)
		case i < len(a) && j < len(b):
			r = a[i] == b[j] && ok(i+1, j+1)
		}
		memo[k] = r
		return r
	}
	return ok(0, 0)
}

// Glob matches s against an allow pattern in which * is any run of characters (URLs and ids
// contain slashes, so path.Match's rules do not fit) and every other character is itself; fold
// ignores case. The policy package checks defaults with it, so that both agree.
func Glob(pat, s string, fold bool) bool {
	if fold {
		pat, s = strings.ToLower(pat), strings.ToLower(s)
	}
	if !isGlob(pat) {
		return pat == s
	}
	parts := strings.Split(pat, "*")
	first, last := parts[0], parts[len(parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	s = s[len(first) : len(s)-len(last)]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return true
}

// isGlob reports whether an allow entry is a pattern rather than one value.
func isGlob(p string) bool { return strings.Contains(p, "*") }
