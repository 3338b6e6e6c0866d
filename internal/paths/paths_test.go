package paths

import (
	"path/filepath"
	"slices"
	"testing"
)

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestPaths states where each file lives for users of every system, as a table that runs on
// any of them: the paths of a Windows user are spelt as Windows spells them, on Linux too.
func TestPaths(t *testing.T) {
	tests := []struct {
		name                            string
		env                             Env
		managed, user, providers, state string
	}{
		{
			"linux", Env{OS: "linux", Home: "/home/u"},
			"/etc/ctxguard/policy.yaml", "/home/u/.config/ctxguard/policy.yaml", "/home/u/.config/ctxguard/providers", "/home/u/.local/state/ctxguard",
		},
		{
			"darwin, XDG set", Env{OS: "darwin", Home: "/Users/u", Lookup: lookup(map[string]string{"XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/state"})},
			"/etc/ctxguard/policy.yaml", "/cfg/ctxguard/policy.yaml", "/cfg/ctxguard/providers", "/state/ctxguard",
		},
		{
			"a relative XDG_CONFIG_HOME or XDG_STATE_HOME is ignored", Env{OS: "linux", Home: "/home/u", Lookup: lookup(map[string]string{"XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "state"})},
			"/etc/ctxguard/policy.yaml", "/home/u/.config/ctxguard/policy.yaml", "/home/u/.config/ctxguard/providers", "/home/u/.local/state/ctxguard",
		},
		{
			"an empty XDG_CONFIG_HOME is unset", Env{OS: "linux", Home: "/home/u", Lookup: lookup(map[string]string{"XDG_CONFIG_HOME": ""})},
			"/etc/ctxguard/policy.yaml", "/home/u/.config/ctxguard/policy.yaml", "/home/u/.config/ctxguard/providers", "/home/u/.local/state/ctxguard",
		},
		{
			"relocated managed policy", Env{OS: "linux", Home: "/home/u", Lookup: lookup(map[string]string{"CTXGUARD_MANAGED_POLICY": "/tmp/m.yaml"})},
			"/tmp/m.yaml", "/home/u/.config/ctxguard/policy.yaml", "/home/u/.config/ctxguard/providers", "/home/u/.local/state/ctxguard",
		},
		{
			"empty CTXGUARD_MANAGED_POLICY", Env{OS: "linux", Home: "/home/u", Lookup: lookup(map[string]string{"CTXGUARD_MANAGED_POLICY": ""})},
			"/etc/ctxguard/policy.yaml", "/home/u/.config/ctxguard/policy.yaml", "/home/u/.config/ctxguard/providers", "/home/u/.local/state/ctxguard",
		},
		{
			"no home, no XDG: no user files", Env{OS: "linux"},
			"/etc/ctxguard/policy.yaml", "", "", "",
		},
		{
			"no home, XDG set", Env{OS: "linux", Lookup: lookup(map[string]string{"XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/state"})},
			"/etc/ctxguard/policy.yaml", "/cfg/ctxguard/policy.yaml", "/cfg/ctxguard/providers", "/state/ctxguard",
		},
		{
			"LOCALAPPDATA elsewhere is not XDG", Env{OS: "linux", Home: "/home/u", Lookup: lookup(map[string]string{"LOCALAPPDATA": "/appdata"})},
			"/etc/ctxguard/policy.yaml", "/home/u/.config/ctxguard/policy.yaml", "/home/u/.config/ctxguard/providers", "/home/u/.local/state/ctxguard",
		},
		{
			"windows", Env{OS: "windows", Home: `C:\Users\u`},
			`C:\ProgramData\ctxguard\policy.yaml`, `C:\Users\u\.config\ctxguard\policy.yaml`, `C:\Users\u\.config\ctxguard\providers`, `C:\Users\u\.local\state\ctxguard`,
		},
		{
			"windows, ProgramData and LOCALAPPDATA set", Env{OS: "windows", Home: `C:\Users\u`, Lookup: lookup(map[string]string{"ProgramData": `D:\pd`, "LOCALAPPDATA": `C:\Users\u\AppData\Local`})},
			`D:\pd\ctxguard\policy.yaml`, `C:\Users\u\.config\ctxguard\policy.yaml`, `C:\Users\u\.config\ctxguard\providers`, `C:\Users\u\AppData\Local\ctxguard`,
		},
		{
			"windows, XDG set", Env{OS: "windows", Home: `C:\Users\u`, Lookup: lookup(map[string]string{"XDG_CONFIG_HOME": `C:\cfg`, "XDG_STATE_HOME": `C:/state`, "LOCALAPPDATA": `C:\Users\u\AppData\Local`})},
			`C:\ProgramData\ctxguard\policy.yaml`, `C:\cfg\ctxguard\policy.yaml`, `C:\cfg\ctxguard\providers`, `C:\state\ctxguard`,
		},
		{
			"windows, a rooted XDG_CONFIG_HOME without a drive is relative", Env{OS: "windows", Home: `C:\Users\u`, Lookup: lookup(map[string]string{"XDG_CONFIG_HOME": `\cfg`})},
			`C:\ProgramData\ctxguard\policy.yaml`, `C:\Users\u\.config\ctxguard\policy.yaml`, `C:\Users\u\.config\ctxguard\providers`, `C:\Users\u\.local\state\ctxguard`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct{ what, got, want string }{
				{"ManagedPolicy", tt.env.ManagedPolicy(), tt.managed},
				{"UserPolicy", tt.env.UserPolicy(), tt.user},
				{"ProvidersDir", tt.env.ProvidersDir(), tt.providers},
				{"StateDir", tt.env.StateDir(), tt.state},
				{"AuditLog", tt.env.AuditLog(), inDir(tt.env, tt.state, "audit.jsonl")},
				{"Lifts", tt.env.Lifts(), inDir(tt.env, tt.state, "lifts.json")},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

// inDir is name in dir as e spells it, or "" without dir.
func inDir(e Env, dir, name string) string {
	if dir == "" {
		return ""
	}
	return e.Join(dir, name)
}

// TestStateFiles spells out the state files of a Windows user, which the table above only
// derives from the state folder.
func TestStateFiles(t *testing.T) {
	e := Env{OS: "windows", Home: `C:\Users\u`, Lookup: lookup(map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`})}
	if got, want := e.AuditLog(), `C:\Users\u\AppData\Local\ctxguard\audit.jsonl`; got != want {
		t.Errorf("AuditLog = %q, want %q", got, want)
	}
	if got, want := e.Lifts(), `C:\Users\u\AppData\Local\ctxguard\lifts.json`; got != want {
		t.Errorf("Lifts = %q, want %q", got, want)
	}
	if got, want := (Env{OS: "linux", Home: "/home/u"}).AuditFailure(), "/home/u/.local/state/ctxguard/audit-failure.json"; got != want {
		t.Errorf("AuditFailure = %q, want %q", got, want)
	}
}

func TestJoinAndIsAbs(t *testing.T) {
	linux, windows := Env{OS: "linux"}, Env{OS: "windows"}
	for _, tt := range []struct {
		env  Env
		elem []string
		want string
	}{
		{linux, []string{"/", "etc"}, "/etc"},
		{linux, []string{"/home/u/", ".config"}, "/home/u/.config"},
		{windows, []string{`C:\Users\u\`, ".config", "ctxguard"}, `C:\Users\u\.config\ctxguard`},
		{windows, []string{"C:/x", "y"}, `C:\x\y`},
		{windows, []string{`C:\work\infra`, `..\other`, "."}, `C:\work\other`},
		{windows, []string{`C:\`, "..", "x"}, `C:\x`},
		{windows, []string{`\\server\share\a`, "..", "b"}, `\\server\share\b`},
		{linux, []string{"/work/infra", "../other"}, "/work/other"},
	} {
		if got := tt.env.Join(tt.elem...); got != tt.want {
			t.Errorf("%s Join(%q) = %q, want %q", tt.env.OS, tt.elem, got, tt.want)
		}
	}
	for _, tt := range []struct {
		env  Env
		path string
		want bool
	}{
		{linux, "/x", true},
		{linux, "x", false},
		{windows, `C:\x`, true},
		{windows, "c:/x", true},
		{windows, `\\server\share`, true},
		{windows, `\x`, false},
		{windows, "C:x", false},
		{windows, "x", false},
		{windows, "/x", false},
		{windows, "1:/x", false},
		{linux, `C:\x`, false},
	} {
		if got := tt.env.IsAbs(tt.path); got != tt.want {
			t.Errorf("%s IsAbs(%q) = %v, want %v", tt.env.OS, tt.path, got, tt.want)
		}
	}
}

// TestFromBash: the paths a bash line on Windows writes (Git Bash, MSYS2, Cygwin) as Windows
// spells them; on other systems a path is what it says.
func TestFromBash(t *testing.T) {
	windows := Env{OS: "windows"}
	for _, tt := range []struct {
		env  Env
		path string
		want string
		ok   bool
	}{
		{windows, "/c/Users/me/infra", `C:\Users\me\infra`, true},
		{windows, "/D/work", `D:\work`, true},
		{windows, "/c", `C:\`, true},
		{windows, "/cygdrive/c/Users/me", `C:\Users\me`, true},
		{windows, "/c/Users/me/../you/./x", `C:\Users\you\x`, true},
		{windows, `C:\Users\me`, `C:\Users\me`, true},
		{windows, "C:/Users/me", "C:/Users/me", true},
		{windows, "infra/prod", "infra/prod", true},
		{windows, "/usr/bin", "", false},
		{windows, "/tmp/x", "", false},
		{windows, "/", "", false},
		{windows, "/cd/x", "", false},
		{Env{OS: "linux"}, "/c/Users/me", "/c/Users/me", true},
	} {
		got, ok := tt.env.FromBash(tt.path)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s FromBash(%q) = %q, %v; want %q, %v", tt.env.OS, tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAbs(t *testing.T) {
	windows, linux := Env{OS: "windows"}, Env{OS: "linux"}
	for _, tt := range []struct {
		env             Env
		dir, path, want string
	}{
		{windows, `C:\work`, `infra`, `C:\work\infra`},
		{windows, `C:\work`, `D:\x\..\y`, `D:\y`},
		{windows, `D:\work\repo`, `\etc\x`, `D:\etc\x`},
		{windows, `\\srv\share\repo`, `/x`, `\\srv\share\x`},
		{windows, `C:\work`, `..\..\..`, `C:\`},
		{linux, "/work", "infra/../x", "/work/x"},
		{linux, "/work", "/etc/x", "/etc/x"},
	} {
		if got := tt.env.Abs(tt.dir, tt.path); got != tt.want {
			t.Errorf("%s Abs(%q, %q) = %q, want %q", tt.env.OS, tt.dir, tt.path, got, tt.want)
		}
	}
}

func TestUp(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		want []string
	}{
		{"", nil},
		{filepath.FromSlash("/a/b/"), []string{filepath.FromSlash("/a/b"), filepath.FromSlash("/a"), filepath.FromSlash("/")}},
		{"a/b", []string{filepath.FromSlash("a/b"), "a", "."}},
	} {
		var got []string
		for d := range Up(tt.dir) {
			got = append(got, d)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Up(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
	// A caller that stops is not asked again.
	n := 0
	for range Up(filepath.FromSlash("/a/b/c")) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("Up went on after a break: %d", n)
	}
}
