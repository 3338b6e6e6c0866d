package providers

import "github.com/tidwall/gjson"

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
