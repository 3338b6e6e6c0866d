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
		keepsCalls(t, src, first.Command)
		second := guard.Decide(rules.Request{Command: first.Command, Cwd: repo}, env)
		if second.Verdict == rules.VerdictDeny {
			t.Fatalf("%q: the rewrite %q is denied: %s", src, first.Command, second.Reason)
		}
		if second.Rewritten && second.Command != first.Command {
			t.Fatalf("%q: rewritten to %q, which is rewritten again to %q", src, first.Command, second.Command)
		}
	})
}

// propagationSeeds are lines whose command words, arguments, strings and redirection targets
// come from values the line assigns: constant propagation decides them.
var propagationSeeds = []string{
	"a=az; $a group list", `c=(kubectl get pods); "${c[@]}"`, "${X:-az} group list", `set -- az group list; "$@"`,
	"read -r c <<<'az'; $c group list", "printf -v c '%s' kubectl; $c get pods", "declare -n r=v; v=az; $r group list",
	"t=AZ; ${t,,} group list", "x=xaz; ${x:1} group list", "c='az group list'; $c", "IFS=,; c='az,group,list'; $c",
	`x='az group delete -n rg --yes'; eval $x`, `bash -c '"$0" group list' az`, `sh -c '"$1" "$2"' _ kubectl get`,
	`f(){ az "$@"; }; f group list`, `f(){ "$@"; }; f kubectl get pods`, `f(){ local c=$1; shift; $c "$@"; }; f az vm list`,
	"echo 'az group list' > s.sh && bash s.sh", "cp ../bin/az ./x && ./x group list", "hash -p /bin/az x; x group list",
	"f=.ctxguard.yaml; echo x > $f", "for c in az; do $c group list; done", "{az,} group list", "e=echo; $e az group list",
	"c=$(echo az); $c group list", `cmd=az; bash -c "$cmd group list"`, `: ${c:=kubectl}; $c get pods`,
	"a=(x az); n=1; ${a[$n]} group list", `declare -A m=([k]=gcloud); ${m[k]} compute instances list`,
	"a=echo; for i in 1 2; do $a group list; a=az; done", "a=az; if test -f x; then a=ls; else $a group list; fi",
}

// FuzzPropagate checks the constant-propagation walker through the whole decision: the same line
// gets the same answer twice, and a rewritten line parses to the same calls as the original, each
// with its words, plus the bindings.
func FuzzPropagate(f *testing.F) {
	for _, s := range propagationSeeds {
		f.Add(s)
	}
	env, repo := machine(f)
	f.Fuzz(func(t *testing.T, src string) {
		req := rules.Request{Command: src, Cwd: repo}
		first, second := guard.Decide(req, env), guard.Decide(req, env)
		if first.Verdict != second.Verdict || first.Rule != second.Rule || first.Reason != second.Reason || first.Command != second.Command {
			t.Fatalf("%q: two answers: %v %s %q / %v %s %q", src, first.Verdict, first.Rule, first.Command, second.Verdict, second.Rule, second.Command)
		}
		if !first.Rewritten {
			return
		}
		keepsCalls(t, src, first.Command)
	})
}

// keepsCalls fails unless the rewrite of src parses to src's calls in order, each with its words:
// a binding adds words to a call, or an env call in front of the call it binds, nothing else.
func keepsCalls(t *testing.T, src, rewritten string) {
	t.Helper()
	before, err := shell.Parse(src)
	if err != nil {
		t.Fatalf("%q was rewritten but does not parse: %v", src, err)
	}
	after, err := shell.Parse(rewritten)
	if err != nil {
		t.Fatalf("%q: the rewrite %q does not parse: %v", src, rewritten, err)
	}
	i := 0
	for _, c := range after {
		if i < len(before) && c.Name == before[i].Name && subsequence(words(before[i]), words(c)) {
			i++
		}
	}
	if i < len(before) {
		t.Fatalf("%q: the rewrite %q lost or changed the call %q", src, rewritten, before[i].NameWord.Value)
	}
}

// words are a call's arguments, "" for one that is not literal: its text may hold a call that
// the rewrite bound (`echo "$(az group list)"`).
func words(c rules.Call) []string {
	out := make([]string, 0, len(c.Args))
	for _, w := range c.Args {
		if !w.Literal {
			out = append(out, "")
			continue
		}
		out = append(out, w.Value)
	}
	return out
}

// subsequence reports whether a's words appear in b in order (b may have the binding's words
// besides); "" matches any word.
func subsequence(a, b []string) bool {
	i := 0
	for _, w := range b {
		if i < len(a) && (a[i] == w || a[i] == "") {
			i++
		}
	}
	return i == len(a)
}
