package spec

import (
	"slices"
	"testing"
)

func vars(m map[string]string) func(string) (string, bool) {
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
		got, ok, err := Expand(tt.t, env, "/home/u", tt.percent)
		if (err != nil) != tt.err || ok != tt.ok || got != tt.want {
			t.Errorf("Expand(%q, percent=%v) = %q, %v, %v; want %q, %v, err %v", tt.t, tt.percent, got, ok, err, tt.want, tt.ok, tt.err)
		}
	}
	if _, ok, _ := Expand("~/.azure", env, "", false); ok {
		t.Errorf("Expand(~) without a home directory is ok")
	}
}

func TestPathRefs(t *testing.T) {
	refs, err := PathRefs(`a.${x}.#(Name=="${target}").\${not}.b\"${y}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []PathRef{{"x", 2, 6, false}, {"target", 16, 25, true}, {"y", 39, 43, false}}
	if !slices.Equal(refs, want) {
		t.Errorf("PathRefs = %+v, want %+v", refs, want)
	}
	for _, bad := range []string{"a.${x", "a.${1x}", "a.${}"} {
		if _, err := PathRefs(bad); err == nil {
			t.Errorf("PathRefs(%q) is not an error", bad)
		}
	}
	if names, err := Names("${A:-${B:-~/x}}/%LOCALAPPDATA%/${A}"); err != nil || !slices.Equal(names, []string{"A", "B", "LOCALAPPDATA"}) {
		t.Errorf("Names = %q, %v", names, err)
	}
}
