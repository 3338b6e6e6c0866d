package codec_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/google/go-cmp/cmp"
)

type inner struct {
	Allow []string `yaml:"allow"`
	Count int      `yaml:"count"`
}

type doc struct {
	Name     string            `yaml:"name"`
	Contexts map[string]*inner `yaml:"contexts"`
	List     []inner           `yaml:"list"`
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want doc
		errs []string // each error's text, in order
	}{
		{
			name: "ok",
			in:   "name: x\ncontexts:\n  a:\n    allow: [p, q]\n",
			want: doc{Name: "x", Contexts: map[string]*inner{"a": {Allow: []string{"p", "q"}}}},
		},
		{name: "bom", in: "\ufeffname: x\n", want: doc{Name: "x"}},
		{name: "crlf", in: "name: x\r\nlist:\r\n  - count: 2\r\n", want: doc{Name: "x", List: []inner{{Count: 2}}}},
		{name: "empty", in: ""},
		{name: "comments only", in: "# nothing here\n"},
		{
			name: "unknown key",
			in:   "name: x\ncontexts:\n  a:\n    alow: [p]\n",
			errs: []string{"f.yaml:4:5: unknown key \"alow\": did you mean `allow`?"},
		},
		{
			name: "unknown key in a list item",
			in:   "list:\n  - count: 1\n  - cout: 2\n",
			errs: []string{"f.yaml:3:5: unknown key \"cout\": did you mean `count`?"},
		},
		{
			name: "wrong type",
			in:   "name: x\nlist:\n  - count: many\n",
			errs: []string{`f.yaml:3:12: count must be a whole number, not "many"`},
		},
		{
			name: "sequence for a string",
			in:   "name: [a, b]\n",
			errs: []string{"f.yaml:1:7: name must be a single value, not a list"},
		},
		{
			name: "two problems",
			in:   "nme: x\nlist: {}\n",
			errs: []string{"f.yaml:1:1: unknown key \"nme\": did you mean `name`?", "f.yaml:2:7: list must be a list, not a mapping"},
		},
		{
			name: "scalar for a list",
			in:   "contexts:\n  a:\n    allow: p\n",
			errs: []string{`f.yaml:3:12: allow must be a list, not "p": write allow: [p]`},
		},
		{
			name: "list for a scalar, one item",
			in:   "name: [x]\n",
			errs: []string{"f.yaml:1:7: name must be a single value, not a list: write name: x"},
		},
		{
			name: "scalar for a struct",
			in:   "contexts:\n  a: p\n",
			errs: []string{`f.yaml:2:6: a must be a mapping of allow, count, not "p"`},
		},
		{
			name: "an entry of the wrong type",
			in:   "contexts:\n  a:\n    allow: [[p]]\n",
			errs: []string{"f.yaml:3:13: an entry of allow must be a single value, not a list"},
		},
		{
			name: "unknown key, nothing close",
			in:   "list:\n  - zzz: 1\n",
			errs: []string{`f.yaml:2:5: unknown key "zzz" (the keys here are allow, count)`},
		},
		{
			name: "every problem at once",
			in:   "nme: x\ncontexts:\n  a:\n    alow: [p]\n    count: [1]\n",
			errs: []string{"f.yaml:1:1: unknown key \"nme\": did you mean `name`?", "f.yaml:4:5: unknown key \"alow\": did you mean `allow`?", "f.yaml:5:12: count must be a whole number, not a list: write count: 1"},
		},
		{
			name: "repeated key",
			in:   "name: x\nname: y\n",
			errs: []string{`f.yaml:2:1: key "name" is written twice (first at line 1): keep one`},
		},
		{
			name: "syntax",
			in:   "name: x\nlist: [a,\n",
			errs: []string{"f.yaml:2:7: this [ is never closed: end the list with ]"},
		},
		{
			name: "second document",
			in:   "name: x\n---\nname: y\n",
			errs: []string{"f.yaml:2:1: a second YAML document (after ---): a file holds one; remove the --- line and merge the two, or move the second into a file of its own"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got doc
			err := codec.DecodeStrict([]byte(tt.in), "f.yaml", &got)
			if tt.errs == nil {
				if err != nil {
					t.Fatalf("DecodeStrict: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("DecodeStrict (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("DecodeStrict: no error, want %q", tt.errs)
			}
			var all []string
			for _, e := range codec.Unjoin(err) {
				var ce *codec.Error
				if !errors.As(e, &ce) {
					t.Errorf("error %v (%T) is not a *codec.Error", e, e)
				}
				all = append(all, e.Error())
			}
			if diff := cmp.Diff(tt.errs, all); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    codec.Error
		want string
	}{
		{codec.Error{File: "p.yaml", Line: 3, Col: 7, Msg: "bad"}, "p.yaml:3:7: bad"},
		{codec.Error{File: "p.yaml", Line: 3, Msg: "bad"}, "p.yaml:3: bad"},
		{codec.Error{File: "p.yaml", Msg: "bad"}, "p.yaml: bad"},
		{codec.Error{Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestPositions checks the positions Decode returns from its one parse.
func TestPositions(t *testing.T) {
	src := "version: 1\ncontexts:\n  az:\n    allow: [a, b]\n    unbound: fix\nrules:\n  - match: x y\n    decision: deny\n"
	var v any
	p, err := codec.Decode([]byte(src), "policy.yaml", &v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]codec.Pos{
		"":                     {1, 1},
		"version":              {1, 1},
		"contexts":             {2, 1},
		"contexts.az":          {3, 3},
		"contexts.az.allow":    {4, 5},
		"contexts.az.allow.1":  {4, 16},
		"contexts.az.unbound":  {5, 5},
		"rules.0":              {7, 5},
		"rules.0.decision":     {8, 5},
		"rules.0.match":        {7, 5},
		"contexts.az.allow.0":  {4, 13},
		"contexts.az.missing":  {},
		"rules.1":              {},
		"contexts.gcloud.deny": {},
	}
	for path, w := range want {
		got, ok := p.At(path)
		if ok != (w != codec.Pos{}) || got != w {
			t.Errorf("At(%q) = %v, %v; want %v", path, got, ok, w)
		}
	}
	if got, want := p.Errorf("contexts.az.unbound", "unknown setting %q", "maybe").Error(), `policy.yaml:5:5: unknown setting "maybe"`; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
	// A missing item points at the nearest enclosing one.
	if got, want := p.Errorf("contexts.az.default", "x").Error(), "policy.yaml:3:3: x"; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
	if _, err := codec.Decode([]byte("a: [\n"), "bad.yaml", &v); err == nil || err.Error() != "bad.yaml:1:4: this [ is never closed: end the list with ]" {
		t.Errorf("Decode of bad YAML: %v", err)
	}
	// An empty document has no positions; an error points at the file.
	p, err = codec.Decode([]byte("# nothing\n"), "empty.yaml", &v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Errorf("version", "x").Error(), "empty.yaml: x"; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
}

func TestToJSON(t *testing.T) {
	tests := []struct {
		name, format, in, want string
		err                    string
	}{
		{name: "json bom", format: "json", in: "\ufeff{\"a\":1}", want: `{"a":1}`},
		{name: "json untouched", format: "json", in: "{\r\n \"a\": [1, 2]\r\n}", want: "{\r\n \"a\": [1, 2]\r\n}"},
		{name: "json empty", format: "json", in: "", want: ""},

		{name: "yaml", format: "yaml", in: "current-context: dev\nb: 2\nc: [x, 1.5, true, null, ~]\n",
			want: `{"current-context":"dev","b":2,"c":["x",1.5,true,null,null]}`},
		{name: "yaml bom crlf", format: "yaml", in: "\ufeffa: b\r\nc:\r\n  d: e\r\n", want: `{"a":"b","c":{"d":"e"}}`},
		{name: "yaml order kept", format: "yaml", in: "z: 1\na: 2\nm: 3\n", want: `{"z":1,"a":2,"m":3}`},
		{name: "yaml non-string keys", format: "yaml", in: "1: one\ntrue: yes\n", want: `{"1":"one","true":"yes"}`},
		{name: "yaml numbers", format: "yaml", in: "a: 0x1F\nb: 1e3\nc: .inf\nd: -0\ne: 012\nf: +5\n",
			want: `{"a":31,"b":1e3,"c":".inf","d":-0,"e":10,"f":5}`},
		{name: "yaml bools and strings", format: "yaml", in: "a: True\nb: yes\nc: 'true'\nd: \"x\\ty\\u0001\"\n",
			want: `{"a":true,"b":"yes","c":"true","d":"x\ty\u0001"}`},
		{name: "yaml timestamp", format: "yaml", in: "t: 2026-12-01T10:00:00+00:00\n", want: `{"t":"2026-12-01T10:00:00+00:00"}`},
		{name: "yaml anchors and merge", format: "yaml",
			in:   "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nref: *b\n",
			want: `{"base":{"x":1,"y":2},"use":{"y":3,"x":1},"ref":{"x":1,"y":2}}`},
		{name: "yaml repeated key keeps first", format: "yaml", in: "a: 1\na: 2\n", want: `{"a":1}`},
		{name: "yaml empty", format: "yaml", in: "", want: `null`},
		{name: "yaml comments only", format: "yaml", in: "# x\n", want: `null`},
		{name: "yaml scalar document", format: "yaml", in: "hello\n", want: `"hello"`},
		{name: "yaml syntax", format: "yaml", in: "a: [b,\n", err: "line 1: this [ is never closed: end the list with ]"},
		{name: "yaml gh host with dots", format: "yaml", in: "github.com:\n    user: alice\n", want: `{"github.com":{"user":"alice"}}`},

		{name: "ini", format: "ini", in: "[core]\nproject = x\naccount = a@b\n\n[compute]\nregion = europe-west1\n",
			want: `{"core":{"project":"x","account":"a@b"},"compute":{"region":"europe-west1"}}`},
		{name: "ini top level and comments", format: "ini", in: "\ufeff; comment\ntop=1\n# other\n[s]\n  k : v w  \r\n",
			want: `{"top":"1","s":{"k":"v w"}}`},
		{name: "ini repeats merge", format: "ini", in: "[a]\nx=1\n[b]\ny=2\n[a]\nx=3\nz=4\n",
			want: `{"a":{"x":"3","z":"4"},"b":{"y":"2"}}`},
		{name: "ini value with delimiters", format: "ini", in: "[s]\nurl = https://x.example/?a=b\n",
			want: `{"s":{"url":"https://x.example/?a=b"}}`},
		{name: "ini empty value", format: "ini", in: "[s]\nk =\n", want: `{"s":{"k":""}}`},
		{name: "ini empty", format: "ini", in: "", want: `{}`},
		{name: "ini garbage", format: "ini", in: "[s]\nk = v\njust words\n", err: `line 3: want "key = value" or "[section]"`},
		{name: "ini bad header", format: "ini", in: "[s\n", err: "line 1: section header without ]"},

		{name: "text", format: "text", in: "staging", want: `"staging"`},
		{name: "text trimmed", format: "text", in: "\ufeff  prod\r\n", want: `"prod"`},
		{name: "text escapes", format: "text", in: "a\"b\\c\nd\xff", want: `"a\"b\\c\nd\ufffd"`},
		{name: "text empty", format: "text", in: "", want: `""`},

		{name: "unknown format", format: "toml", in: "a = 1", err: `unknown state format "toml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := codec.ToJSON([]byte(tt.in), tt.format)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("ToJSON error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("ToJSON = %s\nwant     %s", got, tt.want)
			}
			if tt.format != "json" && !json.Valid(got) {
				t.Errorf("ToJSON gave invalid JSON: %s", got)
			}
		})
	}
}

func TestToJSONAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a00: &a00 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	if _, err := codec.ToJSON([]byte(b.String()), "yaml"); err == nil || !strings.Contains(err.Error(), "aliasing") {
		t.Fatalf("ToJSON on an alias bomb: %v, want an aliasing error", err)
	}
}

func TestToJSONAliasCycle(t *testing.T) {
	_, err := codec.ToJSON([]byte("a: &x [1, *x]\n"), "yaml")
	if err == nil {
		t.Fatal("ToJSON on a self-containing anchor: no error")
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

func FuzzToJSON(f *testing.F) {
	for _, s := range []string{"a: b\n", "[s]\nk=v\n", "x", "{\"a\":1}", "a: &x {b: *x}\n", "<<: {a: 1}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{"yaml", "ini", "text"} {
			out, err := codec.ToJSON(data, format)
			if err == nil && !json.Valid(out) {
				t.Errorf("ToJSON(%q, %s) = %s: invalid JSON", data, format, out)
			}
		}
	})
}

func TestPosition(t *testing.T) {
	src := []byte("ab\ncd\n\nef")
	for off, want := range map[int]codec.Pos{
		-1: {1, 1}, 0: {1, 1}, 1: {1, 2}, 2: {1, 3}, 3: {2, 1}, 5: {2, 3}, 6: {3, 1}, 7: {4, 1}, 8: {4, 2}, 9: {4, 3}, 99: {4, 3},
	} {
		if got := codec.Position(src, off); got != want {
			t.Errorf("Position(%d) = %v, want %v", off, got, want)
		}
	}
}

// TestSyntax checks where and in which words YAML that does not parse is reported. yaml.v3 gives
// a line only, one too few for its parser's problems; the line here is the one to fix.
func TestSyntax(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unclosed list", "version: 1\ncontexts:\n  az:\n    allow: [a,\n    default: a\n  kubectl:\n    allow: [b]\n",
			"f.yaml:4:12: this [ is never closed: end the list with ]"},
		{"unclosed list on line 1", "allow: [a,\n", "f.yaml:1:8: this [ is never closed: end the list with ]"},
		{"unclosed list at the end", "a: 1\nb: [a,\n\n\n", "f.yaml:2:4: this [ is never closed: end the list with ]"},
		{"unclosed list, brackets in quotes and comments", "a: '[x'  # [\nb: [\"]\", c\n", "f.yaml:2:4: this [ is never closed: end the list with ]"},
		{"unclosed mapping", "a: 1\nb: {x: 1\nc: 2\n", "f.yaml:2:4: this { is never closed: end the mapping with }"},
		{"key dedented", "version: 1\ncontexts:\n  az:\n    allow: [a]\n   default: b\n",
			"f.yaml:5:4: this line is not lined up with the lines above it: indent `default` like the other keys of its mapping (spaces, the same number)"},
		{"key indented under a complete value", "version: 1\ncontexts:\n  az:\n    allow: [a]\n      default: b\n",
			"f.yaml:5:7: this line is not lined up with the lines above it: indent `default` like the other keys of its mapping (spaces, the same number)"},
		{"list item key dedented", "rules:\n  - match: x\n   decision: deny\n",
			"f.yaml:3:4: this line is not lined up with the lines above it: indent `decision` like the other keys of its mapping (spaces, the same number)"},
		{"unclosed quote", "a: 'abc\nb: 2\n", "f.yaml:1: a quoted value that starts on this line is never closed: add the closing quote"},
		{"colon in a value", "reason: do not: ever\n", "f.yaml:1:15: this value has \": \" in it, which YAML reads as another key: put the value in quotes"},
		{"tab", "a:\n\tb: 1\n", "f.yaml:2: a tab in the indentation: YAML indents with spaces only"},
		{"reserved character", "a: @x\n", "f.yaml:1: a value cannot start with this character (@ or ` are reserved): put the value in quotes"},
		{"no colon", "a: 1\nb\nc: 2\n", "f.yaml:2: this line is neither key: value nor - item: add the colon, or put the text in quotes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			pos, err := codec.Decode([]byte(tt.in), "f.yaml", &v)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Decode error:\n got %v\nwant %s", err, tt.want)
			}
			if pos != nil {
				t.Errorf("Decode of YAML that does not parse returned positions")
			}
		})
	}
}

// TestDecodePartial checks that a document with values of the wrong type still decodes the rest
// and gives positions, so that a caller's own checks run in the same pass.
func TestDecodePartial(t *testing.T) {
	var got doc
	pos, err := codec.Decode([]byte("name: x\nlist: oops\ncontexts:\n  a:\n    allow: [p]\n"), "f.yaml", &got)
	if err == nil || pos == nil {
		t.Fatalf("Decode = %v, %v; want positions and an error", pos, err)
	}
	if diff := cmp.Diff(doc{Name: "x", Contexts: map[string]*inner{"a": {Allow: []string{"p"}}}}, got); diff != "" {
		t.Errorf("partial decode (-want +got):\n%s", diff)
	}
	if at, ok := pos.At("contexts.a.allow"); !ok || at != (codec.Pos{Line: 5, Col: 5}) {
		t.Errorf("At(contexts.a.allow) = %v, %v", at, ok)
	}
	p := codec.NewProblems(pos, err)
	p.Add("list", "list is wrong again")          // the decoder's line: left out
	p.Add("contexts.a.allow", "allow is checked") // another line: kept
	var lines []string
	for _, e := range codec.Unjoin(p.Err()) {
		lines = append(lines, e.Error())
	}
	want := []string{`f.yaml:2:7: list must be a list, not "oops": write list: [oops]`, "f.yaml:5:5: allow is checked"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"allow", "default", "unbound", "kubectl", "az", "gh"}
	for word, want := range map[string]string{
		"alow": "allow", "Allow": "allow", "defualt": "default", "unbund": "unbound", "kubectll": "kubectl",
		"kubctl": "kubectl", "ax": "az", "allow": "", "sometimes": "", "xyz": "", "dfault": "default", "gcloud": "",
	} {
		if got := codec.Suggest(word, known); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestSorted: the problems of several checks, joined in any order and nesting, come out in the
// order of the file, with an error that has no position first.
func TestSorted(t *testing.T) {
	at := func(line, col int) error { return &codec.Error{File: "f", Line: line, Col: col, Msg: "m"} }
	plain := errors.New("no position")
	err := errors.Join(at(3, 1), errors.Join(at(1, 5), plain), at(1, 2))
	var got []string
	for _, e := range codec.Sorted(err) {
		got = append(got, e.Error())
	}
	want := []string{"no position", "f:1:2: m", "f:1:5: m", "f:3:1: m"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Sorted (-want +got):\n%s", d)
	}
	if codec.Sorted(nil) != nil {
		t.Error("Sorted(nil) is not empty")
	}
}
