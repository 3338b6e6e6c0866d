package providers

import (
	"errors"
	"os"
	"regexp"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
	"github.com/tidwall/gjson"
)

// Listed returns the contexts that the spec's Context.Listed files define, each id once, in the
// order of the listings and of the files (a folder's in name order). It is for `ctxguard init`,
// which proposes an allow list from them; a hook run never reads these files. A file that cannot
// be read or parsed is left out and reported in the error, with what the others gave.
func (r *Reader) Listed(s *spec.Spec, in spec.Input) ([]spec.Known, error) {
	if len(s.Context.Listed) == 0 {
		return nil, nil
	}
	x, err := r.start(s, &in)
	if err != nil {
		return nil, err
	}
	var out []spec.Known
	var errs []error
	add := func(l *spec.Listing, re *regexp.Regexp, e gjson.Result, star string) {
		id := pick(l.ID, e, star)
		if re != nil {
			m := re.FindStringSubmatch(id)
			switch {
			case m == nil:
				return
			case len(m) > 1:
				id = m[1]
			}
		}
		if id == "" {
			return
		}
		for _, k := range out {
			if k.ID == id {
				return
			}
		}
		name := id
		if l.Name != "" {
			name = pick(l.Name, e, star)
		}
		out = append(out, spec.Known{ID: id, Name: name})
	}
	for i := range s.Context.Listed {
		l := &s.Context.Listed[i]
		var re *regexp.Regexp
		if l.Match != "" {
			re = regexp.MustCompile(l.Match) // spec.Check compiled it
		}
		st := l.Step()
		files, err := x.matching(&st)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			if l.Format == "" {
				add(l, re, gjson.Result{}, f.star)
				continue
			}
			data, exists, err := r.load(f.path, l.Format, nil)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !exists {
				continue
			}
			doc := gjson.ParseBytes(data)
			if l.List == "" {
				add(l, re, doc, f.star)
				continue
			}
			doc.Get(substitute(l.List, x.lookup)).ForEach(func(_, e gjson.Result) bool {
				add(l, re, e, f.star)
				return true
			})
		}
	}
	return out, errors.Join(errs...)
}

// pick is a listing's id or name in element e: the gjson path, or for "*" what the * matched.
func pick(path string, e gjson.Result, star string) string {
	if path == "*" {
		return star
	}
	return e.Get(path).String()
}

// listed is one file that a listing's template names: its path, and the run of characters that
// the template's * matched.
type listed struct{ path, star string }

// matching expands a listing's templates into paths: a template with a * gives the existing
// paths whose element there matches it (any run of characters in that element), one without is
// given as it is, for the caller to read if it exists. The * is kept through the expansion of
// ${…} as a NUL, which no path or variable holds.
func (x *run) matching(st *spec.Step) ([]listed, error) {
	const star = "\x00"
	for _, ts := range []*spec.Strings{&st.File, &st.Windows, &st.Darwin} {
		marked := make(spec.Strings, len(*ts))
		for i, t := range *ts {
			marked[i] = strings.Replace(t, "*", star, 1)
		}
		*ts = marked
	}
	paths, err := x.paths(st)
	if err != nil {
		return nil, err
	}
	seps := "/"
	if x.in.System.GOOS() == "windows" {
		seps = `/\`
	}
	var out []listed
	for _, p := range paths {
		before, after, ok := strings.Cut(p, star)
		if !ok {
			out = append(out, listed{path: p}) // read, or found missing, by the caller
			continue
		}
		i := strings.LastIndexAny(before, seps) + 1
		dir, prefix := before[:i], before[i:]
		suffix, rest := after, ""
		if j := strings.IndexAny(after, seps); j >= 0 {
			suffix, rest = after[:j], after[j:]
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // no folder: no contexts, as with a missing state file
		}
		for _, e := range entries {
			name := e.Name()
			if len(name) < len(prefix)+len(suffix) || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
				continue
			}
			path := dir + name + rest
			if found, err := x.r.exists(path); err == nil && found {
				out = append(out, listed{path, name[len(prefix) : len(name)-len(suffix)]})
			}
		}
	}
	return out, nil
}
