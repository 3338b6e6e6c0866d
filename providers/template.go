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
