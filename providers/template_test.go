package providers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/spec"
)

func vars(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok && v != ""
	}
}

func TestSubstitute(t *testing.T) {
	v := vars(map[string]string{"host": "ghe.example.invalid", "target": `a"b\c`, "n": "0", "glob": "a*b?c|d"})
	tests := []struct{ path, want string }{
		{"plain.path", "plain.path"},
		{"${host}.user", `ghe\.example\.invalid.user`},
		{"${glob}.x", `a\*b\?c\|d.x`},
		{"Profiles.${n}.Resource", "Profiles.0.Resource"},
		{`Profiles.#(Name=="${target}").Resource`, `Profiles.#(Name=="a\"b\\c").Resource`},
		{`Profiles.#(Name=="${host}").Resource`, `Profiles.#(Name=="ghe.example.invalid").Resource`},
		{`a\"${host}`, `a\"ghe\.example\.invalid`},
		{"${missing}.x", ".x"},
		{`a\${host}.${n}`, `a\${host}.0`}, // an escaped $ is no reference
	}
	for _, tt := range tests {
		if got := substitute(tt.path, v); got != tt.want {
			t.Errorf("substitute(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestWindowsPaths expands the built-in specs' Windows templates (on any host: the paths are not
// opened, only built).
func TestWindowsPaths(t *testing.T) {
	env := map[string]string{
		"USERPROFILE":  `C:\Users\al`,
		"APPDATA":      `C:\Users\al\AppData\Roaming`,
		"LOCALAPPDATA": `C:\Users\al\AppData\Local`,
	}
	step := func(file, windows string) *spec.Step {
		return &spec.Step{File: spec.Strings{file}, Windows: spec.Strings{windows}, Format: "json"}
	}
	tests := []struct {
		name string
		st   *spec.Step
		env  map[string]string
		want string
	}{
		{"az", step("${AZURE_CONFIG_DIR:-~/.azure}/azureProfile.json", `${AZURE_CONFIG_DIR:-%USERPROFILE%\.azure}\azureProfile.json`),
			env, `C:\Users\al\.azure\azureProfile.json`},
		{"az with AZURE_CONFIG_DIR", step("${AZURE_CONFIG_DIR:-~/.azure}/azureProfile.json", `${AZURE_CONFIG_DIR:-%USERPROFILE%\.azure}\azureProfile.json`),
			map[string]string{"AZURE_CONFIG_DIR": `D:\az`}, `D:\az\azureProfile.json`},
		{"pac, names in mixed case", step("x", `%LocalAppData%\Microsoft\PowerAppsCli\authprofiles_v2.json`),
			env, `C:\Users\al\AppData\Local\Microsoft\PowerAppsCli\authprofiles_v2.json`},
		{"gh", step("x", `${GH_CONFIG_DIR:-%APPDATA%\GitHub CLI}\hosts.yml`),
			env, `C:\Users\al\AppData\Roaming\GitHub CLI\hosts.yml`},
	}
	for _, tt := range tests {
		in := &spec.Input{System: paths.Env{OS: "windows"}, Home: `C:\Users\al`, Env: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }}
		x := &run{in: in}
		got, err := x.paths(tt.st)
		if err != nil || len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: paths = %q, want %q", tt.name, got, tt.want)
		}
	}
	// KUBECONFIG is split with ; on Windows.
	x := &run{in: &spec.Input{System: paths.Env{OS: "windows"}}, vars: map[string]string{"kubeconfig": `C:\k\a;C:\k\b;;C:\k\a`}}
	got, err := x.paths(&spec.Step{File: spec.Strings{"${kubeconfig}"}, List: true})
	if err != nil || len(got) != 2 || got[0] != `C:\k\a` || got[1] != `C:\k\b` {
		t.Errorf("windows list paths = %q", got)
	}
}

// TestEveryFormatReads keeps the formats a spec may name (spec.Formats, which the provider
// checks accept) and the formats a state file is turned into JSON from (codec.ToJSON) in step:
// an empty file of every format reads, as nothing.
func TestEveryFormatReads(t *testing.T) {
	for _, f := range spec.Formats() {
		path := filepath.Join(testenv.TempDir(t), "state")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, exists, err := readStateOnce(path, f, nil); err != nil || !exists {
			t.Errorf("format %s: exists %v, %v", f, exists, err)
		}
	}
}
