package guard_test

import (
	"path/filepath"
	"testing"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/rules"
)

// TestPowerShellMachine decides PowerShell lines on the machine of TestMachine: read with the
// PowerShell reader, quoted and rewritten as PowerShell.
func TestPowerShellMachine(t *testing.T) {
	env, repo := machine(t)
	tests := []struct{ line, verdict, rule, command string }{
		// A value that starts with a digit is quoted: PowerShell might read it as a number.
		{"az group list | ConvertFrom-Json", "rewrite", "az.rebind", "az group list --subscription '11111111-1111-4111-8111-111111111111' | ConvertFrom-Json"},
		{"& kubectl.exe get pods; gh pr list", "rewrite", "kubectl.bind", "& kubectl.exe get pods --context dev; gh pr list"},
		{"terraform plan", "deny", "terraform.bind-powershell", ""},
		{"$env:TF_WORKSPACE='staging'; terraform plan", "allow", "", ""},
		{"kubectl get pods --context $ctx", "ask", "kubectl.binding-dynamic", ""},
		{"Start-Process kubectl -ArgumentList get,pods", "ask", "parse.dynamic-command", ""},
		{"Write-Output 'kubectl delete ns prod' # kubectl delete ns prod", "allow", "", ""},
		{"kubectl get pods 'unterminated", "ask", "parse.dynamic-command", ""},
		{"Set-Content .ctxguard.yaml x", "deny", "self.policy-write", ""},
	}
	for _, tt := range tests {
		o := guard.Decide(rules.Request{Command: tt.line, Cwd: repo, Shell: rules.ShellPowerShell}, env)
		if o.Verdict.String() != tt.verdict || tt.rule != "" && o.Rule != tt.rule || tt.command != "" && o.Command != tt.command {
			t.Errorf("%s: %s %s %q (%s), want %s %s %q", tt.line, o.Verdict, o.Rule, o.Command, o.Reason, tt.verdict, tt.rule, tt.command)
		}
	}
}

// TestFileTool decides a file tool's writes: denied on ctxguard's own files, silent elsewhere.
func TestFileTool(t *testing.T) {
	env, repo := machine(t)
	for path, verdict := range map[string]string{
		filepath.Join(repo, ".ctxguard.yaml"):             "deny",
		".ctxguard.yaml":                                  "deny",
		filepath.Join(repo, ".claude", "settings.json"):   "deny",
		filepath.Join(env.Home, ".copilot", "hooks", "x"): "deny",
		filepath.Join(repo, "README.md"):                  "allow",
	} {
		o := guard.Decide(rules.Request{Tool: "Write", Paths: []string{path}, Cwd: repo}, env)
		if o.Verdict.String() != verdict {
			t.Errorf("Write %s: %s %s (%s), want %s", path, o.Verdict, o.Rule, o.Reason, verdict)
		}
	}
}
