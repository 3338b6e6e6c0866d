package guard_test

import (
	"testing"

	"github.com/ctxguard/ctxguard/internal/corpus"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// rewriteSeeds are lines that bind, switch and chain every built-in provider.
var rewriteSeeds = []string{
	"az group list", "kubectl get pods", "gcloud compute instances list", "terraform plan", "gh pr list",
	"pac solution list", "az group list -o table && kubectl get pods -n team-a | grep x",
	"az account set -s 11111111-1111-4111-8111-111111111111 && az vm list",
	"kubectl config use-context dev; kubectl delete pod x", "(cd sub && terraform apply)",
	"echo $(az group list) `kubectl get ns`", "sudo -E env X=1 kubectl get pods", "bash -c 'az group list'",
	"xargs -n1 kubectl get < names", "az group list --subscription=11111111-1111-4111-8111-111111111111",
	"TF_WORKSPACE=staging terraform plan", "kubectl --context dev get pods # comment", "az vm list 2>&1 >out",
	"gcloud config set project contoso-dev-123456 && gcloud run deploy", "az group delete -n rg --yes",
	line(7),
}

// FuzzBindTwice checks that a rewrite is a fixed point: the bound line, decided again, is not
// rewritten again and not denied, and it parses to the original calls plus the bindings. A
// binding that did not bind, or that lands where it changes what runs, shows up here.
func FuzzBindTwice(f *testing.F) {
	for _, s := range rewriteSeeds {
		f.Add(s)
	}
	commands, err := corpus.Commands()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range commands {
		f.Add(s)
	}
	env, repo := machine(f)
	f.Fuzz(func(t *testing.T, src string) {
		first := guard.Decide(rules.Request{Command: src, Cwd: repo}, env)
		if !first.Rewritten {
			return
		}
		if first.Verdict == rules.VerdictDeny {
			t.Fatalf("%q: denied, yet rewritten to %q", src, first.Command)
		}
		before, err := shell.Parse(src)
		if err != nil {
			t.Fatalf("%q was rewritten but does not parse: %v", src, err)
		}
		after, err := shell.Parse(first.Command)
		if err != nil {
			t.Fatalf("%q: the rewrite %q does not parse: %v", src, first.Command, err)
		}
		// The original calls, in order, are a subsequence of the rewritten line's (a binding may add
		// an env call in front of the call it binds).
		i := 0
		for _, c := range after {
			if i < len(before) && c.Name == before[i].Name && len(c.Args) >= len(before[i].Args) {
				i++
			}
		}
		if i < len(before) {
			t.Fatalf("%q: the rewrite %q lost or changed the call %q", src, first.Command, before[i].NameWord.Value)
		}
		second := guard.Decide(rules.Request{Command: first.Command, Cwd: repo}, env)
		if second.Verdict == rules.VerdictDeny {
			t.Fatalf("%q: the rewrite %q is denied: %s", src, first.Command, second.Reason)
		}
		if second.Rewritten && second.Command != first.Command {
			t.Fatalf("%q: rewritten to %q, which is rewritten again to %q", src, first.Command, second.Command)
		}
	})
}
