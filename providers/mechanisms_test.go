package providers_test

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/spec"
)

// The specs in this file are made up: each stands for one shape of state that a real CLI has,
// so that the mechanism is tested apart from any provider file.

// made parses a made-up provider.
func made(t *testing.T, src string) *spec.Spec {
	t.Helper()
	s, err := catalog.Parse([]byte(src), "made.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// profiles keeps no state file: the profile is a flag, one of two variables, else "default";
// keys in the environment make the CLI ignore the profile (aws's shape).
const profiles = `name: prof
commands: [prof]
context:
  read:
    - flag: [--profile]
      env: [PROF_PROFILE, PROF_DEFAULT_PROFILE]
      overridden_by: [PROF_KEY, --key]
      default: default
`

func TestEnvListAndOverride(t *testing.T) {
	s := made(t, profiles)
	tests := []struct {
		name    string
		env     map[string]string
		flags   map[string]string
		value   string
		source  string
		unknown string // a substring of the ErrUnknown error
	}{
		{name: "nothing set", value: "default", source: "default"},
		{name: "first variable", env: map[string]string{"PROF_PROFILE": "dev"}, value: "dev", source: "env PROF_PROFILE"},
		{name: "second variable", env: map[string]string{"PROF_DEFAULT_PROFILE": "dev"}, value: "dev", source: "env PROF_DEFAULT_PROFILE"},
		{name: "both agree", env: map[string]string{"PROF_PROFILE": "dev", "PROF_DEFAULT_PROFILE": "dev"}, value: "dev", source: "env PROF_PROFILE"},
		{name: "both disagree", env: map[string]string{"PROF_PROFILE": "dev", "PROF_DEFAULT_PROFILE": "prod"},
			unknown: "PROF_PROFILE=dev and PROF_DEFAULT_PROFILE=prod disagree"},
		{name: "an empty one is unset", env: map[string]string{"PROF_PROFILE": "", "PROF_DEFAULT_PROFILE": "prod"}, value: "prod", source: "env PROF_DEFAULT_PROFILE"},
		{name: "flag beats both", env: map[string]string{"PROF_PROFILE": "dev", "PROF_DEFAULT_PROFILE": "prod"},
			flags: map[string]string{"--profile": "qa"}, value: "qa", source: "flag --profile"},
		{name: "overriding variable", env: map[string]string{"PROF_PROFILE": "dev", "PROF_KEY": "k"}, unknown: "PROF_KEY is set"},
		{name: "overriding flag", flags: map[string]string{"--key": "k"}, unknown: "--key is set"},
		{name: "the step's flag beats an override", env: map[string]string{"PROF_KEY": "k"},
			flags: map[string]string{"--profile": "qa"}, value: "qa", source: "flag --profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := providers.NewReader().Resolve(s, spec.Input{Env: env(tt.env), Flag: flags(tt.flags), System: paths.Env{}, Home: testenv.TempDir(t)})
			if tt.unknown != "" {
				if !errors.Is(err, spec.ErrUnknown) || !strings.Contains(err.Error(), tt.unknown) {
					t.Fatalf("Resolve error = %v, want ErrUnknown saying %q", err, tt.unknown)
				}
				return
			}
			if err != nil || got.Value != tt.value || got.From.String() != tt.source {
				t.Errorf("Resolve = %q from %q, %v; want %q from %q", got.Value, got.From, err, tt.value, tt.source)
			}
		})
	}
	// An override counts by its presence: a flag whose value is not literal still overrides.
	in := spec.Input{Env: env(nil), Flag: flags(nil), Has: func(names []string) bool { return names[0] == "--key" }, System: paths.Env{}}
	if _, err := providers.NewReader().Resolve(s, in); !errors.Is(err, spec.ErrUnknown) {
		t.Errorf("a --key without a literal value: %v, want ErrUnknown", err)
	}
	if !s.Context.Read[0].Mentions("PROF_KEY") || !s.Context.Read[0].Mentions("PROF_DEFAULT_PROFILE") {
		t.Error("Mentions misses an overriding or second variable: `PROF_KEY=$X prof …` would not be unknown")
	}
}

// projects finds its project file upward, names the workspace file by the project's name and the
// SHA-1 of the project file's path, and keeps per-project state next to the project file
// (pulumi's and azd's shapes together).
const projects = `name: proj
commands: [proj]
context:
  read:
    - let: project_file
      file: [proj.yaml, proj.yml]
      find_up: true
      take: path
    - let: root
      file: [proj.yaml, proj.yml]
      find_up: true
      take: dir
    - let: project
      file: ${project_file}
      format: yaml
      value: name
    - let: project_id
      default: ${project_file}
      hash: sha1
    - file: ${PROJ_HOME:-~/.proj}/workspaces/${project}-${project_id}.json
      format: json
      value: stacks.${root}
      else: [stack]
`

func TestFindUpTakeHash(t *testing.T) {
	s := made(t, projects)
	root := testenv.TempDir(t)
	home := filepath.Join(root, "home")
	// A dot in the folder's name is a gjson path separator, and a Windows path's backslashes
	// are gjson escapes: the key ${root} must be looked up as the path it is.
	proj := filepath.Join(root, "my.repo", "infra")
	deep := filepath.Join(proj, "src", "deep")
	write(t, filepath.Join(proj, "proj.yml"), "name: shop\n")
	write(t, filepath.Join(root, "my.repo", "proj.yaml"), "name: outer\n") // farther up: not used
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum([]byte(filepath.Join(proj, "proj.yml")))
	ws := filepath.Join(home, ".proj", "workspaces", "shop-"+hex.EncodeToString(sum[:])+".json")
	write(t, ws, `{"stacks": {`+strconv.Quote(proj)+`: "dev"}, "stack": "legacy"}`)

	in := spec.Input{Env: env(nil), Dir: deep, Home: home, System: paths.Env{}}
	got, err := providers.NewReader().Resolve(s, in)
	if err != nil {
		t.Fatal(err)
	}
	if got.Value != "dev" || got.File != ws {
		t.Errorf("Resolve = %q from %s, want dev from %s", got.Value, got.File, ws)
	}
	if got.Vars["root"] != proj || got.Vars["project"] != "shop" {
		t.Errorf("lets root=%q project=%q, want %q and shop", got.Vars["root"], got.Vars["project"], proj)
	}

	// The legacy key is the fallback.
	write(t, ws, `{"stack": "legacy"}`)
	if got, err := providers.NewReader().Resolve(s, in); err != nil || got.Value != "legacy" {
		t.Errorf("legacy workspace file: %q, %v; want legacy", got.Value, err)
	}

	// Outside any project there is no project file, and so no workspace file.
	if got, err := providers.NewReader().Resolve(s, spec.Input{Env: env(nil), Dir: home, Home: home, System: paths.Env{}}); err != nil || got.Value != "" {
		t.Errorf("outside a project: %q, %v; want nothing", got.Value, err)
	}

	// Without a known directory, an upward search cannot start.
	if _, err := providers.NewReader().Resolve(s, spec.Input{Env: env(nil), Home: home, System: paths.Env{}}); !errors.Is(err, spec.ErrNoDir) {
		t.Errorf("no directory: %v, want ErrNoDir", err)
	}

	// A symbolic link to the project folder names the same workspace file: the path is hashed
	// with links resolved.
	link := filepath.Join(root, "link")
	testenv.Symlink(t, proj, link)
	if got, err := providers.NewReader().Resolve(s, spec.Input{Env: env(nil), Dir: link, Home: home, System: paths.Env{}}); err != nil || got.Value != "legacy" {
		t.Errorf("through a link: %q, %v; want legacy", got.Value, err)
	}
}

// TestEntriesModifier lists a map's entries for known.list: contexts kept as {alias: id}.
func TestEntriesModifier(t *testing.T) {
	s := made(t, `name: m
commands: [m]
context:
  read:
    - let: alias
      env: MY_ALIAS
    - file: ${HOME}/m.json
      format: json
      value: aliases.${alias}
  known:
    list: aliases|@entries
    id: value
    name: key
`)
	home := testenv.TempDir(t)
	write(t, filepath.Join(home, "m.json"), `{"aliases": {"dev": "id-1", "prod": "id-2"}, "other": 1}`)
	got, err := providers.NewReader().Resolve(s, spec.Input{System: paths.Env{}, Home: home,
		Env: env(map[string]string{"HOME": home, "MY_ALIAS": "prod"})})
	want := []spec.Known{{ID: "id-1", Name: "dev"}, {ID: "id-2", Name: "prod"}}
	if err != nil || got.Value != "id-2" || got.Name != "prod" || !reflect.DeepEqual(got.Known, want) {
		t.Errorf("Resolve = %+v, %v; want id-2 named prod, known %v", got, err, want)
	}
}

func TestParseMechanisms(t *testing.T) {
	base := "name: m\ncommands: [m]\ncontext:\n  read:\n"
	tests := []struct{ name, src, want string }{
		{"env list names", base + "    - env: [OK, 'NOT OK']\n", `"NOT OK" is not an environment variable name`},
		{"overridden_by", base + "    - {env: A, overridden_by: [B, --c, 'd e']}\n", `"d e" is neither a flag nor an environment variable name`},
		{"take value", base + "    - {let: x, file: a, take: file}\n    - {default: x}\n", `take must be path or dir, not "file"`},
		{"take context", base + "    - {file: a, take: dir}\n", `take needs a let: the context itself is never a path`},
		{"take content", base + "    - {let: x, file: a, take: dir, format: json, value: k}\n    - {default: x}\n", `take uses the file found, not its content`},
		{"hash", base + "    - {let: x, default: a, hash: md5}\n    - {default: x}\n", `hash must be sha1, not "md5"`},
		{"find_up list", base + "    - {file: a, find_up: true, list: true, format: text}\n", `find_up needs file and no list`},
		{"else without value", base + "    - {file: a, format: text, else: [b]}\n", `else needs value, and names a path`},
		{"shares itself", base + "    - {default: x}\nshares: m\n", `shares "m" must name another provider`},
		{"switched_by lookup", base + "    - {default: x}\nswitched_by:\n  - {command: other use, lookup: a}\n", `a switched_by entry has no lookup or sets`},
		{"own value_flags", base + "    - {default: x}\nswitch:\n  - {command: use, value_flags: [-v]}\n", `value_flags belongs to switched_by entries`},
		{"read and unknown", base + "    - {default: x}\nswitched_by:\n  - {command: other make, unknown: true, read: [{default: y}]}\n", `read works the target out: drop unknown`},
		{"read steps", base + "    - {default: x}\nswitched_by:\n  - {command: other make, read: [{flag: [--name]}, {default: y}]}\n", `every step but the last needs a let`},
		{"read let scope", base + "    - {let: mine, default: a}\n    - {default: x}\nswitched_by:\n  - {command: other make, read: [{file: '${HOME}/f', format: json, value: 'k.${mine}'}]}\n", `${mine} in "k.${mine}" names no earlier let`},
		{"unless value", base + "    - {default: x}\nswitched_by:\n  - {command: other make, unless: ['--x=']}\n", `"--x=" is not a flag (-x, --name, --name=value)`},
		{"redefined_by own", base + "    - {default: x}\nredefined_by:\n  - {command: m set, current_always: true}\n", `"m set" is this provider's own command: list it under redefine`},
		{"listed id", base + "    - {default: x}\n  listed:\n    - {file: a, format: json}\n", `id is required`},
		{"listed stars", base + "    - {default: x}\n  listed:\n    - {file: 'a/*/b*', id: '*'}\n", `has more than one *`},
		{"listed found only", base + "    - {default: x}\n  listed:\n    - {file: 'a/*', id: k}\n", `without format a file is only found`},
		{"listed match", base + "    - {default: x}\n  listed:\n    - {file: a, format: ini, list: '@keys', id: '@this', match: '('}\n", `match is not a regular expression`},
		{"listed let", base + "    - {default: x}\n  listed:\n    - {file: a, format: json, list: '${nope}', id: k}\n", `${nope} in "${nope}" names no earlier let`},
		{"current_always arg", base + "    - {default: x}\nredefined_by:\n  - {command: other ns, current_always: true, arg: 1}\n", `current_always redefines the current context: drop arg, match, current and selected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.Parse([]byte(tt.src), "m.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v, want %q", err, tt.want)
			}
		})
	}
	s := made(t, base+"    - {default: x}\nswitched_by:\n  - other creds\n  - {command: other use, arg: 1}\n")
	if got := s.SwitchedBy; len(got) != 2 || !got[0].Unknown || !got[0].Asks || got[0].Command != "other creds" || got[1].Unknown || got[1].Asks || got[1].Arg != 1 {
		t.Errorf("switched_by = %+v, want a plain string as an unknown switch that asks and a mapping as it is", got)
	}
}

// TestSwitchReadSteps works a switch's target out from the switching call (kind create cluster
// selects kind-<name>): its flag, else its variable, else the default, through a template; a
// flag that makes the value unknown (a --config file may name it); ${target}, the word the
// entry takes; and a file, found first among the step's paths.
func TestSwitchReadSteps(t *testing.T) {
	home := testenv.TempDir(t)
	sw := &spec.Switch{Command: "maker create", Read: []spec.Step{
		{Let: "name", Flag: []string{"--name"}, OverriddenBy: []string{"--config"}, Env: spec.Strings{"MAKER_NAME"}, Default: "one"},
		{Default: "mk-${name}"},
	}}
	kube := &spec.Spec{Name: "kube", Noun: "context", Context: spec.Context{Read: []spec.Step{{Default: "x"}}}}
	in := func(flags, vars map[string]string) spec.Input {
		return spec.Input{System: paths.Env{}, Home: home, Env: env(vars),
			Flag: func(names []string) (string, bool) {
				for _, n := range names {
					if v, ok := flags[n]; ok {
						return v, true
					}
				}
				return "", false
			}}
	}
	r := providers.NewReader()
	for _, tt := range []struct {
		name         string
		flags, vars  map[string]string
		target, want string
		unknown      bool
	}{
		{name: "default", want: "mk-one"},
		{name: "variable", vars: map[string]string{"MAKER_NAME": "two"}, want: "mk-two"},
		{name: "flag over variable", flags: map[string]string{"--name": "three"}, vars: map[string]string{"MAKER_NAME": "two"}, want: "mk-three"},
		{name: "config file", flags: map[string]string{"--config": "c.yaml"}, unknown: true},
		{name: "flag over config file", flags: map[string]string{"--config": "c.yaml", "--name": "four"}, want: "mk-four"},
	} {
		got, ok, err := r.Target(kube, in(tt.flags, tt.vars), sw, tt.target)
		switch {
		case tt.unknown && !errors.Is(err, spec.ErrUnknown):
			t.Errorf("%s: %q, %v, %v; want ErrUnknown", tt.name, got, ok, err)
		case !tt.unknown && (err != nil || !ok || got != tt.want):
			t.Errorf("%s: %q, %v, %v; want %q", tt.name, got, ok, err, tt.want)
		}
	}

	// ${target} is the entry's own word; a step whose variable is missing gives nothing.
	use := &spec.Switch{Command: "pro use", Arg: 1, Read: []spec.Step{{Let: "region", Flag: []string{"--region"}}, {Default: "p-${region}-${target}"}}}
	if got, ok, err := r.Target(kube, in(map[string]string{"--region": "eu"}, nil), use, "shop"); err != nil || !ok || got != "p-eu-shop" {
		t.Errorf("target and region: %q, %v, %v; want p-eu-shop", got, ok, err)
	}
	if got, ok, err := r.Target(kube, in(nil, nil), use, "shop"); err != nil || ok || got != "" {
		t.Errorf("no region: %q, %v, %v; want nothing", got, ok, err)
	}

	// A file: the first of the paths that exists, its value read like a context's.
	write(t, filepath.Join(home, "b", "conf.json"), `{"profile": "filed"}`)
	filed := &spec.Switch{Command: "mini start", Read: []spec.Step{{Flag: []string{"-p"},
		File: spec.Strings{"${HOME}/a/conf.json", "${HOME}/b/conf.json"}, Format: "json", Value: "profile", Default: "mini"}}}
	vars := map[string]string{"HOME": home}
	if got, _, err := r.Target(kube, in(nil, vars), filed, ""); err != nil || got != "filed" {
		t.Errorf("from the file: %q, %v; want filed", got, err)
	}
	if got, _, err := r.Target(kube, in(map[string]string{"-p": "flagged"}, vars), filed, ""); err != nil || got != "flagged" {
		t.Errorf("flag over the file: %q, %v; want flagged", got, err)
	}
}

// located keeps its state in a folder found upward (a project's) and in a file that a value
// read from the state selects (a configuration): the selected file's folder is state, the
// project folder is not.
const located = `name: loc
commands: [loc]
context:
  read:
    - let: root
      file: loc.json
      find_up: true
      take: dir
    - let: config
      file: ${root}/.loc/active
      format: text
    - file: ${root}/.loc/configs/${config}.json
      format: json
      value: account
`

func TestStateFiles(t *testing.T) {
	s := made(t, located)
	dir := testenv.TempDir(t)
	sub := filepath.Join(dir, "app", "src")
	write(t, filepath.Join(dir, "app", "loc.json"), "{}")
	write(t, filepath.Join(dir, "app", ".loc", "active"), "dev")
	write(t, filepath.Join(dir, "app", ".loc", "configs", "dev.json"), `{"account": "a"}`)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	got := providers.NewReader().StateFiles(s, spec.Input{Dir: sub, Home: dir, System: paths.Env{}})
	app := filepath.Join(dir, "app")
	want := []providers.StateFile{
		{Path: filepath.Join(app, "loc.json")},
		{Path: filepath.Join(app, ".loc", "active")},
		{Path: filepath.Join(app, ".loc", "configs", "dev.json")},
		{Path: filepath.Join(app, ".loc", "configs"), Tree: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("StateFiles = %v\nwant %v", got, want)
	}
}

// TestStateFilesData lists a made-up CLI's state: the file its read step names, the files its
// contexts are defined in (one moved by a variable, and on Windows under the home), and, for
// paths relative to the call's directory, the same paths as state under any directory, with the
// folders its exists checks look in.
func TestStateFilesData(t *testing.T) {
	s := made(t, `name: st
commands: [st]
context:
  read:
    - file: .st/current
      format: text
  defined_in:
    - ${ST_CONFIG:-~/.st/config}
    - st.lock
  exists:
    - path: envs/${value}
`)
	in := spec.Input{System: paths.Env{OS: "linux"}, Home: "/home/u", Dir: "/repo", Env: env(nil)}
	want := []providers.StateFile{
		{Path: "/repo/.st/current"},
		{Path: filepath.FromSlash(".st/current"), Anywhere: true},
		{Path: "/home/u/.st/config"},
		{Path: "/repo/st.lock"},
		{Path: "st.lock", Anywhere: true},
		{Path: "/repo/envs", Tree: true},
		{Path: "envs", Tree: true, Anywhere: true},
	}
	if got := providers.NewReader().StateFiles(s, in); !reflect.DeepEqual(got, want) {
		t.Errorf("StateFiles = %+v\nwant %+v", got, want)
	}
	in.Env = env(map[string]string{"ST_CONFIG": "/etc/st.conf"})
	if got := providers.NewReader().StateFiles(s, in); !slices.Contains(got, providers.StateFile{Path: "/etc/st.conf"}) {
		t.Errorf("StateFiles with ST_CONFIG = %+v, want /etc/st.conf", got)
	}
	win := spec.Input{System: paths.Env{OS: "windows"}, Home: `C:\Users\u`, Dir: `C:\repo`, Env: env(nil)}
	if got := providers.NewReader().StateFiles(s, win); !slices.Contains(got, providers.StateFile{Path: `C:\Users\u\.st\config`}) {
		t.Errorf("StateFiles on Windows = %+v, want C:\\Users\\u\\.st\\config", got)
	}
}

// TestListedMechanism lists a made-up CLI's contexts from its files: one folder per context
// under a folder that a Let names (a * in a middle element, its run the name and the id in the
// file), and a YAML list whose ids a regular expression filters and trims.
func TestListedMechanism(t *testing.T) {
	s := made(t, `name: m
commands: [m]
context:
  read:
    - let: ws
      env: M_HOME
      default: ~/.m
    - file: ${ws}/current
      format: text
  listed:
    - file: ${ws}/envs/*/settings.json
      format: json
      id: uuid
      name: '*'
    - file: ${ws}/more.yaml
      format: yaml
      list: targets
      id: key
      match: '^target:(.+)$'
`)
	home := testenv.TempDir(t)
	ws := filepath.Join(home, "ws")
	write(t, filepath.Join(ws, "envs", "dev", "settings.json"), `{"uuid": "u-1"}`)
	write(t, filepath.Join(ws, "envs", "prod", "settings.json"), `{"uuid": "u-2"}`)
	write(t, filepath.Join(ws, "envs", "empty", "other.json"), `{"uuid": "u-3"}`) // no settings.json
	write(t, filepath.Join(ws, "envs", "noid", "settings.json"), `{}`)
	write(t, filepath.Join(ws, "more.yaml"), "targets:\n  - key: target:qa\n  - key: other\n  - key: target:u-1\n")
	got, err := providers.NewReader().Listed(s, spec.Input{System: paths.Env{}, Home: home, Env: env(map[string]string{"M_HOME": ws})})
	want := []spec.Known{{ID: "u-1", Name: "dev"}, {ID: "u-2", Name: "prod"}, {ID: "qa", Name: "qa"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Listed = %+v, %v; want %+v", got, err, want)
	}
}
