package policy

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

// tree is a test directory: root holds home/, etc/ and whatever the test writes. Nothing outside
// it is read, except the lexical walk above root, where no .ctxguard.yaml is expected.
type tree struct {
	t    *testing.T
	root string
	env  map[string]string
}

func newTree(t *testing.T) *tree {
	root := testenv.TempDir(t)
	tr := &tree{t: t, root: root, env: map[string]string{
		"CTXGUARD_MANAGED_POLICY": filepath.Join(root, "etc", "ctxguard", "policy.yaml"),
	}}
	tr.mkdir("home/repo/sub")
	return tr
}

func (tr *tree) path(rel string) string { return filepath.Join(tr.root, filepath.FromSlash(rel)) }

func (tr *tree) mkdir(rel string) {
	tr.t.Helper()
	if err := os.MkdirAll(tr.path(rel), 0o755); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) write(rel, content string) {
	tr.t.Helper()
	tr.mkdir(filepath.Dir(rel))
	if err := os.WriteFile(tr.path(rel), []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) symlink(target, rel string) {
	tr.t.Helper()
	testenv.Symlink(tr.t, target, tr.path(rel))
}

// options searches from cwd (relative to root) with root/home as the home directory.
func (tr *tree) options(cwd string) Options {
	return Options{
		Cwd: tr.path(cwd),
		Env: paths.Env{Home: tr.path("home"), Lookup: func(k string) (string, bool) {
			v, ok := tr.env[k]
			return v, ok
		}},
		Providers: testProviders,
	}
}

// rel turns the files Load read back into "layer rel/path" lines.
func (tr *tree) rel(files []rules.PolicyFile) []string {
	var out []string
	for _, f := range files {
		r, err := filepath.Rel(tr.root, f.File)
		if err != nil {
			r = f.File
		}
		out = append(out, f.Layer+" "+filepath.ToSlash(r))
	}
	return out
}

const (
	managedYAML = `contexts:
  az:
    allow: [sub-a, sub-b, sub-c]
    unbound: ask
destructive: ask
`
	userYAML = `contexts:
  az:
    default: sub-b
  kubectl:
    allow: ["kind-*"]
    unbound: fix
destructive: deny
rewrite: ask
rules:
  - match: az group delete
    decision: deny
    reason: not by an agent
`
	projectYAML = `version: 1
contexts:
  az:
    allow: [sub-b, sub-x]
    default: sub-b
    unbound: allow
  kubectl:
    allow: [kind-dev]
    default: kind-dev
    unbound: deny
destructive: allow
rewrite: allow
rules:
  - id: p
    match: kubectl delete
    decision: ask
`
)

func TestLoadLayers(t *testing.T) {
	tr := newTree(t)
	managed := tr.path("etc/ctxguard/policy.yaml")
	user := tr.path("home/.config/ctxguard/policy.yaml")
	project := tr.path("home/repo/.ctxguard.yaml")
	tr.write("etc/ctxguard/policy.yaml", managedYAML)
	tr.write("home/.config/ctxguard/policy.yaml", userYAML)
	tr.write("home/repo/.ctxguard.yaml", projectYAML)

	got, err := Load(tr.options("home/repo/sub"))
	if err != nil {
		t.Fatal(err)
	}
	at := func(file string, line int) rules.Source { return rules.Source{File: file, Line: line} }
	want := &Policy{Policy: rules.Policy{
		Files: []rules.PolicyFile{{Layer: Managed, File: managed}, {Layer: User, File: user}, {Layer: Project, File: project}},
		Contexts: map[string]*rules.ContextPolicy{
			"az": {
				// One list per layer that set one; the engine intersects them (sub-b).
				Allow: []rules.AllowList{
					{Patterns: []string{"sub-a", "sub-b", "sub-c"}, Src: at(managed, 3)},
					{Patterns: []string{"sub-b", "sub-x"}, Src: at(project, 4)},
				},
				// Most specific layer first.
				Defaults: []rules.Valued{{Value: "sub-b", Src: at(project, 5)}, {Value: "sub-b", Src: at(user, 3)}},
				// The project's allow cannot loosen the managed ask.
				Unbound:    rules.SettingAsk,
				UnboundSrc: at(managed, 4),
			},
			"kubectl": {
				Allow: []rules.AllowList{
					{Patterns: []string{"kind-*"}, Src: at(user, 5)},
					{Patterns: []string{"kind-dev"}, Src: at(project, 8)},
				},
				Defaults: []rules.Valued{{Value: "kind-dev", Src: at(project, 9)}},
				// The project may tighten: deny over the user's fix.
				Unbound:    rules.SettingDeny,
				UnboundSrc: at(project, 10),
			},
		},
		// The project's destructive: allow cannot loosen the user's deny.
		Destructive:    rules.SettingDeny,
		DestructiveSrc: at(user, 7),
		Rules: []rules.UserRule{
			{ID: "user.user.1", Match: "az group delete", Decision: rules.SettingDeny, Reason: "not by an agent", Src: at(user, 10)},
			{ID: "p", Match: "kubectl delete", Decision: rules.SettingAsk, Src: at(project, 14)},
		}},
		// The user's rewrite: ask holds; the project's old rewrite: allow is not read, and says so.
		RewriteMode:    rules.SettingAsk,
		RewriteModeSrc: at(user, 8),
		Notes:          []string{project + ":12:1: " + rewriteAllowNote},
		// The managed layer sets destructive: no lift lifts a destructive entry.
		Locked: []string{"destructive"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

func TestLoadEachLayerAlone(t *testing.T) {
	tests := []struct {
		name, file, yaml string
	}{
		{Managed, "etc/ctxguard/policy.yaml", managedYAML},
		{User, "home/.config/ctxguard/policy.yaml", userYAML},
		{Project, "home/repo/.ctxguard.yaml", projectYAML},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tr.write(tt.file, tt.yaml)
			got, err := Load(tr.options("home/repo/sub"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := Parse([]byte(tt.yaml), tr.path(tt.file), tt.name, testProviders)
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == Managed {
				want.Locked = []string{"destructive"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Load (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadNoFiles(t *testing.T) {
	tr := newTree(t)
	got, err := Load(tr.options("home/repo/sub"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 0 || len(got.Contexts) != 0 || len(got.Rules) != 0 || got.Destructive != rules.SettingUnset {
		t.Errorf("Load with no files = %+v, want an empty policy", got)
	}
}

// TestFind checks which files are found, including directory trees that must not hang the walk
// or crash it.
func TestFind(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tr *tree)
		cwd   string
		want  []string
	}{
		{
			name: "nearest project file wins over a farther one",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "")
				tr.write("home/repo/sub/.ctxguard.yaml", "")
			},
			cwd:  "home/repo/sub",
			want: []string{"project home/repo/sub/.ctxguard.yaml"},
		},
		{
			name:  "the walk goes up to the repository",
			setup: func(tr *tree) { tr.write("home/repo/.ctxguard.yaml", "") },
			cwd:   "home/repo/sub",
			want:  []string{"project home/repo/.ctxguard.yaml"},
		},
		{
			name:  "home's own file counts",
			setup: func(tr *tree) { tr.write("home/.ctxguard.yaml", "") },
			cwd:   "home/repo/sub",
			want:  []string{"project home/.ctxguard.yaml"},
		},
		{
			name:  "the walk stops at home",
			setup: func(tr *tree) { tr.write(".ctxguard.yaml", "") },
			cwd:   "home/repo/sub",
		},
		{
			name: "the walk stops at home reached through a symlink",
			setup: func(tr *tree) {
				tr.write(".ctxguard.yaml", "")
				tr.symlink(tr.path("home"), "homelink")
			},
			cwd: "homelink/repo/sub",
		},
		{
			name: "outside home the walk goes on up",
			setup: func(tr *tree) {
				tr.write(".ctxguard.yaml", "")
				tr.mkdir("work/x")
			},
			cwd:  "work/x",
			want: []string{"project .ctxguard.yaml"},
		},
		{
			name: "XDG_CONFIG_HOME moves the user file",
			setup: func(tr *tree) {
				tr.env["XDG_CONFIG_HOME"] = tr.path("xdg")
				tr.write("xdg/ctxguard/policy.yaml", "")
				tr.write("home/.config/ctxguard/policy.yaml", "")
			},
			cwd:  "home/repo/sub",
			want: []string{"user xdg/ctxguard/policy.yaml"},
		},
		{
			name: "a relative XDG_CONFIG_HOME is ignored",
			setup: func(tr *tree) {
				tr.env["XDG_CONFIG_HOME"] = "xdg"
				tr.write("home/.config/ctxguard/policy.yaml", "")
			},
			cwd:  "home/repo/sub",
			want: []string{"user home/.config/ctxguard/policy.yaml"},
		},
		{
			name: "all layers in order",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "")
				tr.write("home/.config/ctxguard/policy.yaml", "")
				tr.write("etc/ctxguard/policy.yaml", "")
			},
			cwd:  "home/repo/sub",
			want: []string{"managed etc/ctxguard/policy.yaml", "user home/.config/ctxguard/policy.yaml", "project home/repo/.ctxguard.yaml"},
		},
		{
			name: "a symlink loop back to an ancestor",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "")
				tr.symlink("..", "home/repo/sub/up")
			},
			cwd:  "home/repo/sub/up/sub/up/sub/up/sub",
			want: []string{"project home/repo/sub/up/sub/up/sub/up/.ctxguard.yaml"},
		},
		{
			name: "a symlink to itself on the way",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "")
				tr.symlink("self", "home/repo/self")
			},
			cwd:  "home/repo/self/a/b",
			want: []string{"project home/repo/.ctxguard.yaml"},
		},
		{
			name: "an unreadable directory is passed over",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "")
				tr.mkdir("home/repo/locked/sub")
				locked := tr.path("home/repo/locked")
				if err := os.Chmod(locked, 0); err != nil {
					tr.t.Fatal(err)
				}
				tr.t.Cleanup(func() { os.Chmod(locked, 0o755) })
			},
			cwd:  "home/repo/locked/sub",
			want: []string{"project home/repo/.ctxguard.yaml"},
		},
		{
			name:  "a working directory that does not exist",
			setup: func(tr *tree) { tr.write("home/repo/.ctxguard.yaml", "") },
			cwd:   "home/repo/gone/deeper",
			want:  []string{"project home/repo/.ctxguard.yaml"},
		},
		{
			name: "a file where a directory should be",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "")
				tr.write("home/repo/file", "")
			},
			cwd:  "home/repo/file/sub",
			want: []string{"project home/repo/.ctxguard.yaml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tt.setup(tr)
			got, err := Load(tr.options(tt.cwd))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.rel(got.Files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tr *tree)
		cwd   string
		want  []string // substrings of the error; "$ROOT" stands for the tree's root
	}{
		{
			name: "unknown key in the project file",
			setup: func(tr *tree) {
				tr.write("home/repo/.ctxguard.yaml", "contexts:\n  az:\n    allow: [x]\n    unbond: fix\n")
			},
			cwd:  "home/repo/sub",
			want: []string{`$ROOT/home/repo/.ctxguard.yaml:4:5: unknown key "unbond"`},
		},
		{
			name:  "malformed user file",
			setup: func(tr *tree) { tr.write("home/.config/ctxguard/policy.yaml", "rules: [\n") },
			cwd:   "home/repo/sub",
			want:  []string{"$ROOT/home/.config/ctxguard/policy.yaml:1:8: this [ is never closed"},
		},
		{
			name:  "unknown provider in the managed file",
			setup: func(tr *tree) { tr.write("etc/ctxguard/policy.yaml", "contexts:\n  terraform: {}\n") },
			cwd:   "home/repo/sub",
			want:  []string{`$ROOT/etc/ctxguard/policy.yaml:2:3: unknown provider "terraform"`},
		},
		{
			name:  "the project file is a directory",
			setup: func(tr *tree) { tr.mkdir("home/repo/.ctxguard.yaml") },
			cwd:   "home/repo/sub",
			want:  []string{"read project policy: ", "$ROOT/home/repo/.ctxguard.yaml", "is a directory"},
		},
		{
			name:  "the project file is a dangling symlink",
			setup: func(tr *tree) { tr.symlink("nowhere.yaml", "home/repo/.ctxguard.yaml") },
			cwd:   "home/repo/sub",
			want:  []string{"read project policy: ", "$ROOT/home/repo/.ctxguard.yaml"},
		},
		{
			name:  "the project file is a symlink to itself",
			setup: func(tr *tree) { tr.symlink(".ctxguard.yaml", "home/repo/.ctxguard.yaml") },
			cwd:   "home/repo/sub",
			want:  []string{"read project policy: ", "$ROOT/home/repo/.ctxguard.yaml"},
		},
		{
			name: "the user file cannot be read",
			setup: func(tr *tree) {
				tr.write("home/.config/ctxguard/policy.yaml", "")
				testenv.Unreadable(tr.t, tr.path("home/.config/ctxguard/policy.yaml"))
			},
			cwd:  "home/repo/sub",
			want: []string{"read user policy: ", "$ROOT/home/.config/ctxguard/policy.yaml"},
		},
		{
			name: "the managed policy's directory cannot be searched",
			setup: func(tr *tree) {
				if os.Geteuid() == 0 {
					tr.t.Skip("root searches any directory")
				}
				if runtime.GOOS == "windows" {
					tr.t.Skip("a folder's mode does not stop a search on Windows (only its ACL would)")
				}
				tr.write("etc/ctxguard/policy.yaml", "destructive: deny\n")
				dir := tr.path("etc/ctxguard")
				if err := os.Chmod(dir, 0); err != nil {
					tr.t.Fatal(err)
				}
				tr.t.Cleanup(func() { os.Chmod(dir, 0o755) })
			},
			cwd:  "home/repo/sub",
			want: []string{"find managed policy: ", "$ROOT/etc/ctxguard/policy.yaml", "permission denied"},
		},
		{
			name:  "a relative working directory",
			setup: func(tr *tree) {},
			want:  []string{`find project policy: working directory "" is not absolute`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tt.setup(tr)
			o := tr.options(tt.cwd)
			if tt.cwd == "" {
				o.Cwd = ""
			}
			p, err := Load(o)
			if err == nil {
				t.Fatalf("Load = %+v, want an error", p)
			}
			for _, w := range tt.want {
				if w = filepath.FromSlash(strings.ReplaceAll(w, "$ROOT", tr.root)); !strings.Contains(err.Error(), w) {
					t.Errorf("Load error = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestLoadForget checks that session memory, once a layer turns it off, stays off: a project
// file cannot turn it back on, and any layer may turn it off.
func TestLoadForget(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		want          bool
		wantSrc       string // the file that turned it off
	}{
		{"on by default", "version: 1\n", "version: 1\n", false, ""},
		{"the user's off wins over the project's on", "session: {remember: false}\n", "session: {remember: true}\n", true, "home/.config/ctxguard/policy.yaml"},
		{"the project may turn it off", "version: 1\n", "session: {remember: false}\n", true, "home/repo/.ctxguard.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tr.write("home/.config/ctxguard/policy.yaml", tt.user)
			tr.write("home/repo/.ctxguard.yaml", tt.project)
			got, err := Load(tr.options("home/repo"))
			if err != nil {
				t.Fatal(err)
			}
			wantSrc := rules.Source{}
			if tt.wantSrc != "" {
				wantSrc = rules.Source{File: tr.path(tt.wantSrc), Line: 1}
			}
			if got.Forget != tt.want || got.ForgetSrc != wantSrc {
				t.Errorf("Forget = %v from %v, want %v from %v", got.Forget, got.ForgetSrc, tt.want, wantSrc)
			}
		})
	}
}
