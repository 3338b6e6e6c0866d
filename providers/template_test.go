package providers

import (
	"testing"
)

func vars(m map[string]string) lookupFunc {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok && v != ""
	}
}

func TestExpand(t *testing.T) {
	env := vars(map[string]string{
		"HOME_DIR": "/h", "XDG_CONFIG_HOME": "/xdg", "EMPTY": "", "LOCALAPPDATA": `C:\Users\al\AppData\Local`,
		"ProgramFiles(x86)": `C:\PF86`,
	})
	tests := []struct {
		t       string
		percent bool
		want    string
		ok      bool
		err     bool
	}{
		{t: "plain/path", want: "plain/path", ok: true},
		{t: "~/.azure/x", want: "/home/u/.azure/x", ok: true},
		{t: "~", want: "/home/u", ok: true},
		{t: `~\.azure`, want: `/home/u\.azure`, ok: true},
		{t: "~user/x", want: "~user/x", ok: true},
		{t: "a/~/b", want: "a/~/b", ok: true},
		{t: "${HOME_DIR}/x", want: "/h/x", ok: true},
		{t: "${AZURE_CONFIG_DIR:-~/.azure}/p.json", want: "/home/u/.azure/p.json", ok: true},
		{t: "${GH_CONFIG_DIR:-${XDG_CONFIG_HOME:-~/.config}/gh}/hosts.yml", want: "/xdg/gh/hosts.yml", ok: true},
		{t: "${GH_CONFIG_DIR:-${NOPE:-~/.config}/gh}/hosts.yml", want: "/home/u/.config/gh/hosts.yml", ok: true},
		{t: "${EMPTY:-d}", want: "d", ok: true},
		{t: "${EMPTY}/x", ok: false},
		{t: "${UNSET}/x", ok: false},
		{t: "${UNSET:-}/x", ok: false},
		{t: "${UNSET:-${ALSO_UNSET}}/x", ok: false},
		{t: "$HOME_DIR/x", want: "$HOME_DIR/x", ok: true},
		{t: "cost$", want: "cost$", ok: true},
		{t: `%LOCALAPPDATA%\Microsoft`, percent: true, want: `C:\Users\al\AppData\Local\Microsoft`, ok: true},
		{t: `%LOCALAPPDATA%\Microsoft`, want: `%LOCALAPPDATA%\Microsoft`, ok: true},
		{t: `%ProgramFiles(x86)%\x`, percent: true, want: `C:\PF86\x`, ok: true},
		{t: `%UNSET%\x`, percent: true, ok: false},
		{t: `100%`, percent: true, want: `100%`, ok: true},
		{t: `50% off 20%`, percent: true, want: `50% off 20%`, ok: true},
		{t: `${CLOUDSDK_CONFIG:-%LOCALAPPDATA%\gcloud}\active_config`, percent: true, want: `C:\Users\al\AppData\Local\gcloud\active_config`, ok: true},
		{t: "${UNCLOSED", err: true},
		{t: "${a-b}", err: true},
		{t: "${}", err: true},
		{t: "${1X}", err: true},
		{t: "${X:-${Y}", err: true},
	}
	for _, tt := range tests {
		got, ok, err := expand(tt.t, env, "/home/u", tt.percent)
		if (err != nil) != tt.err || ok != tt.ok || got != tt.want {
			t.Errorf("expand(%q, percent=%v) = %q, %v, %v; want %q, %v, err %v", tt.t, tt.percent, got, ok, err, tt.want, tt.ok, tt.err)
		}
	}
	if _, ok, _ := expand("~/.azure", env, "", false); ok {
		t.Errorf("expand(~) without a home directory is ok")
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
	step := func(file, windows string) *Step {
		return &Step{File: Paths{file}, Windows: Paths{windows}, Format: "json"}
	}
	tests := []struct {
		name string
		st   *Step
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
		in := &Input{OS: "windows", Home: `C:\Users\al`, Env: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }}
		x := &run{in: in}
		got, err := x.paths(tt.st)
		if err != nil || len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: paths = %q, want %q", tt.name, got, tt.want)
		}
	}
	// KUBECONFIG is split with ; on Windows.
	x := &run{in: &Input{OS: "windows"}, vars: map[string]string{"kubeconfig": `C:\k\a;C:\k\b;;C:\k\a`}}
	got, err := x.paths(&Step{File: Paths{"${kubeconfig}"}, List: true})
	if err != nil || len(got) != 2 || got[0] != `C:\k\a` || got[1] != `C:\k\b` {
		t.Errorf("windows list paths = %q", got)
	}
}
