package policy

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

func TestProtected(t *testing.T) {
	root := testenv.TempDir(t)
	home := filepath.Join(root, "home")
	repo := filepath.Join(home, "src", "repo")
	for _, f := range []string{
		filepath.Join(repo, ProjectFile),
		filepath.Join(repo, ".claude", "settings.json"),
		filepath.Join(repo, ".github", "hooks", "ctxguard.json"),
		filepath.Join(repo, "sub", "keep"),
		filepath.Join(root, "elsewhere", "keep"),
	} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(repo, "sub", "link.yaml")
	links := testenv.Symlinks()
	if links {
		testenv.Symlink(t, filepath.Join(repo, ProjectFile), link)
	}
	env := paths.Env{Home: home}
	state := filepath.Join(home, ".local", "state", "ctxguard")
	s := Protected(Options{Cwd: filepath.Join(repo, "sub"), Env: env}, audit.Trail{Path: "~/trail/audit.jsonl"})
	tests := []struct {
		path string
		tree bool
		into []string
		want string
	}{
		{filepath.Join(repo, ProjectFile), false, nil, "self.policy-write"},
		{filepath.Join(root, "elsewhere", ProjectFile), false, nil, "self.policy-write"}, // a new project policy
		{filepath.Join(home, ".config", "ctxguard", "policy.yaml"), false, nil, "self.policy-write"},
		{filepath.Join(home, ".config", "ctxguard", "providers", "x.yaml"), false, nil, "self.policy-write"},
		{env.ManagedPolicy(), false, nil, "self.policy-write"},
		{filepath.Join(home, ".claude", "settings.local.json"), false, nil, "self.hook-write"},
		{filepath.Join(root, "x", ".claude", "settings.json"), false, nil, "self.hook-write"},
		{filepath.Join(home, ".copilot", "hooks", "ctxguard.json"), false, nil, "self.hook-write"},
		{filepath.Join(root, "x", ".github", "hooks", "a.json"), false, nil, "self.hook-write"},
		{link, false, nil, "self.policy-write"},
		{filepath.Join(repo, ".claude"), true, nil, "self.hook-write"},
		{repo, true, nil, "self.policy-write"},
		{filepath.Join(repo, ".claude"), false, nil, ""}, // writing a directory's name is no write
		{filepath.Join(repo, "sub"), false, []string{ProjectFile}, "self.policy-write"},
		{filepath.Join(repo, "sub", "keep"), false, []string{ProjectFile}, ""}, // a file, not a directory
		{filepath.Join(repo, "README.md"), false, nil, ""},
		{filepath.Join(repo, ".github", "workflows", "ci.yml"), false, nil, ""},
		{filepath.Join(root, "elsewhere"), true, nil, ""},
		// The audit trail, the policy's own and the default one, with their older parts, and the
		// note of the last failure; the rest of the state folder.
		{filepath.Join(home, "trail", "audit.jsonl"), false, nil, "self.audit-write"},
		{filepath.Join(home, "trail", "audit.jsonl.1"), false, nil, "self.audit-write"},
		{filepath.Join(home, "trail"), true, nil, "self.audit-write"},
		{filepath.Join(home, "trail", "other.txt"), false, nil, ""},
		{filepath.Join(state, "audit.jsonl"), false, nil, "self.audit-write"},
		{filepath.Join(state, "audit.jsonl.1"), false, nil, "self.audit-write"},
		{filepath.Join(state, "audit-failure.json"), false, nil, "self.audit-write"},
		{filepath.Join(state, "sessions"), true, nil, "self.state-write"},
		{filepath.Join(state, "sessions", "x.az.json"), false, nil, "self.state-write"},
		{filepath.Join(state, "created-files"), false, nil, "self.state-write"},
		{filepath.Join(state, "cache", "yaml-0"), false, nil, "self.policy-write"},
		{filepath.Join(state, "lifts.json"), false, nil, "self.lift"},
		{state, true, nil, "self.lift"}, // the first entry inside it
		{filepath.Join(home, ".local", "state", "other", "x"), false, nil, ""},
	}
	for _, tt := range tests {
		if tt.path == link && !links {
			continue // a system that makes no symlinks (Wine 8)
		}
		pr, ok := s.Match(tt.path, tt.tree, tt.into)
		if got := pr.Rule; ok != (tt.want != "") || got != tt.want {
			t.Errorf("Match(%s, %v, %v) = %q %v, want %q", tt.path, tt.tree, tt.into, got, ok, tt.want)
		}
	}
	for text, want := range map[string]bool{"$HOME/.claude/settings.json": true, "$XDG_CONFIG_HOME/ctxguard/policy.yaml": true, "$OUT": false, `$env:USERPROFILE\.copilot\hooks\x.json`: true} {
		if s.Mentions(text) != want {
			t.Errorf("Mentions(%q) = %v", text, !want)
		}
	}
}

func TestParseWriters(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "builtin", "protect.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := ParseWriters(data, "builtin:protect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, w := range ws {
		// One entry per command and subcommand, but for patch: with a file, and from stdin.
		k := w.Command + " " + w.Sub
		if w.Unnamed && w.Sub == "" {
			k += " (unnamed)"
		}
		if seen[k] {
			t.Errorf("%s is listed twice", k)
		}
		seen[w.Command], seen[k] = true, true
	}
	for _, c := range []string{"tee", "cp", "mv", "rm", "truncate", "ln", "sed", "remove-item", "del", "set-content"} {
		if !seen[c] {
			t.Errorf("%s is not listed", c)
		}
	}
	_, err = ParseWriters([]byte("writers:\n  - {command: x, operands: all}\n  - {command: y, operands: some}\n"), "bad.yaml")
	if want := `bad.yaml:3:18: operands is "some", want all, first or last`; err == nil || err.Error() != want {
		t.Errorf("an unknown operands value: %v, want %s", err, want)
	}
}

// TestProtectedHookFiles goes over every harness's files (internal/harness is their one home):
// each file `ctxguard install` writes, in both scopes and with the environment variables that
// move them, and each other file or folder the harness runs hooks from, is protected.
func TestProtectedHookFiles(t *testing.T) {
	root := testenv.TempDir(t)
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "src", "repo")
	moved := map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(root, "claude"), "COPILOT_HOME": filepath.Join(root, "copilot"),
		"CODEX_HOME": filepath.Join(root, "codex"), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(root, "gemini", "system.json"),
	}
	for _, vars := range []map[string]string{nil, moved} {
		env := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
		s := Protected(Options{Cwd: filepath.Join(repo, "sub"), Env: paths.Env{Home: home, Lookup: env}}, audit.Trail{})
		protected := func(p string) {
			t.Helper()
			if pr, ok := s.Match(p, false, nil); !ok || pr.Rule != "self.hook-write" {
				t.Errorf("env %v: writing %s is not denied as a hook file (%q)", vars, p, pr.Rule)
			}
		}
		for _, set := range harness.Setups() {
			protected(filepath.FromSlash(set.UserFile(home, env)))
			protected(filepath.Join(repo, filepath.FromSlash(set.ProjectFile)))
		}
		files := harness.Files(home, env, runtime.GOOS)
		if len(files) < 2*len(harness.Setups()) {
			t.Fatalf("harness.Files lists %d files", len(files))
		}
		for _, f := range files {
			p := filepath.FromSlash(strings.ReplaceAll(f.Path, "*", "x"))
			if f.Project {
				p = filepath.Join(root, "elsewhere", p)
			}
			if f.Dir {
				p = filepath.Join(p, "some.json")
			}
			protected(p)
		}
	}
	s := Protected(Options{Cwd: repo, Env: paths.Env{Home: home}}, audit.Trail{})
	for text, want := range map[string]bool{
		"$HOME/.gemini/settings.json": true, "${CODEX_HOME:-~/.codex}/hooks.json": true, "$DIR/.cursor/hooks.json": true,
		"$OUT/settings.json": false,
	} {
		if s.Mentions(text) != want {
			t.Errorf("Mentions(%q) = %v", text, !want)
		}
	}
	for _, p := range []string{filepath.Join(repo, ".gemini", "notes.txt"), filepath.Join(home, ".codex", "sessions", "x.json")} {
		if pr, ok := s.Match(p, false, nil); ok {
			t.Errorf("Match(%s) = %v, want no protection", p, pr)
		}
	}
}

// TestProtectedNamesFoldCase: on Windows and macOS (NTFS, APFS as macOS formats it) a file
// name matches in any case, so .CTXGUARD.yaml is the project policy there (and is refused on
// Linux too, where that costs nothing).
func TestProtectedNamesFoldCase(t *testing.T) {
	for _, tt := range []struct {
		env  paths.Env
		path string
		want bool
	}{
		{paths.Env{OS: "darwin", Home: "/Users/u"}, "/Users/u/src/repo/.CTXGUARD.yaml", true},
		{paths.Env{OS: "darwin", Home: "/Users/u"}, "/Users/u/src/repo/.Claude/Settings.json", true},
		{paths.Env{OS: "windows", Home: `C:\Users\u`}, `C:\Users\u\src\repo\.CtxGuard.YAML`, true},
		{paths.Env{OS: "linux", Home: "/home/u"}, "/home/u/src/repo/.CTXGUARD.yaml", true},
		{paths.Env{OS: "linux", Home: "/home/u"}, "/home/u/src/repo/.ctxguard.yaml", true},
	} {
		if (tt.env.OS == "windows") != (runtime.GOOS == "windows") {
			continue // Self takes paths apart with the running system's rules (.ci/wine runs these)
		}
		s := Protected(Options{Env: tt.env}, audit.Trail{})
		if _, got := s.Match(tt.path, false, nil); got != tt.want {
			t.Errorf("%s: Match(%s) = %v, want %v", tt.env.OS, tt.path, got, tt.want)
		}
	}
}
