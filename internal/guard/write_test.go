package guard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

// load parses a policy as the project layer of dir.
func load(t *testing.T, dir, yaml string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(yaml), filepath.Join(dir, ".ctxguard.yaml"), policy.Project, []string{"az", "kubectl"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestContentRules runs a content rule on what file tools write, an edit being checked by the
// lines it leaves in the file.
func TestContentRules(t *testing.T) {
	env, _ := machine(t)
	dir := testenv.TempDir(t)
	bicep := filepath.Join(dir, "main.bicep")
	other := filepath.Join(dir, "other.bicep")
	write := func(f, s string) {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(bicep, "resource s 'Microsoft.Storage/storageAccounts@2023-01-01' = {\n  properties: {\n    publicNetworkAccess: 'Disabled'\n    minimumTlsVersion: 'TLS1_0'\n  }\n}\n")
	write(other, "publicNetworkAccess: 'Enabled'\nname: 'x'\n")
	pol := load(t, dir, "rules:\n  - id: public\n    path: '*.bicep'\n    content: \"publicNetworkAccess:\\\\s*'Enabled'\"\n    decision: deny\n")
	tests := []struct {
		name    string
		tool    string
		path    string
		changes []rules.Change
		want    rules.Verdict
	}{
		{"an edit that only turns Disabled into Enabled", "Edit", bicep, []rules.Change{{Old: "'Disabled'", New: "'Enabled'"}}, rules.VerdictDeny},
		{"an edit elsewhere in a file that already has it", "Edit", other, []rules.Change{{Old: "'x'", New: "'y'"}}, rules.VerdictAllow},
		{"an edit whose old text is not there: its new text", "Edit", bicep, []rules.Change{{Old: "nope", New: "publicNetworkAccess: 'Enabled'"}}, rules.VerdictDeny},
		{"every occurrence", "Edit", other, []rules.Change{{Old: "'", New: "\"", All: true}}, rules.VerdictAllow},
		{"edits in order: the second sees the first", "MultiEdit", bicep, []rules.Change{{Old: "publicNetworkAccess", New: "access"}, {Old: "access: 'Disabled'", New: "publicNetworkAccess: 'Enabled'"}}, rules.VerdictDeny},
		{"a whole file", "Write", filepath.Join(dir, "new.bicep"), []rules.Change{{New: "x\n  publicNetworkAccess:   'Enabled'\n"}}, rules.VerdictDeny},
		{"a file that does not exist yet", "Edit", filepath.Join(dir, "absent.bicep"), []rules.Change{{Old: "a", New: "publicNetworkAccess: 'Enabled'"}}, rules.VerdictDeny},
		{"another kind of file", "Write", filepath.Join(dir, "notes.md"), []rules.Change{{New: "publicNetworkAccess: 'Enabled'"}}, rules.VerdictAllow},
		{"a relative path, from the cwd", "Write", "main.bicep", []rules.Change{{New: "publicNetworkAccess: 'Enabled'"}}, rules.VerdictDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := rules.Request{Harness: "claude", Tool: tt.tool, Paths: []string{tt.path}, Changes: tt.changes, Cwd: dir}
			o := guard.DecideWith(req, env, guard.Override{Policy: pol})
			if o.Verdict != tt.want {
				t.Errorf("%s: %v %s (%s), want %v", tt.name, o.Verdict, o.Rule, o.Reason, tt.want)
			}
		})
	}
	b, _ := os.ReadFile(bicep)
	if !strings.Contains(string(b), "'Disabled'") {
		t.Error("checking an edit changed the file")
	}
}

// TestFacts checks the facts a decision gives the conditions: the request's, the clock and the
// machine's, and faked ones.
func TestFacts(t *testing.T) {
	env, repo := machine(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	pol := load(t, repo, "rules:\n  - match: az group create\n    when: {host: '"+host+"'}\n    decision: deny\n"+
		"  - match: az group update\n    when: {dates: {from: 2026-12-20, to: 2027-01-04, tz: UTC}}\n    decision: deny\n"+
		"  - match: az group export\n    when: {unattended: true, agent: subagent}\n    decision: ask\n")
	decide := func(req rules.Request, f *rules.Facts) guard.Outcome {
		req.Cwd = repo
		return guard.DecideWith(req, env, guard.Override{Policy: pol, Facts: f})
	}
	if o := decide(rules.Request{Command: "az group create -n x"}, nil); o.Verdict != rules.VerdictDeny || o.Facts["host"] != host {
		t.Errorf("the machine's host name: %v %s, facts %v", o.Verdict, o.Reason, o.Facts)
	}
	if o := decide(rules.Request{Command: "az group create -n x"}, &rules.Facts{Host: func() (string, error) { return "elsewhere", nil }}); o.Verdict == rules.VerdictDeny {
		t.Errorf("a faked host name: %v %s", o.Verdict, o.Reason)
	}
	freeze := &rules.Facts{Now: time.Date(2026, 12, 24, 10, 0, 0, 0, time.UTC)}
	if o := decide(rules.Request{Command: "az group update -n x"}, freeze); o.Verdict != rules.VerdictDeny {
		t.Errorf("inside the freeze: %v", o.Verdict)
	}
	yes, no := true, false
	if o := decide(rules.Request{Command: "az group export -n x", Harness: "claude", Mode: "dontAsk", Unattended: &yes, Subagent: &yes}, nil); o.Verdict != rules.VerdictAsk {
		t.Errorf("an unattended subagent: %v", o.Verdict)
	}
	if o := decide(rules.Request{Command: "az group export -n x", Harness: "claude", Mode: "dontAsk", Unattended: &yes, Subagent: &no}, nil); o.Verdict == rules.VerdictAsk {
		t.Errorf("the main agent: %v %s", o.Verdict, o.Reason)
	}
}

// BenchmarkDecideConditions is BenchmarkDecide's one-call and seven-call lines under the same
// policy with rules that use every condition (testdata/machine/conditions), the machine's
// host name and groups read as the hook reads them; compare with BenchmarkDecide.
func BenchmarkDecideConditions(b *testing.B) {
	env, repo := machine(b)
	dir := filepath.Join(filepath.Dir(repo), "conditions")
	for _, n := range []int{1, 7} {
		req := rules.Request{Command: line(n), Cwd: dir, Harness: "claude", Mode: "default", Tool: "Bash"}
		no := false
		req.Unattended, req.Subagent = &no, &no
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				if o := guard.Decide(req, env); o.Verdict == rules.VerdictDeny || n == 1 && o.Rule != "every-condition" {
					b.Fatal(o.Rule, o.Reason)
				}
			}
		})
	}
}
