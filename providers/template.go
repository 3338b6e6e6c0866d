package providers

import (
	"strings"

	"github.com/ctxguard/ctxguard/spec"
	"github.com/tidwall/gjson"
)

// substitute replaces the ${name} references of a gjson path ([spec.PathRefs]) with values
// escaped for where they stand: inside a quoted query value (#(Name=="${target}")) as a JSON
// string's content, elsewhere as a path component (dots, wildcards and the like get a
// backslash). A malformed path, which the provider check refuses, is left as it is.
func substitute(path string, vars func(string) (string, bool)) string {
	if !strings.Contains(path, "${") {
		return path
	}
	refs, err := spec.PathRefs(path)
	if err != nil {
		return path
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		b.WriteString(path[last:r.Start])
		v, _ := vars(r.Name)
		if r.Quoted {
			q := gjson.AppendJSONString(nil, v)
			b.Write(q[1 : len(q)-1])
		} else {
			b.WriteString(gjson.Escape(v))
		}
		last = r.End
	}
	b.WriteString(path[last:])
	return b.String()
}

// A gjson modifier for a context list kept as a map (firebase's .firebaserc: "projects": {alias:
// id}): `projects|@entries` is [{"key": alias, "value": id}, …], so that known.list can name it
// with id: value and name: key. gjson keeps modifiers in a map of its own; adding one is a map
// store.
func init() { gjson.AddModifier("entries", entries) }

func entries(json, _ string) string {
	res := gjson.Parse(json)
	if !res.IsObject() {
		return "[]"
	}
	out := []byte{'['}
	res.ForEach(func(k, v gjson.Result) bool {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, `{"key":`...)
		out = gjson.AppendJSONString(out, k.String())
		out = append(out, `,"value":`...)
		out = append(out, v.Raw...)
		out = append(out, '}')
		return true
	})
	return string(append(out, ']'))
}
