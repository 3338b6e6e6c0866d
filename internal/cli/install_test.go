package cli

import (
	"encoding/json"
	"testing"

	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/hookfile"
)

// TestInstallOverOlder installs, for every harness with a settings file, over the entry an older
// ctxguard wrote: another matcher and timeout (Codex's was ^Bash$ before apply_patch was
// guarded). The entry is found by the program it runs, not by what changed, so the install
// replaces it: the file comes out as a fresh install writes it, with one entry per event. So it
// does for a binary that is not named ctxguard (CTXGUARD_SELF, a packager's name), found by its
// path.
func TestInstallOverOlder(t *testing.T) {
	for _, self := range []string{"/opt/ctxguard/bin/ctxguard", "/opt/ctxguard/bin/ctxguard-2.1"} {
		for _, s := range harness.Setups() {
			if s.Script != nil || s.Entries == nil {
				continue
			}
			t.Run(s.Harness+" "+self, func(t *testing.T) {
				o := harness.Options{GOOS: "linux"}
				file := "hooks.json"
				fresh, _, err := wired("install", s, file, nil, false, self, o, false)
				if err != nil {
					t.Fatal(err)
				}
				older := aged(t, fresh)
				got, _, err := wired("install", s, file, older, true, self, o, false)
				if err != nil {
					t.Fatal(err)
				}
				if !hookfile.Same(got, fresh) {
					t.Errorf("installing over\n%s\ngave\n%s\nwant\n%s", older, got, fresh)
				}
				layout := hookfile.Layout{Nested: s.Nested, Events: s.Events, Bare: s.Bare, Self: self}
				hooks, err := hookfile.Find(got, file, layout)
				if err != nil {
					t.Fatal(err)
				}
				if want := len(s.Entries(self, o)); len(hooks) != want {
					t.Errorf("%d ctxguard entries after installing over an older one, want %d:\n%s", len(hooks), want, got)
				}
				removed, _, err := wired("uninstall", s, file, got, true, self, o, false)
				if err != nil {
					t.Fatal(err)
				}
				if hooks, _ := hookfile.Find(removed, file, layout); len(hooks) != 0 {
					t.Errorf("uninstall left %d entries:\n%s", len(hooks), removed)
				}
			})
		}
	}
}

// aged is a settings file as an older install wrote it: every matcher, timeout and flag changed.
func aged(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	changed := false
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "matcher":
					x[k], changed = "^Bash$", true
				case "timeout":
					x[k], changed = 5, true
				default:
					if b, ok := e.(bool); ok {
						x[k], changed = !b, true
					}
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if !changed {
		t.Fatalf("nothing to age in\n%s", data)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
