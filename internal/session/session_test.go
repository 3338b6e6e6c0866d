package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T) (*Store, *time.Time) {
	now := t0
	return &Store{Dir: filepath.Join(testenv.TempDir(t), "ctxguard", "sessions"), Now: func() time.Time { return now }}, &now
}

func az(value, scope string) rules.Switched {
	return rules.Switched{Provider: "az", Value: value, From: "az account set -s " + value, Scope: scope}
}

func TestRememberRecall(t *testing.T) {
	s, now := newStore(t)
	if got, err := s.Recall("s1", "az"); err != nil || got != nil {
		t.Fatalf("Recall before any switch = %v, %v; want nothing", got, err)
	}
	must(t, s.Remember("s1", []rules.Switched{az("dev", "A"), {Provider: "kubectl", Unknown: true, From: "az aks get-credentials", Scope: "K"}, az("prod", "A")}))
	*now = now.Add(time.Minute)
	must(t, s.Remember("s1", []rules.Switched{az("qa", "B")}))

	got, err := s.Recall("s1", "az")
	must(t, err)
	want := []Entry{{Switched: az("qa", "B"), At: t0.Add(time.Minute)}, {Switched: az("prod", "A"), At: t0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Recall az (-want +got):\n%s", diff)
	}
	if sw, ok := Find(got, "A"); !ok || sw.Value != "prod" {
		t.Errorf("Find(A) = %v, %v; want the last switch of that scope, prod", sw, ok)
	}
	if _, ok := Find(got, "C"); ok {
		t.Errorf("Find(C) found a switch of another scope")
	}
	k, err := s.Recall("s1", "kubectl")
	must(t, err)
	if len(k) != 1 || !k[0].Unknown {
		t.Errorf("Recall kubectl = %v, want the unknown switch", k)
	}
}

func TestSessionsAreApart(t *testing.T) {
	s, _ := newStore(t)
	must(t, s.Remember("session-a", []rules.Switched{az("dev", "A")}))
	must(t, s.Remember("session-b", []rules.Switched{az("prod", "A")}))
	for id, want := range map[string]string{"session-a": "dev", "session-b": "prod", "session-c": ""} {
		got, err := s.Recall(id, "az")
		must(t, err)
		sw, _ := Find(got, "A")
		if sw.Value != want {
			t.Errorf("%s remembers %q, want %q", id, sw.Value, want)
		}
	}
	// A session id is never a path: ids that look like one land in the directory, hashed.
	must(t, s.Remember("../../etc/passwd", []rules.Switched{az("dev", "A")}))
	ents, err := os.ReadDir(s.Dir)
	must(t, err)
	for _, e := range ents {
		if strings.Contains(e.Name(), "passwd") || strings.Contains(e.Name(), "session-") {
			t.Errorf("file %s names the session id", e.Name())
		}
	}
	if got, _ := s.Recall("", "az"); got != nil {
		t.Errorf("the empty session id remembers %v", got)
	}
	must(t, s.Remember("", []rules.Switched{az("dev", "A")}))
}

func TestExpiry(t *testing.T) {
	s, now := newStore(t)
	must(t, s.Remember("s", []rules.Switched{az("dev", "A")}))
	*now = t0.Add(TTL - time.Minute)
	must(t, s.Remember("s", []rules.Switched{az("prod", "B")}))
	*now = t0.Add(TTL + time.Minute)
	got, err := s.Recall("s", "az")
	must(t, err)
	if len(got) != 1 || got[0].Value != "prod" {
		t.Errorf("after a week, Recall = %v; want only the newer switch", got)
	}
}

func TestPrune(t *testing.T) {
	s, now := newStore(t)
	must(t, s.Remember("old", []rules.Switched{az("dev", "A")}))
	old := s.file("old", "az")
	stale := filepath.Join(s.Dir, file.TempPrefix+"123")
	must(t, os.WriteFile(stale, []byte("{"), 0o600))
	must(t, os.Chtimes(old, t0, t0))
	must(t, os.Chtimes(stale, t0, t0))

	*now = t0.Add(TTL + time.Hour)
	must(t, s.Remember("new", []rules.Switched{az("dev", "A")}))
	for _, f := range []string{old, stale} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s was not pruned (%v)", filepath.Base(f), err)
		}
	}
	if _, err := os.Stat(s.file("new", "az")); err != nil {
		t.Errorf("the new file is gone: %v", err)
	}
}

func TestModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no mode bits: the folder's ACL, inherited from the user's profile, keeps other users out")
	}
	s, _ := newStore(t)
	must(t, s.Remember("s", []rules.Switched{az("dev", "A")}))
	for _, c := range []struct {
		path string
		want os.FileMode
	}{{filepath.Dir(s.Dir), 0o700}, {s.Dir, 0o700}, {s.file("s", "az"), 0o600}} {
		fi, err := os.Stat(c.path)
		must(t, err)
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s has mode %v, want %v", c.path, got, c.want)
		}
	}
}

func TestBadFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *Store, f string)
		want  string // a substring of the error
	}{
		{"not JSON", func(t *testing.T, s *Store, f string) { os.WriteFile(f, []byte("{not json"), 0o600) }, "invalid character"},
		{"an unknown field", func(t *testing.T, s *Store, f string) {
			os.WriteFile(f, []byte(`{"version":1,"provider":"az","entries":[],"extra":1}`), 0o600)
		}, "unknown field"},
		{"another version", func(t *testing.T, s *Store, f string) {
			os.WriteFile(f, []byte(`{"version":2,"provider":"az","entries":[]}`), 0o600)
		}, "version 2"},
		{"another provider's file", func(t *testing.T, s *Store, f string) {
			os.WriteFile(f, []byte(`{"version":1,"provider":"kubectl","entries":[]}`), 0o600)
		}, `"kubectl"`},
		{"a directory", func(t *testing.T, s *Store, f string) { os.Mkdir(f, 0o700) }, "not a regular file"},
		{"a symlink", func(t *testing.T, s *Store, f string) {
			target := filepath.Join(filepath.Dir(s.Dir), "elsewhere.json")
			os.WriteFile(target, []byte(`{"version":1,"provider":"az","entries":[]}`), 0o600)
			testenv.Symlink(t, target, f)
		}, "not a regular file"},
		{"too large", func(t *testing.T, s *Store, f string) { os.WriteFile(f, make([]byte, maxFile+1), 0o600) }, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t)
			must(t, os.MkdirAll(s.Dir, 0o700))
			f := s.file("s", "az")
			tt.setup(t, s, f)
			got, err := s.Recall("s", "az")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Recall = %v, %v; want an error with %q", got, err, tt.want)
			}
			// A write replaces a file it cannot read (except a directory, which it cannot).
			if tt.name == "a directory" {
				return
			}
			must(t, s.Remember("s", []rules.Switched{az("dev", "A")}))
			if got, err := s.Recall("s", "az"); err != nil || len(got) != 1 {
				t.Errorf("after a write, Recall = %v, %v", got, err)
			}
		})
	}
}

// TestConcurrent runs many writers and readers of one session at once, as parallel tool calls
// do: a reader must never see a torn file, and every provider's last write must survive.
func TestConcurrent(t *testing.T) {
	s := &Store{Dir: filepath.Join(testenv.TempDir(t), "ctxguard", "sessions")}
	providers := []string{"az", "kubectl", "gcloud", "terraform"}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	// Wine 8 cannot rename over a file that another handle has open, whatever its sharing (it
	// lacks FILE_RENAME_POSIX_SEMANTICS, which file.Replace asks for): readers in a loop then keep
	// a writer out for longer than any bounded retry. Windows 10 and later replace the file under
	// its readers, so there the readers run too.
	// The same holds for two writers renaming over one file at once: under Wine each provider's
	// file has one writer, so the test still checks that writers of one session's files do not
	// lose or tear each other's entries.
	readers, writers, spread := !testenv.Wine(), 8, 1
	if testenv.Wine() {
		writers, spread = len(providers), 0
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				p := providers[(w+i*spread)%len(providers)]
				if err := s.Remember("s", []rules.Switched{{Provider: p, Value: fmt.Sprint(w, i), Scope: "x"}}); err != nil {
					errs <- err
				}
			}
		}()
		if !readers {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if _, err := s.Recall("s", providers[i%len(providers)]); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, p := range providers {
		got, err := s.Recall("s", p)
		if err != nil || len(got) != 1 {
			t.Errorf("%s: Recall = %v, %v; want one entry", p, got, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
