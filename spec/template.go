package spec

import (
	"errors"
	"slices"
	"strings"
)

// A template is a path written the way a CLI's documentation writes it:
// ${AZURE_CONFIG_DIR:-~/.azure}/azureProfile.json, %LOCALAPPDATA%\Microsoft\… on Windows. It is
// expanded with a small, shell-like grammar rather than os.Expand, because the defaults nest
// (${GH_CONFIG_DIR:-${XDG_CONFIG_HOME:-~/.config}/gh}) and an unset variable must make the path
// unusable instead of silently pointing at the root directory.

var errTemplate = errors.New("template syntax")

// Expand expands the path template t; vars returns a variable's value, with ok false when it is
// unset or empty. ok is false when a variable without a default is unset or empty, or when t
// starts with ~ and there is no home directory: such a template names nothing. percent enables
// %VAR% (Windows).
func Expand(t string, vars func(name string) (value string, ok bool), home string, percent bool) (out string, ok bool, err error) {
	var b strings.Builder
	ok = true
	i := 0
	if strings.HasPrefix(t, "~") && (len(t) == 1 || t[1] == '/' || t[1] == '\\') {
		if home == "" {
			ok = false
		}
		b.WriteString(home)
		i = 1
	}
	for i < len(t) {
		c := t[i]
		switch {
		case c == '$' && i+1 < len(t) && t[i+1] == '{':
			end := closing(t, i+2)
			if end < 0 {
				return "", false, errTemplate
			}
			body := t[i+2 : end]
			name, def, hasDef := strings.Cut(body, ":-")
			if !validVar(name) {
				return "", false, errTemplate
			}
			if v, set := vars(name); set {
				b.WriteString(v)
			} else if hasDef {
				v, dok, err := Expand(def, vars, home, percent)
				if err != nil {
					return "", false, err
				}
				ok = ok && dok && v != ""
				b.WriteString(v)
			} else {
				ok = false
			}
			i = end + 1
		case c == '%' && percent:
			end := strings.IndexByte(t[i+1:], '%')
			name := ""
			if end >= 0 {
				name = t[i+1 : i+1+end]
			}
			if end < 0 || !validPercentVar(name) {
				b.WriteByte(c)
				i++
				continue
			}
			if v, set := vars(name); set {
				b.WriteString(v)
			} else {
				ok = false
			}
			i += end + 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	if !ok {
		return "", false, nil
	}
	return b.String(), true, nil
}

// closing returns the index of the } that closes a ${ whose body starts at i, or -1.
func closing(t string, i int) int {
	depth := 1
	for ; i < len(t); i++ {
		switch {
		case t[i] == '$' && i+1 < len(t) && t[i+1] == '{':
			depth++
			i++
		case t[i] == '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

func validVar(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// validPercentVar accepts Windows names such as ProgramFiles(x86).
func validPercentVar(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '(' || c == ')' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// PathRef is a ${name} reference in a gjson path template: path[Start:End] is the reference.
// Quoted is set for one inside a quoted query value (#(Name=="${target}")), which is substituted
// as a JSON string's content rather than as a path component.
type PathRef struct {
	Name       string
	Start, End int
	Quoted     bool
}

// PathRefs lists the ${name} references of a gjson path template, in order, or an error for a
// malformed one. A backslash escapes the byte after it, as in gjson. Path templates have no
// defaults: a reference names a Let value or, in a switch lookup, the target. The state reader
// substitutes by this list, and the provider check reads it.
func PathRefs(path string) ([]PathRef, error) {
	var out []PathRef
	quoted := false
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == '$' && i+1 < len(path) && path[i+1] == '{':
			end := strings.IndexByte(path[i+2:], '}')
			if end < 0 {
				return nil, errTemplate
			}
			name := path[i+2 : i+2+end]
			if !validVar(name) {
				return nil, errTemplate
			}
			out = append(out, PathRef{Name: name, Start: i, End: i + 3 + end, Quoted: quoted})
			i += 2 + end
		}
	}
	return out, nil
}

// Names lists the variables a path template refers to as ${name} or %name%, those in its
// defaults included, or an error for a malformed template.
func Names(t string) ([]string, error) {
	var names []string
	record := func(n string) (string, bool) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
		return "", false // unset, so that every default is expanded and its names seen too
	}
	_, _, err := Expand(t, record, "", true)
	return names, err
}

// Templates returns the step's path templates for every system: File, Windows and Darwin.
func (st *Step) Templates() []string {
	out := make([]string, 0, len(st.File)+len(st.Windows)+len(st.Darwin))
	out = append(out, st.File...)
	out = append(out, st.Windows...)
	return append(out, st.Darwin...)
}

// Mentions reports whether the step depends on the environment variable name: as one of its Env,
// OverriddenBy or Replaced, or as ${name} or %name% in a path template or the default (Windows names match
// in any case). The engine uses it to tell when a non-literal assignment on a call
// (KUBECONFIG=$X) makes the context unknowable.
func (st *Step) Mentions(name string) bool {
	if slices.Contains(st.Env, name) || slices.Contains(st.OverriddenBy, name) ||
		slices.ContainsFunc(st.Replaced, func(r Replaced) bool { return slices.Contains(r.By, name) }) {
		return true
	}
	percent := "%" + strings.ToLower(name) + "%"
	for _, t := range append(st.Templates(), st.Default) {
		if names, err := Names(t); err == nil && slices.Contains(names, name) {
			return true
		}
		if strings.Contains(strings.ToLower(t), percent) {
			return true
		}
	}
	return false
}
