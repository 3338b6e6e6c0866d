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

// allowedList renders the allow lists for a reason: the most specific layer's list, which is
// the one a reader of the repository sees.
func (cp *ContextPolicy) allowedList() string {
	if len(cp.Allow) == 0 {
		return "any"
	}
	return strings.Join(cp.Allow[len(cp.Allow)-1].Patterns, ", ")
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
