package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// TestProbes checks that every harness's self-test payload, for each event its entries use, is
// detected as that harness and decodes to the command in the directory.
func TestProbes(t *testing.T) {
	for _, s := range Setups() {
		if _, ok := Lookup(s.Harness); !ok {
			t.Errorf("setup %s has no adapter", s.Harness)
		}
		for _, e := range probeEntries(s) {
			if !json.Valid(e.Value) {
				t.Errorf("%s: entry for %s is not valid JSON: %s", s.Harness, e.Event, e.Value)
			}
			payload := s.Probe(e.Event, "echo ctxguard-self-test", "/w")
			h, detected, err := Detect(payload)
			if err != nil {
				t.Errorf("%s/%s: Detect: %v", s.Harness, e.Event, err)
				continue
			}
			if h.Name() != s.Harness {
				t.Errorf("%s/%s: probe detected as %s", s.Harness, e.Event, h.Name())
			}
			req, err := Decode(h, payload)
			if err != nil {
				t.Errorf("%s/%s: Decode: %v", s.Harness, e.Event, err)
				continue
			}
			if req.Command != "echo ctxguard-self-test" || req.Cwd != "/w" || req.Shell == "" {
				t.Errorf("%s/%s: probe decodes to %+v", s.Harness, e.Event, req)
			}
			if !reflect.DeepEqual(detected, req) {
				t.Errorf("%s/%s: Detect's request %+v differs from Decode's %+v", s.Harness, e.Event, detected, req)
			}
		}
	}
}

func TestEntries(t *testing.T) {
	tests := []struct {
		harness string
		o       Options
		self    string
		want    []string
	}{
		{"claude", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`PreToolUse {"matcher":"Bash|PowerShell|Monitor|Write|Edit|MultiEdit|NotebookEdit","hooks":[{"type":"command","command":"/opt/bin/ctxguard","args":["hook"],"timeout":30}]}`}},
		{"claude", Options{GOOS: "windows"}, `C:\Users\A B\go\bin\ctxguard.exe`,
			[]string{`PreToolUse {"matcher":"Bash|PowerShell|Monitor|Write|Edit|MultiEdit|NotebookEdit","hooks":[{"type":"command","command":"C:\\Users\\A B\\go\\bin\\ctxguard.exe","args":["hook"],"timeout":30}]}`}},
		{"copilot", Options{GOOS: "linux"}, "/home/a b/go/bin/ctxguard",
			[]string{`preToolUse {"type":"command","bash":"'/home/a b/go/bin/ctxguard' hook --harness copilot","powershell":"& '/home/a b/go/bin/ctxguard' hook --harness copilot","timeoutSec":30,"matcher":"bash|powershell|create|edit"}`}},
		{"gemini", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`BeforeTool {"matcher":"run_shell_command|write_file|replace","hooks":[{"type":"command","name":"ctxguard","command":"/opt/bin/ctxguard hook --harness gemini","timeout":30000}]}`}},
		{"cursor", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`beforeShellExecution {"command":"/opt/bin/ctxguard hook --harness cursor","timeout":30,"failClosed":true}`}},
		{"cursor", Options{GOOS: "windows", Rewrite: true}, `C:\Program Files\ctxguard\ctxguard.exe`,
			[]string{
				`beforeShellExecution {"command":"& 'C:\\Program Files\\ctxguard\\ctxguard.exe' hook --harness cursor","timeout":30,"failClosed":true}`,
				`preToolUse {"command":"& 'C:\\Program Files\\ctxguard\\ctxguard.exe' hook --harness cursor","matcher":"Shell","timeout":30,"failClosed":true}`,
			}},
		{"gemini", Options{GOOS: "windows"}, `C:\Users\First Last\go\bin\ctxguard.exe`,
			[]string{`BeforeTool {"matcher":"run_shell_command|write_file|replace","hooks":[{"type":"command","name":"ctxguard","command":"& 'C:\\Users\\First Last\\go\\bin\\ctxguard.exe' hook --harness gemini","timeout":30000}]}`}},
		{"codex", Options{GOOS: "windows"}, `C:\Users\me\go\bin\ctxguard.exe`,
			[]string{`PreToolUse {"matcher":"^(Bash|apply_patch)$","hooks":[{"type":"command","command":"'C:\\Users\\me\\go\\bin\\ctxguard.exe' hook --harness codex","commandWindows":"C:\\Users\\me\\go\\bin\\ctxguard.exe hook --harness codex","timeout":30}]}`}},
		{"codex", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`PreToolUse {"matcher":"^(Bash|apply_patch)$","hooks":[{"type":"command","command":"/opt/bin/ctxguard hook --harness codex","timeout":30}]}`}},
		{"windsurf", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`pre_run_command {"command":"/opt/bin/ctxguard hook --harness windsurf","show_output":true}`}},
		{"qwen", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`PreToolUse {"matcher":"^run_shell_command$","hooks":[{"type":"command","name":"ctxguard","command":"/opt/bin/ctxguard hook --harness qwen","timeout":30000}]}`}},
		{"droid", Options{GOOS: "linux"}, "/opt/bin/ctxguard",
			[]string{`PreToolUse {"matcher":"Execute","hooks":[{"type":"command","command":"/opt/bin/ctxguard hook --harness droid","timeout":30}]}`}},
		// Crush gives the line to its own POSIX shell on every system; Qwen Code on Windows to the
		// shell the entry names; goose on Windows to cmd, unquoted.
		{"crush", Options{GOOS: "windows"}, `C:\Program Files\ctxguard\ctxguard.exe`,
			[]string{`PreToolUse {"name":"ctxguard","matcher":"^bash$","command":"'C:\\Program Files\\ctxguard\\ctxguard.exe' hook --harness crush","timeout":30}`}},
		{"qwen", Options{GOOS: "windows"}, `C:\Users\First Last\go\bin\ctxguard.exe`,
			[]string{`PreToolUse {"matcher":"^run_shell_command$","hooks":[{"type":"command","name":"ctxguard","command":"& 'C:\\Users\\First Last\\go\\bin\\ctxguard.exe' hook --harness qwen","shell":"powershell","timeout":30000}]}`}},
		{"goose", Options{GOOS: "windows"}, `C:\ctxguard.exe`,
			[]string{`PreToolUse {"matcher":"^developer__shell$","hooks":[{"type":"command","command":"C:\\ctxguard.exe hook --harness goose","timeout":30,"on_failure":"block"}]}`}},
	}
	for _, tt := range tests {
		s, _ := SetupFor(tt.harness)
		var got []string
		for _, e := range s.Entries(tt.self, tt.o) {
			got = append(got, e.Event+" "+string(e.Value))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s entries:\n got %s\nwant %s", tt.harness, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func TestUserFiles(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	none := env(nil)
	tests := []struct {
		harness string
		env     func(string) (string, bool)
		want    string
	}{
		{"claude", none, "/h/.claude/settings.json"},
		{"claude", env(map[string]string{"CLAUDE_CONFIG_DIR": "/c"}), "/c/settings.json"},
		{"copilot", none, "/h/.copilot/hooks/ctxguard.json"},
		{"copilot", env(map[string]string{"COPILOT_HOME": "/cp"}), "/cp/hooks/ctxguard.json"},
		{"gemini", none, "/h/.gemini/settings.json"},
		{"cursor", none, "/h/.cursor/hooks.json"},
		{"codex", none, "/h/.codex/hooks.json"},
		{"codex", env(map[string]string{"CODEX_HOME": "/cx"}), "/cx/hooks.json"},
		{"windsurf", none, "/h/.codeium/windsurf/hooks.json"},
		{"cline", none, "/h/Documents/Cline/Hooks/PreToolUse"},
		{"opencode", none, "/h/.config/opencode/plugins/ctxguard.js"},
		{"opencode", env(map[string]string{"XDG_CONFIG_HOME": "/x"}), "/x/opencode/plugins/ctxguard.js"},
		{"kilo", none, "/h/.config/kilo/plugins/ctxguard.js"},
		{"pi", none, "/h/.pi/agent/extensions/ctxguard.js"},
		{"pi", env(map[string]string{"PI_CODING_AGENT_DIR": "/p"}), "/p/extensions/ctxguard.js"},
		{"qwen", none, "/h/.qwen/settings.json"},
		{"droid", none, "/h/.factory/hooks.json"},
		{"crush", none, "/h/.config/crush/crush.json"},
		{"crush", env(map[string]string{"CRUSH_GLOBAL_CONFIG": "/cr"}), "/cr/crush.json"},
		{"goose", none, "/h/.agents/plugins/ctxguard/hooks/hooks.json"},
	}
	for _, tt := range tests {
		s, _ := SetupFor(tt.harness)
		if got := s.UserFile("/h", tt.env); got != tt.want {
			t.Errorf("%s UserFile = %s, want %s", tt.harness, got, tt.want)
		}
	}
}

// TestRefusal checks that doctor reads each harness's refusal as that harness would: the reason
// of a deny its adapter writes for the self-test's probe, for every event its entries use.
func TestRefusal(t *testing.T) {
	for _, s := range Setups() {
		h, _ := Lookup(s.Harness)
		for _, e := range probeEntries(s) {
			req, err := Decode(h, s.Probe(e.Event, "echo hi", "/w"))
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			err = h.Encode(&out, req, Answer{Verdict: rules.VerdictDeny, Reason: "[ctxguard/x] no"})
			if s.Refusal == nil {
				// The harness reads only the exit code: the hook exits 2 with the reason.
				if b, ok := err.(Blocked); !ok || b.Reason != "[ctxguard/x] no" || out.Len() != 0 {
					t.Errorf("%s: a deny is %q, %v; want Blocked with the reason and no output", s.Harness, out.String(), err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.Refusal([]byte(out.String())); err != nil || got != "[ctxguard/x] no" {
				t.Errorf("%s/%s: Refusal(%s) = %q, %v", s.Harness, e.Event, out.String(), got, err)
			}
		}
		if s.Refusal == nil {
			continue
		}
		if _, err := s.Refusal([]byte("not json")); err == nil {
			t.Errorf("%s: Refusal accepted text that is not an answer", s.Harness)
		}
	}
}

// TestFiles checks the per-system files: every harness lists its install targets, and the
// machine-wide ones follow the system.
func TestFiles(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	for _, goos := range []string{"linux", "darwin", "windows"} {
		var paths []string
		for _, f := range Files("/h", none, goos) {
			paths = append(paths, f.Path)
		}
		all := strings.Join(paths, "\n")
		for _, s := range Setups() {
			if !strings.Contains(all, s.UserFile("/h", none)) || !strings.Contains(all, s.ProjectFile) {
				t.Errorf("%s: %s's install targets are not listed:\n%s", goos, s.Harness, all)
			}
		}
		want := map[string]string{"linux": "/etc/gemini-cli/settings.json", "darwin": "/Library/Application Support/GeminiCli/settings.json", "windows": "C:/ProgramData/gemini-cli/settings.json"}[goos]
		if !strings.Contains(all, want) {
			t.Errorf("%s: %s is not listed:\n%s", goos, want, all)
		}
	}
	if got := Files("", none, "linux"); strings.Contains(fmt.Sprint(got), "/h/") {
		t.Errorf("without a home, user files are listed: %v", got)
	}
}

func TestVersionLess(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"2.1.138", "2.1.139", true},
		{"2.1.139", "2.1.139", false},
		{"2.1.328", "2.1.139", false},
		{"2.1.99", "2.1.139", true},
		{"1.0.9", "1.0.24", true},
		{"1.0", "1.0.1", true},
		{"10.0.0", "9.9.9", false},
	} {
		if got := versionLess(tt.a, tt.b); got != tt.want {
			t.Errorf("versionLess(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestClientCheck checks what doctor says about an installed entry per client version: the exec
// form works as written from Claude Code 2.1.139 on, and before it only where a shell reads the
// path as one word; Copilot CLI applies a rewrite from 1.0.24 on.
func TestClientCheck(t *testing.T) {
	exec := []string{"/usr/local/bin/ctxguard", "hook"}
	for _, tt := range []struct {
		setup   *Setup
		version string
		argv    []string
		line    string
		goos    string
		ok      bool
		note    string // a substring; "" for none at all
	}{
		{&claudeSetup, "2.1.328", exec, "", "linux", true, ""},
		{&claudeSetup, "2.1.139", exec, "", "linux", true, ""},
		{&claudeSetup, "2.1.138", exec, "", "linux", true, "answers as the hook"},
		{&claudeSetup, "2.1.138", []string{"/home/a b/ctxguard", "hook"}, "", "linux", false, "splits /home/a b/ctxguard"},
		{&claudeSetup, "2.1.138", []string{`C:\Users\a\go\bin\ctxguard.exe`, "hook"}, "", "windows", false, "backslashes"},
		{&claudeSetup, "2.1.100", nil, "ctxguard hook", "linux", true, ""},
		{&copilotSetup, "1.0.23", nil, "ctxguard hook --harness copilot", "linux", false, "ignores modifiedArgs"},
		{&copilotSetup, "1.0.102", nil, "ctxguard hook --harness copilot", "linux", true, ""},
	} {
		note, ok := tt.setup.Client.Check(tt.version, tt.argv, tt.line, tt.goos)
		if ok != tt.ok || (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) {
			t.Errorf("%s %s %v %q: got (%q, %v), want ok=%v and a note with %q", tt.setup.Harness, tt.version, tt.argv, tt.line, note, ok, tt.ok, tt.note)
		}
	}
}

// TestUncovered checks the matchers doctor reads, by each harness's rules.
func TestUncovered(t *testing.T) {
	for _, tt := range []struct {
		setup   *Setup
		matcher string
		want    []string
	}{
		{&claudeSetup, claudeMatcher, nil},
		{&claudeSetup, "", nil},
		{&claudeSetup, "*", nil},
		{&claudeSetup, ".*", nil},
		{&claudeSetup, "Bash|PowerShell", []string{"Monitor", "Write", "Edit", "MultiEdit", "NotebookEdit"}},
		{&claudeSetup, "Bash, PowerShell, Monitor, Write, Edit, MultiEdit, NotebookEdit", nil},
		{&claudeSetup, "Bash|Power", []string{"PowerShell", "Monitor", "Write", "Edit", "MultiEdit", "NotebookEdit"}},
		{&claudeSetup, "^(Bash|Monitor|PowerShell)$|Edit|Write", nil},
		{&copilotSetup, copilotMatcher, nil},
		{&copilotSetup, "bash|powershell", []string{"create", "edit"}},
		{&copilotSetup, "bash.*|powershell|create|edit", nil},
		{&copilotSetup, "", nil},
		{&geminiSetup, "anything", nil},
	} {
		got, effects := tt.setup.Uncovered(tt.matcher)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: uncovered %v, want %v", tt.setup.Harness, tt.matcher, got, tt.want)
		}
		if len(got) > 0 && len(effects) == 0 {
			t.Errorf("%s %q: no effect given for %v", tt.setup.Harness, tt.matcher, got)
		}
	}
	if _, effects := claudeSetup.Uncovered("Bash"); !strings.Contains(strings.Join(effects, ";"), "original command") {
		t.Errorf("a matcher without Monitor does not say that Monitor runs its original command: %v", effects)
	}
}

// probeEntries are the entries a harness's self-test probes: one per event of its settings
// entries, or a single one (event "") for a harness that runs a Script file.
func probeEntries(s *Setup) []Entry {
	if s.Script != nil {
		return []Entry{{Event: "", Value: []byte("{}")}}
	}
	return s.Entries("/opt/bin/ctxguard", Options{GOOS: "linux", Rewrite: true})
}

// TestWindowsLines reads every hook line ctxguard installs on Windows the way the shell its
// harness hands it to does there (Setup.WindowsShell) and checks that it runs the binary with
// its arguments, for the paths go install gives a Windows user, spaces and quotes included; a
// harness that cannot run such a path refuses it instead.
func TestWindowsLines(t *testing.T) {
	for _, self := range []string{
		`C:\Users\me\go\bin\ctxguard.exe`,
		`C:\Users\First Last\go\bin\ctxguard.exe`,
		`C:\Users\O'Brien\go\bin\ctxguard.exe`,
		`D:\tools (x86)\ctxguard.exe`,
	} {
		o := Options{GOOS: "windows", Rewrite: true}
		for _, s := range Setups() {
			if s.Refuse != nil {
				if err := s.Refuse(self, o); err != nil {
					if self == `C:\Users\me\go\bin\ctxguard.exe` || !strings.Contains(err.Error(), self) {
						t.Errorf("%s refuses %s: %v", s.Harness, self, err)
					}
					continue
				}
			}
			var lines []string
			if s.Script != nil {
				script, err := s.Script(self, o)
				if err != nil {
					t.Errorf("%s: %v", s.Harness, err)
					continue
				}
				if s.Plugin == nil && s.Executable {
					// The hook file is a script of the harness's shell: its command is the line
					// after the comment.
					lines = append(lines, strings.Split(string(script), "\n")[1])
				}
			}
			if s.Entries != nil {
				for _, e := range s.Entries(self, o) {
					lines = append(lines, windowsLines(t, e.Value)...)
				}
			}
			for _, line := range lines {
				argv, err := windowsWords(s.WindowsShell, line)
				if err != nil {
					t.Errorf("%s: %q: %v", s.Harness, line, err)
					continue
				}
				if want := []string{self, "hook", "--harness", s.Harness}; !slices.Equal(argv, want) {
					t.Errorf("%s: %q runs %q, want %q", s.Harness, line, argv, want)
				}
			}
		}
	}
	for _, s := range Setups() {
		none := func(string) (string, error) { return "", errors.New("none") }
		got, want := s.LineShell("windows", none), map[Shell]string{PowerShell: "powershell", Cmd: "cmd", Sh: "sh", Embedded: ""}[s.WindowsShell]
		if first := append(got, "")[0]; first != want {
			t.Errorf("%s: LineShell on Windows without pwsh = %q, want %q first", s.Harness, got, want)
		}
		if got := s.LineShell("linux", none); !slices.Equal(got, []string{"sh", "-c"}) {
			t.Errorf("%s: LineShell on Linux = %q, want sh -c", s.Harness, got)
		}
	}
	if got := claudeSetup.LineShell("windows", func(string) (string, error) { return `C:\pwsh.exe`, nil }); got[0] != "pwsh" {
		t.Errorf("LineShell with pwsh = %q, want pwsh", got)
	}
	// Cline finds a Windows hook by its extension.
	if got, want := clineSetup.UserPath("C:/Users/me", func(string) (string, bool) { return "", false }, "windows"), `C:/Users/me/Documents/Cline/Hooks/PreToolUse.ps1`; got != want {
		t.Errorf("Cline's user file on Windows = %s, want %s", got, want)
	}
	if got, want := clineSetup.ProjectPath("linux"), ".clinerules/hooks/PreToolUse"; got != want {
		t.Errorf("Cline's project file on Linux = %s, want %s", got, want)
	}
}

// windowsWords reads a hook line as sh reads it on Windows: the program and its arguments, or an
// error when the line is more than one command with literal words. cmd, which reads no quotes in
// a line handed over the way goose hands it, splits at spaces.
func windowsWords(sh Shell, line string) ([]string, error) {
	if sh == Cmd {
		return strings.Fields(line), nil
	}
	parse := shell.Parse
	if sh == PowerShell {
		parse = shell.ParsePowerShell
	}
	calls, err := parse(line)
	if err != nil || len(calls) != 1 {
		return nil, fmt.Errorf("%d calls, %v", len(calls), err)
	}
	c := calls[0]
	if !c.NameWord.Literal {
		return nil, fmt.Errorf("the program %q is not literal", c.NameWord.Value)
	}
	argv := []string{c.NameWord.Value}
	for _, a := range c.Args {
		argv = append(argv, a.Value)
	}
	return argv, nil
}

// windowsLines are the lines a Windows harness runs from an entry: Codex's commandWindows,
// Copilot CLI's powershell, or command (not the exec form's, which no shell reads).
func windowsLines(t *testing.T, entry []byte) []string {
	var v struct {
		Hooks      []map[string]any `json:"hooks"`
		Command    string           `json:"command"`
		PowerShell string           `json:"powershell"`
	}
	if err := json.Unmarshal(entry, &v); err != nil {
		t.Fatal(err)
	}
	if v.PowerShell != "" {
		return []string{v.PowerShell}
	}
	if v.Command != "" {
		return []string{v.Command}
	}
	var out []string
	for _, h := range v.Hooks {
		if _, exec := h["args"]; exec {
			continue
		}
		if l, ok := h["commandWindows"].(string); ok {
			out = append(out, l)
		} else if l, ok := h["command"].(string); ok {
			out = append(out, l)
		}
	}
	return out
}
