package codec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestToJSONKeys checks the partial YAML decode against the whole one: on every YAML state file
// the CLIs wrote (providers/testdata), the keys a provider reads give what decoding the whole
// file gives.
func TestToJSONKeys(t *testing.T) {
	files, err := filepath.Glob("../../providers/testdata/*/*.y*ml")
	if err != nil || len(files) < 5 {
		t.Fatalf("fixtures: %v, %v", files, err)
	}
	paths := []string{"current-context", "contexts", "context", "auth-contexts|@keys", `github\.com.user`, `github\.com.users|@keys`}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := ToJSON(data, "yaml")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range paths {
			key := strings.ReplaceAll(strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '|' })[0], `github\`, "github")
			if strings.HasPrefix(p, `github\.com`) {
				key = "github.com"
			}
			part, err := ToJSONKeys(data, "yaml", []string{key})
			if err != nil {
				t.Fatalf("%s, %s: %v", f, key, err)
			}
			if g, w := gjson.GetBytes(part, p).Raw, gjson.GetBytes(whole, p).Raw; g != w {
				t.Errorf("%s: %s = %s in part, %s in whole", f, p, g, w)
			}
		}
	}
}

func TestTopEntries(t *testing.T) {
	tests := []struct {
		name, src string
		keys      []string
		want      string // the JSON; "" when the document must be decoded whole
	}{
		{"keeps the entry, blanks the rest", "a: 1\nb:\n  c: 2\n  d: [3]\ne: x\n", []string{"b"}, `{"b":{"c":2,"d":[3]}}`},
		{"a key written twice keeps its first value", "a: 1\nb: 2\na: 3\n", []string{"a"}, `{"a":1}`},
		{"leading document marker and comments", "---\n# c\na: 1 # x\n\nb: 2\n", []string{"b"}, `{"b":2}`},
		{"quoted and spaced keys", "\"a b\": 1\n'c': 2\nprofile dev:\n  x: y\n", []string{"a b", "profile dev"}, `{"a b":1,"profile dev":{"x":"y"}}`},
		{"block scalar", "a: |\n  line\n  more\nb: 1\n", []string{"a"}, `{"a":"line\nmore\n"}`},
		{"no such key", "a: 1\n", []string{"z"}, `null`}, // ToJSONKeys makes it {}
		{"a flow mapping", "{a: 1, b: 2}\n", []string{"a"}, ""},
		{"a sequence", "- a\n- b\n", []string{"a"}, ""},
		{"an alias in a kept entry", "base: &b {x: 1}\na: *b\n", []string{"a"}, ""},
		{"a merge key in a kept entry", "a:\n  <<: {x: 1}\n", []string{"a"}, ""},
		{"a complex key", "? a\n: 1\n", []string{"a"}, ""},
		{"a second document", "a: 1\n---\nb: 2\n", []string{"a"}, ""},
		{"a directive", "%YAML 1.2\n---\na: 1\n", []string{"a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cut, ok := topEntries([]byte(tt.src), tt.keys)
			if tt.want == "" {
				if ok {
					t.Fatalf("cut %q, want the whole document decoded", cut)
				}
				return
			}
			if !ok {
				t.Fatalf("not cut, want %s", tt.want)
			}
			if n, m := strings.Count(string(cut), "\n"), strings.Count(tt.src, "\n"); n != m {
				t.Errorf("cut has %d lines, the file %d: error lines would move", n, m)
			}
			got, err := yamlToJSON(cut)
			if err != nil || string(got) != tt.want {
				t.Errorf("decoded %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	if got, err := ToJSONKeys([]byte("a: 1\n"), "yaml", []string{"z"}); err != nil || string(got) != "{}" {
		t.Errorf("no such key: %s, %v; want {} (a mapping without it)", got, err)
	}
	// An error in a kept entry is reported as for the whole file, at the file's own line.
	broken := []byte("a: 1\nb: 2\nc: x: y\nd: 1\n")
	_, whole := ToJSON(broken, "yaml")
	if _, part := ToJSONKeys(broken, "yaml", []string{"c"}); whole == nil || part == nil || part.Error() != whole.Error() {
		t.Errorf("error %v, want %v", part, whole)
	}
}
