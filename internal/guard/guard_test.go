package guard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

// machine returns the environment of testdata/machine: a repository with a policy for all six
// built-in providers and each one's state, as the real CLIs write it.
func machine(t testing.TB) (paths.Env, string) {
	root, err := filepath.Abs(filepath.Join("testdata", "machine"))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	vars := map[string]string{
		"CTXGUARD_MANAGED_POLICY": filepath.Join(root, "managed.yaml"),
		"XDG_STATE_HOME":          testenv.TempDir(t),
	}
	return testenv.Home(home, vars), filepath.Join(root, "repo")
}

func TestMachine(t *testing.T) {
	env, repo := machine(t)
	tests := []struct{ line, verdict, command string }{
		{"az group list", "rewrite", "az group list --subscription 11111111-1111-4111-8111-111111111111"},
		{"kubectl get pods", "rewrite", "kubectl get pods --context dev"},
		{"gcloud compute instances list", "rewrite", "gcloud compute instances list --project contoso-dev-123456"},
		{"terraform plan", "rewrite", "TF_WORKSPACE=staging terraform plan"},
		{"gh pr list", "allow", "gh pr list"},
		{"pac solution list", "allow", "pac solution list"},
		{"gh auth switch -u alice-example", "deny", ""},
		{"ls -la && go test ./...", "allow", "ls -la && go test ./..."},
	}
	for _, tt := range tests {
		o := guard.Decide(rules.Request{Command: tt.line, Cwd: repo}, env)
		if o.Verdict.String() != tt.verdict || tt.command != "" && o.Command != tt.command {
			t.Errorf("%s: %s %q (%s), want %s %q", tt.line, o.Verdict, o.Command, o.Reason, tt.verdict, tt.command)
		}
	}
}

// line returns a command line of n guarded calls of every built-in provider, chained.
func line(n int) string {
	calls := []string{"az group list -o table", "kubectl get pods -n team-a", "gcloud compute instances list",
		"terraform plan", "gh pr list", "pac solution list", "echo done"}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = calls[i%len(calls)]
	}
	return strings.Join(parts, " && ")
}

// BenchmarkDecide measures the whole decision for one line, policy and state files included,
// as the hook makes it; the sizes show that the cost grows linearly with the line.
func BenchmarkDecide(b *testing.B) {
	env, repo := machine(b)
	for _, n := range []int{1, 7, 100, 1000} {
		req := rules.Request{Command: line(n), Cwd: repo}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if o := guard.Decide(req, env); o.Verdict == rules.VerdictDeny {
					b.Fatal(o.Reason)
				}
			}
		})
	}
	// One call of each provider beyond the first six (azd and pulumi look for their project file
	// upward, helm and oc read the kubeconfig, doctl's state is 2400 lines of YAML).
	req := rules.Request{Command: "aws s3 ls && docker ps && helm list && oc get pods && doctl compute droplet list && databricks clusters list && azd deploy && pulumi preview", Cwd: repo}
	b.Run("calls=8-new-providers", func(b *testing.B) {
		for b.Loop() {
			if o := guard.Decide(req, env); o.Verdict == rules.VerdictDeny {
				b.Fatal(o.Reason)
			}
		}
	})
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }
