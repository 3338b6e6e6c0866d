package providers

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestMembers checks that reading an entry's members in one pass gives what a Get of each path
// gives: repeated keys, escaped keys, nested and query paths, an entry that is not an object.
func TestMembers(t *testing.T) {
	paths := []string{"id", "name", "", "user.name", "tenant-id", "a_b", "missing", "0", "tags.#", "n"}
	for _, entry := range []string{
		`{"id": "1", "name": "Dev", "user": {"name": "alice"}, "tenant-id": "t", "a_b": null, "n": 2}`,
		`{"id": "first", "id": "second", "name": "x", "name": ""}`,
		`{"\u0069d": "escaped", "na\u006de": "y", "0": "zero", "tags": [1, 2]}`,
		`["id", "name"]`, `"id"`, `12`, `null`, `{}`,
	} {
		e := gjson.Parse(entry)
		got := members(e, paths)
		for i, p := range paths {
			var want gjson.Result
			if p != "" {
				want = e.Get(p)
			}
			if got[i].Raw != want.Raw || got[i].Type != want.Type || got[i].String() != want.String() {
				t.Errorf("%s: members gives %q (%v) at %q, Get gives %q (%v)", entry, got[i].Raw, got[i].Type, p, want.Raw, want.Type)
			}
		}
	}
}
