package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/suite"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

// TestStarterExamples uncomments the examples of rules and tests that `ctxguard init` writes
// commented out, and checks that they load as written and that their tests pass: an example a
// user copies must work.
func TestStarterExamples(t *testing.T) {
	out := starterPolicy("x", nil, "")
	var lines []string
	started := false
	for _, l := range strings.Split(string(out), "\n") {
		started = started || l == "# rules:"
		if started && (l == "# rules:" || l == "# tests:" || strings.HasPrefix(l, "#   ")) {
			l = strings.TrimPrefix(l, "# ")
		}
		lines = append(lines, l)
	}
	dir := testenv.TempDir(t)
	file := filepath.Join(dir, ".ctxguard.yaml")
	data := []byte(strings.Join(lines, "\n"))
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := suite.Policy(data, file, policy.Project, catalog.New().Names())
	if err != nil {
		t.Fatalf("the starter's examples do not load: %v\n%s", err, data)
	}
	if len(cases) < 2 || len(cases[0].Policy.Rules) != 7 {
		t.Fatalf("%d tests and %d rules in the starter's examples, want 2 and 7", len(cases), len(cases[0].Policy.Rules))
	}
	home := testenv.TempDir(t)
	env := paths.Env{Home: home, OS: "linux", Lookup: func(k string) (string, bool) {
		if k == "CTXGUARD_MANAGED_POLICY" {
			return filepath.Join(home, "none"), true
		}
		return "", false
	}}
	for _, c := range cases {
		if r := suite.Run(c, env); !r.Passed() {
			t.Errorf("starter test at line %d (%s): %v", c.Line, c.What, r.Problems)
		}
	}
}
