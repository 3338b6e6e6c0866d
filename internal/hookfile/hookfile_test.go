package hookfile

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/codec"
)

var (
	nested = Layout{Nested: true, Events: []string{"PreToolUse"}}
	flat   = Layout{Events: []string{"preToolUse"}}

	group   = Entry{"PreToolUse", []byte(`{"matcher":"Bash|PowerShell","hooks":[{"type":"command","command":"/usr/local/bin/ctxguard","args":["hook"],"timeout":30}]}`)}
	handler = Entry{"preToolUse", []byte(`{"type":"command","bash":"/usr/local/bin/ctxguard hook --harness copilot","timeoutSec":30}`)}
)

func TestInstall(t *testing.T) {
	tests := []struct {
		name     string
		layout   Layout
		skeleton string
		in       string
		entry    Entry
		want     string
	}{
		{
			name:   "other hooks survive, two spaces",
			layout: nested,
			in: `{
  "permissions": {
    "allow": ["Bash(ls:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit",
        "hooks": [{"type": "command", "command": "lint.sh"}]
      }
    ]
  }
}
`,
			entry: group,
			want: `{
  "permissions": {
    "allow": ["Bash(ls:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit",
        "hooks": [{"type": "command", "command": "lint.sh"}]
      },
      {
        "matcher": "Bash|PowerShell",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/ctxguard",
            "args": [
              "hook"
            ],
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`,
		},
		{
			name:   "no hooks yet, tabs, no trailing newline",
			layout: nested,
			in:     "{\n\t\"model\": \"opus\"\n}",
			entry:  group,
			want: "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"Bash|PowerShell\",\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n" +
				"\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"/usr/local/bin/ctxguard\",\n\t\t\t\t\t\t\"args\": [\n\t\t\t\t\t\t\t\"hook\"\n\t\t\t\t\t\t],\n" +
				"\t\t\t\t\t\t\"timeout\": 30\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}",
		},
		{
			name:   "crlf and four spaces, other event",
			layout: nested,
			in:     "{\r\n    \"hooks\": {\r\n        \"Stop\": []\r\n    }\r\n}\r\n",
			entry:  Entry{"PreToolUse", []byte(`{"matcher":"Bash","hooks":[{"command":"ctxguard hook"}]}`)},
			want: "{\r\n    \"hooks\": {\r\n        \"Stop\": [],\r\n        \"PreToolUse\": [\r\n            {\r\n                \"matcher\": \"Bash\",\r\n" +
				"                \"hooks\": [\r\n                    {\r\n                        \"command\": \"ctxguard hook\"\r\n" +
				"                    }\r\n                ]\r\n            }\r\n        ]\r\n    }\r\n}\r\n",
		},
		{
			name:   "one-line file stays on one line",
			layout: flat,
			in:     `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"audit.sh"}]}}`,
			entry:  handler,
			want:   `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"audit.sh"},{"type":"command","bash":"/usr/local/bin/ctxguard hook --harness copilot","timeoutSec":30}]}}`,
		},
		{
			name:   "one-line file with spaces",
			layout: flat,
			in:     `{"version": 1, "hooks": {}}` + "\n",
			entry:  handler,
			want:   `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "/usr/local/bin/ctxguard hook --harness copilot", "timeoutSec": 30}]}}` + "\n",
		},
		{
			name:     "new file from the skeleton",
			layout:   flat,
			skeleton: "{\n  \"version\": 1\n}\n",
			in:       "",
			entry:    handler,
			want:     "{\n  \"version\": 1,\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"/usr/local/bin/ctxguard hook --harness copilot\",\n        \"timeoutSec\": 30\n      }\n    ]\n  }\n}\n",
		},
		{
			name:   "empty object",
			layout: flat,
			in:     "{}\n",
			entry:  Entry{"preToolUse", []byte(`{"bash":"ctxguard hook"}`)},
			want:   "{\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"bash\": \"ctxguard hook\"\n      }\n    ]\n  }\n}\n",
		},
		{
			name:   "empty event array keeps its indentation",
			layout: flat,
			in:     "{\n  \"hooks\": {\n    \"preToolUse\": []\n  }\n}\n",
			entry:  Entry{"preToolUse", []byte(`{"bash":"ctxguard hook"}`)},
			want:   "{\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"bash\": \"ctxguard hook\"\n      }\n    ]\n  }\n}\n",
		},
		{
			name:   "inline array in a multi-line file",
			layout: flat,
			in:     "{\n  \"hooks\": {\"preToolUse\": [{\"bash\": \"a\"}, {\"bash\": \"b\"}]}\n}\n",
			entry:  Entry{"preToolUse", []byte(`{"bash":"ctxguard hook"}`)},
			want:   "{\n  \"hooks\": {\"preToolUse\": [{\"bash\": \"a\"}, {\"bash\": \"b\"}, {\"bash\": \"ctxguard hook\"}]}\n}\n",
		},
		{
			name:   "an old entry is replaced, others kept in place",
			layout: flat,
			in:     "{\n  \"hooks\": {\n    \"preToolUse\": [\n      {\"bash\": \"/old/ctxguard hook\"},\n      {\"bash\": \"audit.sh\"}\n    ]\n  }\n}\n",
			entry:  Entry{"preToolUse", []byte(`{"bash":"/new/ctxguard hook"}`)},
			want:   "{\n  \"hooks\": {\n    \"preToolUse\": [\n      {\"bash\": \"audit.sh\"},\n      {\n        \"bash\": \"/new/ctxguard hook\"\n      }\n    ]\n  }\n}\n",
		},
		{
			name:   "numbers, escapes and key order are kept",
			layout: nested,
			in:     "{\n  \"z\": 1e3,\n  \"a\": \"\\u00e9\\/<&>\",\n  \"n\": [1.50, -0]\n}\n",
			entry:  Entry{"PreToolUse", []byte(`{"hooks":[{"command":"ctxguard"}]}`)},
			want:   "{\n  \"z\": 1e3,\n  \"a\": \"\\u00e9\\/<&>\",\n  \"n\": [1.50, -0],\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": [\n          {\n            \"command\": \"ctxguard\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
		},
		{
			name:   "bare event map (Factory Droid's hooks.json)",
			layout: Layout{Nested: true, Bare: true, Events: []string{"PreToolUse"}},
			in:     "{\n  \"Stop\": []\n}\n",
			entry:  Entry{"PreToolUse", []byte(`{"matcher":"Execute","hooks":[{"command":"ctxguard hook"}]}`)},
			want:   "{\n  \"Stop\": [],\n  \"PreToolUse\": [\n    {\n      \"matcher\": \"Execute\",\n      \"hooks\": [\n        {\n          \"command\": \"ctxguard hook\"\n        }\n      ]\n    }\n  ]\n}\n",
		},
		{
			name:   "byte-order mark",
			layout: flat,
			in:     "\ufeff{\"a\": 1}",
			entry:  Entry{"preToolUse", []byte(`{"bash":"ctxguard"}`)},
			want:   "\ufeff{\"a\": 1, \"hooks\": {\"preToolUse\": [{\"bash\": \"ctxguard\"}]}}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Install([]byte(tt.in), "f.json", tt.layout, []byte(tt.skeleton), []Entry{tt.entry})
			if err != nil {
				t.Fatalf("Install: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Install:\n got %q\nwant %q\n%s", got, tt.want, got)
			}
			if !json.Valid([]byte(strings.TrimPrefix(string(got), "\ufeff"))) {
				t.Errorf("Install gave invalid JSON: %s", got)
			}
			again, err := Install(got, "f.json", tt.layout, []byte(tt.skeleton), []Entry{tt.entry})
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(got) {
				t.Errorf("installing twice changed the file:\n%s", again)
			}
			hooks, err := Find(got, "f.json", tt.layout)
			if err != nil || len(hooks) != 1 {
				t.Errorf("Find = %v, %v; want one hook", hooks, err)
			}
		})
	}
}

// TestRoundTrip checks that uninstalling after installing gives back the original bytes, for
// files written in many styles. (The one thing not kept is white space inside an empty object
// that gets ctxguard's entry and loses it again: "{ }" comes back as "{}".)
func TestRoundTrip(t *testing.T) {
	files := []string{
		"{}",
		"{}\n",
		`{"a":1}`,
		"{\n  \"a\": 1\n}\n",
		"{\n\t\"a\": [1, 2],\n\t\"b\": {}\n}",
		"{\r\n   \"hooks\": {\r\n      \"Stop\": [{\"hooks\": []}]\r\n   }\r\n}\r\n",
		"{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Edit\", \"hooks\": [{\"command\": \"x\"}]}\n    ]\n  }\n}\n",
		"{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Edit\", \"hooks\": [{\"command\": \"x\"}]}]\n  },\n  \"env\": {\"A\": \"b\"}\n}\n",
		"  {\"hooks\" : {\"PreToolUse\" : [ {\"hooks\":[{\"command\":\"y\"}]} ] } }  \n\n",
		"{\"a\":\"\\\"}\\\"\",\"b\":[[],[{}]]}",
	}
	for _, f := range files {
		got, err := Install([]byte(f), "f.json", nested, []byte("{}\n"), []Entry{group})
		if err != nil {
			t.Errorf("Install(%q): %v", f, err)
			continue
		}
		if !json.Valid(got) {
			t.Errorf("Install(%q) gave invalid JSON: %s", f, got)
		}
		back, err := Uninstall(got, "f.json", nested)
		if err != nil {
			t.Errorf("Uninstall: %v", err)
			continue
		}
		if string(back) != f {
			t.Errorf("round trip of %q gave %q (installed: %q)", f, back, got)
		}
	}
}

func TestUninstall(t *testing.T) {
	tests := []struct {
		name   string
		layout Layout
		in     string
		want   string
	}{
		{
			name:   "only ctxguard's handler leaves a shared group",
			layout: nested,
			in:     "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\"command\": \"/bin/ctxguard hook\"},\n          {\"command\": \"audit.sh\"}\n        ]\n      }\n    ]\n  }\n}\n",
			want:   "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\"command\": \"audit.sh\"}\n        ]\n      }\n    ]\n  }\n}\n",
		},
		{
			name:   "every ctxguard entry goes, whatever its path or form",
			layout: Layout{Events: []string{"beforeShellExecution", "preToolUse"}},
			in:     `{"version":1,"hooks":{"beforeShellExecution":[{"command":"'/a b/ctxguard' hook"},{"command":"other"}],"preToolUse":[{"command":"C:\\bin\\ctxguard.exe hook"}],"stop":[{"command":"ctxguard"}]}}`,
			want:   `{"version":1,"hooks":{"beforeShellExecution":[{"command":"other"}],"stop":[{"command":"ctxguard"}]}}`,
		},
		{
			name:   "an exec-form path with spaces",
			layout: nested,
			in:     `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"C:\\Users\\A B\\go\\bin\\ctxguard.exe","args":["hook"]}]}]}}`,
			want:   `{}`,
		},
		{
			name:   "bare event map: the event goes, the file stays an object",
			layout: Layout{Nested: true, Bare: true, Events: []string{"PreToolUse"}},
			in:     `{"PreToolUse":[{"matcher":"Execute","hooks":[{"command":"/bin/ctxguard hook --harness droid"}]}],"Stop":[]}`,
			want:   `{"Stop":[]}`,
		},
		{
			name:   "powershell call operator",
			layout: flat,
			in:     `{"hooks":{"preToolUse":[{"powershell":"& 'C:\\Program Files\\ctxguard\\ctxguard.exe' hook"}]}}`,
			want:   `{}`,
		},
		{
			name:   "names that only look alike stay",
			layout: flat,
			in:     `{"hooks":{"preToolUse":[{"bash":"ctxguard-audit hook"},{"bash":"echo ctxguard"},{"bash":"/x/notctxguard"}]}}`,
			want:   `{"hooks":{"preToolUse":[{"bash":"ctxguard-audit hook"},{"bash":"echo ctxguard"},{"bash":"/x/notctxguard"}]}}`,
		},
		{
			name:   "nothing to remove",
			layout: nested,
			in:     "{\n  \"a\": 1\n}",
			want:   "{\n  \"a\": 1\n}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Uninstall([]byte(tt.in), "f.json", tt.layout)
			if err != nil {
				t.Fatalf("Uninstall: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Uninstall:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unclosed comment", "{\n  \"a\": 1 /* mine\n}", "f.json:2:10: invalid JSON: parsing comment: unexpected EOF"},
		{"bare word", "{\n  \"a\": yes\n}", "f.json:2:8: invalid JSON: invalid literal: yes"},
		{"truncated", "{\"a\": [1,", "f.json:1:10: invalid JSON: parsing value: unexpected EOF"},
		{"array", "[1]", "f.json:1:1: the file is not a JSON object"},
		{"hooks not an object", "{\n  \"hooks\": []\n}", `f.json:2:3: "hooks" is not an object`},
		{"event not an array", "{\"hooks\": {\"PreToolUse\": {}}}", "f.json:1:12: hooks.PreToolUse is not an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Install([]byte(tt.in), "f.json", nested, nil, []Entry{group})
			var se *codec.Error
			if !errors.As(err, &se) {
				t.Fatalf("Install error = %v (%T), want a *codec.Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Install error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	tests := []struct {
		handler, goos string
		argv          []string
		line          string
	}{
		{`{"command":"/b/ctxguard","args":["hook","--harness","claude"]}`, "linux", []string{"/b/ctxguard", "hook", "--harness", "claude"}, ""},
		{`{"command":"ctxguard hook"}`, "linux", nil, "ctxguard hook"},
		{`{"bash":"ctxguard hook","powershell":"ctxguard.exe hook"}`, "linux", nil, "ctxguard hook"},
		{`{"bash":"ctxguard hook","powershell":"ctxguard.exe hook"}`, "windows", nil, "ctxguard.exe hook"},
		{`{"exec":"/b/ctxguard","args":["hook"]}`, "linux", []string{"/b/ctxguard", "hook"}, ""},
		{`{"command":"'/b/ctxguard' hook","commandWindows":"& 'C:\\b c\\ctxguard.exe' hook"}`, "windows", nil, `& 'C:\b c\ctxguard.exe' hook`},
		{`{"command":"'/b/ctxguard' hook","commandWindows":"& 'C:\\b c\\ctxguard.exe' hook"}`, "linux", nil, `'/b/ctxguard' hook`},
	}
	for _, tt := range tests {
		n, err := parseTree([]byte(tt.handler), "h")
		if err != nil {
			t.Fatal(err)
		}
		argv, line := Hook{Handler: n}.Command(tt.goos)
		if strings.Join(argv, " ") != strings.Join(tt.argv, " ") || line != tt.line {
			t.Errorf("Command(%s, %s) = %q, %q; want %q, %q", tt.handler, tt.goos, argv, line, tt.argv, tt.line)
		}
	}
}

// TestOwnedPathWithSpace: go install puts the binary in %USERPROFILE%\go\bin, and a user name
// with a space is the everyday Windows case. An exec form's command is a path, not a line.
func TestOwnedPathWithSpace(t *testing.T) {
	tests := []struct {
		handler string
		want    bool
	}{
		{`{"type":"command","command":"C:\\Users\\First Last\\go\\bin\\ctxguard.exe","args":["hook"]}`, true},
		{`{"type":"command","command":"/home/first last/go/bin/ctxguard","args":["hook"]}`, true},
		{`{"type":"command","exec":"C:\\Users\\First Last\\go\\bin\\ctxguard.exe","args":["hook"]}`, true},
		{`{"type":"command","powershell":"& 'C:\\Users\\First Last\\go\\bin\\ctxguard.exe' hook --harness copilot"}`, true},
		{`{"type":"command","command":"\"C:\\Program Files\\ctxguard\\ctxguard.exe\" hook --harness cursor"}`, true},
		{`{"type":"command","command":"x","commandWindows":"& 'C:\\Users\\First Last\\go\\bin\\ctxguard.exe' hook --harness codex"}`, true},
		{`{"type":"command","powershell":"& 'C:\\Users\\O''Brien\\go\\bin\\ctxguard.exe' hook --harness copilot"}`, true},
		{`{"type":"command","bash":"/opt/ctxguard hook","powershell":"x"}`, true},
		{`{"type":"command","command":"C:\\bin\\CtxGuard.Exe","args":["hook"]}`, true},
		// An exec form that runs another program with ctxguard as an argument is not ctxguard's.
		{`{"type":"command","command":"C:\\tools\\lint.exe","args":["ctxguard"]}`, false},
		{`{"type":"command","command":"C:\\Users\\First Last\\bin\\lint.exe","args":["hook"]}`, false},
	}
	for _, tt := range tests {
		n, err := parseTree([]byte(tt.handler), "h")
		if err != nil {
			t.Fatal(err)
		}
		if got := owned(n, ""); got != tt.want {
			t.Errorf("owned(%s) = %v, want %v", tt.handler, got, tt.want)
		}
	}
	// The bookkeeping that depends on it: a second install changes nothing, uninstall takes
	// the entry out again.
	entry := Entry{"PreToolUse", []byte(`{"matcher":"Bash|PowerShell","hooks":[{"type":"command","command":"C:\\Users\\First Last\\go\\bin\\ctxguard.exe","args":["hook"],"timeout":30}]}`)}
	once, err := Install([]byte("{}\n"), "settings.json", nested, nil, []Entry{entry})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Install(once, "settings.json", nested, nil, []Entry{entry})
	if err != nil || string(twice) != string(once) {
		t.Errorf("second install = %s, %v; want the file unchanged:\n%s", twice, err, once)
	}
	if found, err := Find(once, "settings.json", nested); err != nil || len(found) != 1 {
		t.Errorf("Find = %d hooks, %v; want 1", len(found), err)
	}
	if out, err := Uninstall(once, "settings.json", nested); err != nil || string(out) != "{}\n" {
		t.Errorf("Uninstall = %q, %v; want {}", out, err)
	}
}

func TestSame(t *testing.T) {
	if !Same([]byte(`{"a":1,"b":[true]}`), []byte("{\n  \"b\": [true],\n  \"a\": 1\n}")) {
		t.Error("Same ignores formatting and order")
	}
	if Same([]byte(`{"a":1}`), []byte(`{"a":1.0}`)) {
		t.Error("Same compares numbers as written")
	}
	if Same([]byte(`{`), []byte(`{`)) {
		t.Error("invalid JSON is never the same")
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"{}", `{"hooks":{}}`, "{\n\t\"a\": [\n\t\t1\n\t]\n}", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"x"}]}]}}`,
		"{\n  // c\n  \"a\": 1, /* d */\n}", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"ctxguard"}]} // e` + "\n]}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Install(data, "f.json", nested, []byte("{}"), []Entry{group})
		if err != nil {
			return
		}
		if _, err := standard(got); err != nil {
			t.Fatalf("Install(%q) gave %q, which does not parse: %v", data, got, err)
		}
		hooks, err := Find(got, "f.json", nested)
		if err != nil || len(hooks) != 1 {
			t.Fatalf("Find after Install(%q) = %v, %v", data, hooks, err)
		}
		back, err := Uninstall(got, "f.json", nested)
		if err != nil {
			t.Fatal(err)
		}
		if rest, _ := Find(back, "f.json", nested); len(rest) != 0 {
			t.Fatalf("Uninstall left %d hooks in %q", len(rest), back)
		}
	})
}

// TestJSONC checks settings files with comments and trailing commas (JSON with commas and
// comments, which editors allow in settings files): install keeps every comment where it is and a
// trailing comma trailing, installing twice changes nothing, and uninstall gives back the file
// byte for byte.
func TestJSONC(t *testing.T) {
	entry := Entry{"PreToolUse", []byte(`{"hooks":[{"command":"ctxguard hook"}]}`)}
	tests := []struct {
		name, in, want string
	}{
		{
			name: "comment after the last member",
			in:   "{\n  \"a\": 1 // the answer\n}\n",
			want: "{\n  \"a\": 1, // the answer\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": [\n          {\n            \"command\": \"ctxguard hook\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
		},
		{
			name: "trailing commas stay trailing",
			in:   "{\n  // mine\n  \"model\": \"opus\", // keep\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Edit\", \"hooks\": [{\"command\": \"lint\"}]}, // lint\n    ],\n  },\n}\n",
			want: "{\n  // mine\n  \"model\": \"opus\", // keep\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Edit\", \"hooks\": [{\"command\": \"lint\"}]}, // lint\n      {\n        \"hooks\": [\n          {\n            \"command\": \"ctxguard hook\"\n          }\n        ]\n      },\n    ],\n  },\n}\n",
		},
		{
			name: "only a comment inside",
			in:   "{\n  // nothing yet\n}\n",
			want: "{\n  // nothing yet\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": [\n          {\n            \"command\": \"ctxguard hook\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
		},
		{
			name: "block comments on one line",
			in:   `{"a": 1 /* one */, "b": [] /* two */}`,
			want: `{"a": 1 /* one */, "b": [], /* two */ "hooks": {"PreToolUse": [{"hooks": [{"command": "ctxguard hook"}]}]}}`,
		},
		{
			name: "a // comment after an item on one line",
			in:   "{\"hooks\": {\"PreToolUse\": [{\"hooks\": []} // empty\n]}}",
			want: "{\"hooks\": {\"PreToolUse\": [{\"hooks\": []}, // empty\n{\n  \"hooks\": [\n    {\n      \"command\": \"ctxguard hook\"\n    }\n  ]\n}\n]}}",
		},
		{
			name: "comment before the comma, comma first",
			in:   "{\n  \"a\": 1 // one\n  , \"b\": 2\n}",
			want: "{\n  \"a\": 1 // one\n  , \"b\": 2, \"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"command\": \"ctxguard hook\"}]}]}\n}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Install([]byte(tt.in), "f.json", nested, []byte("{}\n"), []Entry{entry})
			if err != nil {
				t.Fatalf("Install: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Install:\n got %q\nwant %q\n%s", got, tt.want, got)
			}
			if _, err := standard(got); err != nil {
				t.Errorf("Install gave a file that does not parse: %v\n%s", err, got)
			}
			again, err := Install(got, "f.json", nested, []byte("{}\n"), []Entry{entry})
			if err != nil || string(again) != string(got) {
				t.Errorf("installing twice changed the file (%v):\n%s", err, again)
			}
			back, err := Uninstall(got, "f.json", nested)
			if err != nil {
				t.Fatalf("Uninstall: %v", err)
			}
			if string(back) != tt.in {
				t.Errorf("uninstall gave %q, want the original %q", back, tt.in)
			}
		})
	}
	// A handler written with a comment inside is still the same handler.
	mine := "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"command\": \"ctxguard hook\" /* mine */}]}]}}"
	if got, err := Install([]byte(mine), "f.json", nested, nil, []Entry{entry}); err != nil || string(got) != mine {
		t.Errorf("Install over a commented handler = %q, %v; want it unchanged", got, err)
	}
}
