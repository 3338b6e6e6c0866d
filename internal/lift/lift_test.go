package lift

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

var t0 = time.Date(2026, 12, 4, 15, 0, 0, 0, time.UTC)

func TestCovers(t *testing.T) {
	for _, tt := range []struct {
		l             Lift
		rule, session string
		at            time.Time
		want          bool
	}{
		{Lift{Rule: "az.destructive.group-delete", Until: t0.Add(time.Minute)}, "az.destructive.group-delete", "s", t0, true},
		{Lift{Rule: "az.destructive.group-delete", Until: t0.Add(time.Minute)}, "az.destructive.vm-delete", "s", t0, false},
		{Lift{Rule: "az.destructive.group-delete", Until: t0.Add(time.Minute)}, "az.destructive.group-delete", "s", t0.Add(time.Minute), false},
		{Lift{Rule: rules.RuleDestructive, Until: t0.Add(time.Minute)}, "kubectl.destructive.delete", "", t0, true},
		{Lift{Rule: rules.RuleDestructive, Until: t0.Add(time.Minute)}, "user.project.1", "", t0, false},
		{Lift{Rule: rules.RuleDestructive, Until: t0.Add(time.Minute)}, "self.policy-write", "", t0, false},
		{Lift{Rule: "no-prod", Session: "a", Until: t0.Add(time.Minute)}, "no-prod", "a", t0, true},
		{Lift{Rule: "no-prod", Session: "a", Until: t0.Add(time.Minute)}, "no-prod", "b", t0, false},
		{Lift{Rule: "no-prod", Session: "a", Until: t0.Add(time.Minute)}, "no-prod", "", t0, false},
	} {
		if got := tt.l.Covers(tt.rule, tt.session, tt.at); got != tt.want {
			t.Errorf("%+v.Covers(%s, %q, %v) = %v, want %v", tt.l, tt.rule, tt.session, tt.at, got, tt.want)
		}
	}
}

func TestUpdateAndLoad(t *testing.T) {
	path := filepath.Join(testenv.TempDir(t), "state", "ctxguard", "lifts.json")
	if l, note := Load(path); l != nil || note != "" {
		t.Fatalf("no file: %v, %q", l, note)
	}
	add := func(l Lift) func([]Lift) []Lift { return func(ls []Lift) []Lift { return append(ls, l) } }
	if _, err := Update(path, t0, add(Lift{Rule: "a", Until: t0.Add(time.Minute)})); err != nil {
		t.Fatal(err)
	}
	// Two minutes on, a's lift has expired and is dropped from the file.
	got, err := Update(path, t0.Add(2*time.Minute), add(Lift{Rule: "b", Until: t0.Add(time.Hour), Reason: "deploy"}))
	if err != nil || len(got) != 1 || got[0].Rule != "b" {
		t.Fatalf("Update = %v, %v; want b alone", got, err)
	}
	l, note := Load(path)
	if note != "" || len(l) != 1 || l[0].Rule != "b" || l[0].Reason != "deploy" {
		t.Errorf("Load = %v, %q", l, note)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
	}
}

// TestUpdateConcurrent: lifts granted at the same moment are all kept.
func TestUpdateConcurrent(t *testing.T) {
	path := filepath.Join(testenv.TempDir(t), "lifts.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, err := Update(path, t0, func(ls []Lift) []Lift {
				return append(ls, Lift{Rule: string(rune('a' + i)), Until: t0.Add(time.Hour)})
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if l, note := Load(path); len(l) != 20 || note != "" {
		t.Errorf("%d lifts (%q), want 20", len(l), note)
	}
}

// TestLoadIgnores: a lift file that is corrupt, or that someone else could have written, gives
// no lift and a note that says why.
func TestLoadIgnores(t *testing.T) {
	good := `{"version": 1, "lifts": [{"rule": "a", "until": "2999-01-01T00:00:00Z"}]}`
	for _, tt := range []struct {
		name, content string
		mode          os.FileMode
		setup         func(t *testing.T, path string)
		want          string
		unixOnly      bool
	}{
		{name: "corrupt", content: `{"version": 1, "lifts": [`, mode: 0o600, want: "unexpected end of JSON input"},
		{name: "another version", content: `{"version": 2, "lifts": []}`, mode: 0o600, want: "version 2, want 1"},
		{name: "world-writable", content: good, mode: 0o666, want: "writable by others (mode 0666)", unixOnly: true},
		{name: "group-writable", content: good, mode: 0o620, want: "writable by others (mode 0620)", unixOnly: true},
		{name: "a symlink", content: good, mode: 0o600, want: "it is a symlink", setup: func(t *testing.T, path string) {
			real := path + ".real"
			if err := os.Rename(path, real); err != nil {
				t.Fatal(err)
			}
			testenv.Symlink(t, real, path)
		}},
		{name: "another user's", content: good, mode: 0o600, want: "belongs to user 65534, not to you", unixOnly: true, setup: func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a file away")
			}
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.unixOnly && runtime.GOOS == "windows" {
				t.Skip("no permission bits or owners on Windows")
			}
			path := filepath.Join(testenv.TempDir(t), "lifts.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, path)
			}
			l, note := Load(path)
			if l != nil || !strings.Contains(note, tt.want) || !strings.Contains(note, "is ignored") {
				t.Errorf("Load = %v, %q; want no lift and a note with %q", l, note, tt.want)
			}
		})
	}
}
