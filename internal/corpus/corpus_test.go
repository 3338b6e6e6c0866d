package corpus_test

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/corpus"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// The shares this package has reached, in per mille: a change that lowers either fails.
const (
	minDangerousBlocked = 1000
	minBenignAllowed    = 955
)

// guarded are the CLIs ctxguard has built-in providers for.
var guarded = []string{"az", "kubectl", "gcloud", "gh", "terraform", "pac"}

// policy allows every context of every provider, so that only the destructive rules and the
// parser decide, and makes every destructive entry deny.
const policy = `version: 1
contexts:
  az: {allow: ["*"]}
  kubectl: {allow: ["*"]}
  gcloud: {allow: ["*"]}
  gh: {allow: ["*"]}
  terraform: {allow: ["*"]}
  pac: {allow: ["*"]}
destructive: deny
`

// machine is a throwaway home holding the state of every built-in provider (a copy of
// internal/guard/testdata/machine/home) and the policy above, and a repository folder in it.
func machine(t *testing.T) (paths.Env, string) {
	home := testenv.TempDir(t)
	src := filepath.Join("..", "guard", "testdata", "machine", "home")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(home, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(home, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config", "ctxguard"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "ctxguard", "policy.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(home, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"CTXGUARD_MANAGED_POLICY": filepath.Join(home, "no-managed-policy.yaml"),
		"XDG_STATE_HOME":          filepath.Join(home, ".local", "state"),
	}
	return testenv.Home(home, vars), repo
}

// callsGuarded reports whether the line names a guarded CLI: by the corpus's own cli field, or
// because the parser finds a call of one anywhere in it (behind a pipe, in `bash -c`, …).
func callsGuarded(l corpus.Line) bool {
	if slices.Contains(guarded, l.CLI) {
		return true
	}
	calls, _ := shell.Parse(l.Command)
	for _, c := range calls {
		if slices.Contains(guarded, c.Name) {
			return true
		}
	}
	return false
}

// TestPeerCorpus scores the lines of the peer corpus that call a guarded CLI and are labelled
// dangerous or benign: the share of dangerous lines denied or asked, and of benign lines not
// blocked (a rewrite only binds the line, so it counts as allowed). Lines that only hold under a
// source's env toggle or temp cwd are left out, as the corpus README advises. Run with -v for
// every disagreement.
func TestPeerCorpus(t *testing.T) {
	dir, err := corpus.Dir()
	if err != nil {
		t.Fatal(err)
	}
	env, repo := machine(t)
	var dangerous, blocked, benign, allowed int
	perFile := map[string]*[4]int{} // dangerous, blocked, benign, allowed
	lines, err := corpus.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l.Expect != "dangerous" && l.Expect != "benign" || l.Mode != "" || l.CwdDependent || !callsGuarded(l) {
			continue
		}
		o := guard.Decide(rules.Request{Command: l.Command, Cwd: repo}, env)
		stops := o.Verdict == rules.VerdictDeny || o.Verdict == rules.VerdictAsk
		where := fmt.Sprintf("%s:%d", l.File, l.N)
		f := perFile[l.File]
		if f == nil {
			f = new([4]int)
			perFile[l.File] = f
		}
		switch l.Expect {
		case "dangerous":
			dangerous++
			f[0]++
			if stops {
				blocked++
				f[1]++
			} else {
				t.Logf("%s: dangerous, but %s: %q", where, o.Verdict, l.Command)
			}
		case "benign":
			benign++
			f[2]++
			if !stops {
				allowed++
				f[3]++
			} else {
				t.Logf("%s: benign, but %s (%s): %q", where, o.Verdict, firstLine(o.Reason), l.Command)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(perFile)) {
		f := perFile[name]
		t.Logf("%s: dangerous denied or asked %d/%d, benign allowed %d/%d", name, f[1], f[0], f[3], f[2])
	}
	d, b := permille(blocked, dangerous), permille(allowed, benign)
	t.Logf("dangerous denied or asked: %d/%d (%.1f%%); benign allowed: %d/%d (%.1f%%)",
		blocked, dangerous, float64(d)/10, allowed, benign, float64(b)/10)
	if d < minDangerousBlocked {
		t.Errorf("dangerous lines denied or asked: %d‰, want at least %d‰ (run with -v for the lines)", d, minDangerousBlocked)
	}
	if b < minBenignAllowed {
		t.Errorf("benign lines allowed: %d‰, want at least %d‰ (run with -v for the lines)", b, minBenignAllowed)
	}
}

func permille(n, of int) int {
	if of == 0 {
		return 1000
	}
	return n * 1000 / of
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
