package shell

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/ctxguard/ctxguard/rules"
)

// render summarises a call on one line, for table tests:
//
//	NAME ARGS… [env[…]] [dir=D] [via=A>B] [nested] [+args]
//
// A non-literal word is written ?"source"; a literal one bare, or %q-quoted when it has spaces,
// quotes or is empty. In env[…] `N=v` is a prefix and `N:=v` an exported variable. dir=?D means
// DirUnknown (D is the last known value).
func render(c rules.Call) string {
	var b strings.Builder
	switch {
	case c.NameWord.Literal || c.Name != "":
		b.WriteString(c.Name)
	default:
		b.WriteString(renderWord(c.NameWord))
	}
	for _, a := range c.Args {
		b.WriteString(" " + renderWord(a))
	}
	if len(c.Env) > 0 {
		var es []string
		for _, e := range c.Env {
			op := ":="
			if e.Prefix {
				op = "="
			}
			es = append(es, e.Name+op+renderWord(e.Value))
		}
		b.WriteString(" env[" + strings.Join(es, " ") + "]")
	}
	if c.DirUnknown {
		b.WriteString(" dir=?" + c.Dir)
	} else if c.Dir != "" {
		b.WriteString(" dir=" + c.Dir)
	}
	if len(c.Via) > 0 {
		b.WriteString(" via=" + strings.Join(c.Via, ">"))
	}
	if c.Nested {
		b.WriteString(" nested")
	}
	if c.ArgsAppended {
		b.WriteString(" +args")
	}
	return b.String()
}

func renderWord(w rules.Word) string {
	if !w.Literal {
		return "?" + strconv.Quote(w.Value)
	}
	if w.Value == "" || strings.ContainsAny(w.Value, " \t\n\"'\\?") {
		return strconv.Quote(w.Value)
	}
	return w.Value
}

type parseCase struct {
	name string
	src  string
	want []string
}

var parseCases = []parseCase{
	// Command names.
	{"plain", `az group list`, []string{`az group list`}},
	{"backslash", `\az group list`, []string{`az group list`}},
	{"double quoted name", `"az" group list`, []string{`az group list`}},
	{"partly quoted name", `'a'z group list`, []string{`az group list`}},
	{"inner backslash", `a\z group list`, []string{`az group list`}},
	{"absolute path", `/usr/bin/az group list`, []string{`az group list`}},
	{"relative path", `./az group list`, []string{`az group list`}},
	{"exe suffix", `az.exe group list`, []string{`az group list`}},
	{"upper cmd suffix", `AZ.CMD group list`, []string{`az group list`}},
	{"windows path bat", `'C:\tools\Kubectl.Bat' get pods`, []string{`kubectl get pods`}},
	{"ansi-c name", `$'az' group list`, []string{`az group list`}},
	{"ansi-c escaped name", `$'\x61z' group list`, []string{`az group list`}},
	{"variable name", `$AZ group list`, []string{`?"$AZ" group list`}},
	{"substituted name", `$(which az) group list`, []string{`which az via=$(…)`, `?"$(which az)" group list`}},
	{"quoted expansion name", `"$HOME/bin/az" x`, []string{`?"\"$HOME/bin/az\"" x`}},
	{"name case kept", `Kubectl get pods`, []string{`Kubectl get pods`}},

	// Words.
	{"jmespath query", `az group list --query "[?name=='x']" -o tsv`, []string{`az group list --query "[?name=='x']" -o tsv`}},
	{"unquoted glob", `az x --query [0] *.txt a?`, []string{`az x --query ?"[0]" ?"*.txt" ?"a?"`}},
	{"lone bracket is literal", `[ -f x ]`, []string{`[ -f x ]`}},
	{"brace expansion", `az x {a,b} {1..3} {}`, []string{"az x a b 1 2 3 {}"}},
	{"tilde", `az x ~/f ~ a~b k=~/x`, []string{`az x ?"~/f" ?"~" a~b ?"k=~/x"`}},
	{"concatenated quoting", `az x 'a'"b"c\ d`, []string{`az x "abc d"`}},
	{"ansi-c arg", `az x $'a\tb\'c'`, []string{`az x "a\tb'c"`}},
	{"double-quote escapes", `az x "a\"b\$c\\d\e"`, []string{`az x "a\"b$c\\d\\e"`}},
	{"expansion arg", `az x "$V" ${W:-d} $((1+2))`, []string{`az x ?"\"$V\"" ?"${W:-d}" 3`}},
	{"quoted glob is literal", `az x '*' "a?" \*`, []string{`az x * "a?" *`}},
	{"line continuation", "az group \\\nlist", []string{`az group list`}},
	{"redirections are not args", `az x > out.txt 2>&1 < in`, []string{`az x`}},
	{"redirection in the middle", `az >out x`, []string{`az x`}},

	// Constant propagation through bodies that may not run, or run again: a branch starts with
	// what an earlier branch changed unknown, so does what follows; a loop's body is walked
	// again for each state a later iteration can start in.
	{"if branch may not run", `a=az; if t; then a=ls; fi; $a g`, []string{`t`, `?"$a" g`}},
	{"else runs instead of then", `a=az; if t; then a=ls; else $a g; fi`, []string{`t`, `?"$a" g`}},
	{"later case item", `a=az; case x in y) a=ls;; *) $a g;; esac`, []string{`?"$a" g`}},
	{"second iteration", `a=ls; for i in 1 2; do $a g; a=az; done`, []string{`ls g`, `?"$a" g`}},
	{"third iteration", `a=ls; b=ls; for i in 1 2 3; do $b g; b=$a; a=az; done`, []string{`ls g`, `ls g`, `?"$b" g`}},
	{"function redefined in a loop", `f(){ ls; }; for i in 1 2; do f; f(){ az x; }; done`,
		[]string{`ls`, `f`, `ls via=function`, `az x`, `f`, `az x via=function`, `az x`}},
	{"directory changed in a loop", `cd /a; for i in 1 2; do az x; cd /b; done`,
		[]string{`cd /a`, `az x dir=/a`, `cd /b dir=/a`, `az x dir=?/b`, `cd /b dir=?/b`}},
	{"a loop that changes nothing is walked once", `for i in 1 2; do az x; done`, []string{`az x`}},
	// So is the environment: a variable one branch exports (or unsets) may hold that value or
	// the one before, and the right side of && or || may not run.
	{"an export in a branch", `if t; then export X=1; fi; az g`, []string{`t`, `az g env[X:=?"$X"]`}},
	{"an unset in a branch", `export X=1; if t; then unset X; fi; az g`, []string{`t env[X:=1]`, `unset X env[X:=1]`, `az g env[X:=?"$X"]`}},
	{"an export under &&", `t && export X=1; az g`, []string{`t`, `az g env[X:=?"$X"]`}},
	{"&& runs after the earlier leaves", `export X=1 && az g`, []string{`az g env[X:=1]`}},
	{"|| may skip an earlier leaf", `t || export X=1 && az g`, []string{`t`, `az g env[X:=?"$X"]`}},

	// A copy or a link of a program the line makes runs as that program: by its path, or by its
	// name once the line changes PATH.
	{"a link found through PATH", `ln -s "$(command -v gh)" b/git && PATH=$PWD/b:$PATH git repo list`,
		[]string{`command -v gh via=$(…)`, `ln -s ?"\"$(command -v gh)\"" b/git`, `gh repo list env[PATH=?"$PWD/b:$PATH"]`}},
	{"the same name without a PATH change", `ln -s "$(command -v gh)" b/git && git repo list`,
		[]string{`command -v gh via=$(…)`, `ln -s ?"\"$(command -v gh)\"" b/git`, `git repo list`}},

	// Lists and control flow.
	{"list operators", `az a; kubectl b && gcloud c || terraform d & gh e | pac f`,
		[]string{`az a`, `kubectl b`, `gcloud c`, `terraform d`, `gh e`, `pac f`}},
	{"subshell and block", `(az a; kubectl b); { gh c; }`, []string{`az a`, `kubectl b`, `gh c`}},
	{"if elif else", `if az a; then kubectl b; elif gh c; then pac d; else terraform e; fi`,
		[]string{`az a`, `kubectl b`, `gh c`, `pac d`, `terraform e`}},
	{"while until", `while kubectl get x; do az y; done; until gh z; do :; done`,
		[]string{`kubectl get x`, `az y`, `gh z`, `:`}},
	{"for loop variable", `for s in a b; do az account set -s $s; done`, []string{`az account set -s ?"$s"`}},
	{"for over substitution", `for s in $(az account list); do echo $s; done`,
		[]string{`az account list via=$(…)`, `echo ?"$s"`}},
	{"c-style for", `for ((i=0; i<3; i++)); do az x; done`, []string{`az x`}},
	{"case", `case $x in a) az a;; b|c) kubectl b;; esac`, []string{`az a`, `kubectl b`}},
	{"function", `f() { az group delete; }; f`, []string{`az group delete`, `f`, `az group delete via=function`}},
	{"function arguments", `f() { az "$@"; }; f group delete`, []string{`az ?"\"$@\""`, `f group delete`, `az group delete via=function`}},
	{"function runs its arguments", `f() { "$@"; }; f kubectl get pods`, []string{`?"\"$@\""`, `f kubectl get pods`, `kubectl get pods via=function`}},
	{"function keyword", `function g { kubectl x; }`, []string{`kubectl x`}},
	{"negation", `! az x`, []string{`az x`}},
	{"background", `az x & kubectl y`, []string{`az x`, `kubectl y`}},
	{"pipe stderr", `az x |& kubectl y`, []string{`az x`, `kubectl y`}},
	{"comment", `az x # az group delete`, []string{`az x`}},
	{"comment only", `# az group delete`, nil},
	{"empty", ``, nil},
	{"whitespace", " \n\t\n", nil},
	{"multi-line", "az a\nkubectl b\n\ngh c", []string{`az a`, `kubectl b`, `gh c`}},
	{"arithmetic ignored", `(( x = 1 + 2 )); let y=3; echo $((x*2))`, []string{`echo ?"$((x*2))"`}},
	{"arithmetic with substitution", `(( $(kubectl get x) > 1 ))`, []string{`kubectl get x via=$(…)`}},
	{"test clause", `[[ $(az x) == y ]] && gh z`, []string{`az x via=$(…)`, `gh z`}},
	{"coproc", `coproc az x`, []string{`az x via=coproc`}},

	// Substitutions run first.
	{"command substitution", `echo $(az account show)`, []string{`az account show via=$(…)`, `echo ?"$(az account show)"`}},
	{"backquotes", "echo `kubectl get x`", []string{"kubectl get x via=`…`", "echo ?\"`kubectl get x`\""}},
	{"process substitution", `diff <(kubectl get pods) >(az x)`,
		[]string{`kubectl get pods via=<(…)`, `az x via=>(…)`, `diff ?"<(kubectl get pods)" ?">(az x)"`}},
	{"nested substitutions", `echo $(echo $(az x))`,
		[]string{`az x via=$(…)>$(…)`, `echo ?"$(az x)" via=$(…)`, `echo ?"$(echo $(az x))"`}},
	{"substitution in assignment", `ID=$(az account show --query id -o tsv)`, []string{`az account show --query id -o tsv via=$(…)`}},
	{"substitution in quotes", `echo "id: $(az account show)"`, []string{`az account show via=$(…)`, `echo ?"\"id: $(az account show)\""`}},
	{"substitution in redirect", `az x > $(kubectl y)`, []string{`kubectl y via=$(…)`, `az x`}},
	{"substitution in param default", `echo ${X:-$(az x)}`, []string{`az x via=$(…)`, `echo ?"${X:-$(az x)}"`}},
	{"substitution in here-doc to cat", "cat <<EOF\n$(az x)\nEOF", []string{`az x via=$(…)`, `cat`}},
	{"substitution in declaration", `export ID=$(az x)`, []string{`az x via=$(…)`}},
	{"substitution in array", `a=(1 $(az x))`, []string{`az x via=$(…)`}},
	{"substitution in case pattern", `case x in $(az p)) gh q;; esac`, []string{`az p via=$(…)`, `gh q`}},

	// Environment.
	{"prefix assignment", `TF_WORKSPACE=prod terraform plan`, []string{`terraform plan env[TF_WORKSPACE=prod]`}},
	{"prefix assignments", `A=1 B="x y" C= az x`, []string{`az x env[A=1 B="x y" C=""]`}},
	{"export applies later", `export KUBECONFIG=/x; kubectl get pods`, []string{`kubectl get pods env[KUBECONFIG:=/x]`}},
	{"export in subshell does not leak", `(export X=1); az x`, []string{`az x`}},
	{"export in substitution does not leak", `echo $(export X=1); az x`, []string{`echo ?"$(export X=1)"`, `az x`}},
	{"export in pipeline element", `export X=1 | cat; az x`, []string{`cat`, `az x`}},
	{"export in background", `export X=1 & az x`, []string{`az x`}},
	{"export in block leaks", `{ export X=1; }; az x`, []string{`az x env[X:=1]`}},
	{"shell variable is not env", `X=1; az x`, []string{`az x`}},
	{"export after assignment", `X=1; export X; az x`, []string{`az x env[X:=1]`}},
	{"assignment after export", `export X=1; X=2; az x`, []string{`az x env[X:=2]`}},
	{"export marks before value", `export X; X=3; az x`, []string{`az x env[X:=3]`}},
	{"unset", `export X=1; unset X; az x`, []string{`unset X env[X:=1]`, `az x`}},
	{"unset -v", `export X=1 Y=2; unset -v X; az x`, []string{`unset -v X env[X:=1 Y:=2]`, `az x env[Y:=2]`}},
	{"export -n", `export X=1; export -n X; az x`, []string{`az x`}},
	{"declare -x", `declare -x X=1; typeset -x Y=2; declare Z=3; az x`, []string{`az x env[X:=1 Y:=2]`}},
	{"declare +x", `export X=1; declare +x X; az x`, []string{`az x`}},
	{"set -a", `set -a; X=1; set +a; Y=2; az x`, []string{`set -a`, `set +a env[X:=1]`, `az x env[X:=1]`}},
	{"prefix overrides export", `export X=1; X=2 az x; az y`, []string{`az x env[X=2]`, `az y env[X:=1]`}},
	{"export value non-literal", `export X="$Y"; az x`, []string{`az x env[X:=?"\"$Y\""]`}},
	{"prefix through nohup", `X=1 nohup az x`, []string{`nohup az x env[X=1]`, `az x env[X=1] via=nohup`}},
	{"sudo resets env", `export A=1; X=1 sudo az x`, []string{`sudo az x env[A:=1 X=1]`, `az x via=sudo`}},
	{"sudo -E keeps env", `export A=1; sudo -E az x`, []string{`sudo -E az x env[A:=1]`, `az x env[A:=1] via=sudo`}},
	{"sudo assignment", `sudo X=1 az x`, []string{`sudo X=1 az x`, `az x env[X=1] via=sudo`}},
	{"env -i", `export A=1; env -i X=1 az x`, []string{`env -i X=1 az x env[A:=1]`, `az x env[X=1] via=env`}},
	{"env -u", `export A=1 B=2; env -u A az x`, []string{`env -u A az x env[A:=1 B:=2]`, `az x env[B:=2] via=env`}},
	{"env dash", `export A=1; env - az x`, []string{`env - az x env[A:=1]`, `az x via=env`}},
	{"env to child shell", `X=1 bash -c 'az x'`, []string{`bash -c "az x" env[X=1]`, `az x env[X=1] via=bash -c nested`}},
	{"export in eval persists", `eval 'export X=1'; az x`, []string{`eval "export X=1"`, `az x env[X:=1]`}},

	// Directory.
	{"cd", `cd infra && terraform plan`, []string{`cd infra`, `terraform plan dir=infra`}},
	{"cd twice", `cd a && cd b && terraform plan`, []string{`cd a`, `cd b dir=a`, `terraform plan dir=a/b`}},
	{"cd absolute", `cd a; cd /srv/x; terraform plan`, []string{`cd a`, `cd /srv/x dir=a`, `terraform plan dir=/srv/x`}},
	{"cd parent", `cd a; cd ..; terraform plan`, []string{`cd a`, `cd .. dir=a`, `terraform plan`}},
	{"cd variable", `cd "$D" && terraform plan`, []string{`cd ?"\"$D\""`, `terraform plan dir=?`}},
	{"cd dash", `cd a; cd -; terraform plan`, []string{`cd a`, `cd - dir=a`, `terraform plan dir=?a`}},
	{"cd home", `cd; terraform plan`, []string{`cd`, `terraform plan dir=~`}},
	{"cd tilde", `cd ~/src && terraform plan`, []string{`cd ?"~/src"`, `terraform plan dir=~/src`}},
	{"cd out of home", `cd ~ && cd .. && terraform plan`, []string{`cd ?"~"`, `cd .. dir=~`, `terraform plan dir=?`}},
	{"cd tilde user", `cd ~bob && terraform plan`, []string{`cd ?"~bob"`, `terraform plan dir=?`}},
	{"cd option", `cd -P -- a && terraform plan`, []string{`cd -P -- a`, `terraform plan dir=a`}},
	{"cd in subshell", `(cd a && terraform plan); terraform plan`, []string{`cd a`, `terraform plan dir=a`, `terraform plan`}},
	{"cd after unknown then absolute", `cd $X; cd /a; terraform plan`, []string{`cd ?"$X"`, `cd /a dir=?`, `terraform plan dir=/a`}},
	{"pushd popd", `pushd a && terraform plan && popd && terraform plan`,
		[]string{`pushd a`, `terraform plan dir=a`, `popd dir=a`, `terraform plan dir=?a`}},
	{"cd in if body", `if x; then cd a; fi; terraform plan`, []string{`x`, `cd a`, `terraform plan dir=?a`}},
	{"chdir flag is an argument", `terraform -chdir=env/prod plan`, []string{`terraform -chdir=env/prod plan`}},
	{"cd in child shell", `cd a && bash -c 'cd b && terraform plan'; terraform plan`,
		[]string{`cd a`, `bash -c "cd b && terraform plan" dir=a`, `cd b dir=a via=bash -c nested`, `terraform plan dir=a/b via=bash -c nested`, `terraform plan dir=a`}},
	{"cd in eval persists", `eval cd x; terraform plan`, []string{`eval cd x`, `cd x via=eval nested`, `terraform plan dir=x`}},
	{"builtin cd", `builtin cd x; terraform plan`, []string{`builtin cd x`, `cd x via=builtin`, `terraform plan dir=x`}},
	{"env -C", `env -C sub terraform plan`, []string{`env -C sub terraform plan`, `terraform plan dir=sub via=env`}},
	{"sudo -D", `sudo -D /srv terraform plan`, []string{`sudo -D /srv terraform plan`, `terraform plan dir=/srv via=sudo`}},

	// Wrappers.
	{"sudo", `sudo az group list`, []string{`sudo az group list`, `az group list via=sudo`}},
	{"sudo options", `sudo -u root -g wheel -- az x`, []string{`sudo -u root -g wheel -- az x`, `az x via=sudo`}},
	{"sudo cluster", `sudo -Eu root az x`, []string{`sudo -Eu root az x`, `az x via=sudo`}},
	{"sudo long option", `sudo --user=root --group wheel az x`, []string{`sudo --user=root --group wheel az x`, `az x via=sudo`}},
	{"sudo -l only lists", `sudo -l az x`, []string{`sudo -l az x`}},
	{"sudo -E env", `sudo -E env X=1 az group list`,
		[]string{`sudo -E env X=1 az group list`, `env X=1 az group list via=sudo`, `az group list env[X=1] via=sudo>env`}},
	{"doas", `doas -u root kubectl get pods`, []string{`doas -u root kubectl get pods`, `kubectl get pods via=doas`}},
	{"env", `env X=1 Y=2 terraform plan`, []string{`env X=1 Y=2 terraform plan`, `terraform plan env[X=1 Y=2] via=env`}},
	{"command", `command az x`, []string{`command az x`, `az x via=command`}},
	{"command -p", `command -p az x`, []string{`command -p az x`, `az x via=command`}},
	{"command -v looks up", `command -v az`, []string{`command -v az`}},
	{"builtin", `builtin echo az`, []string{`builtin echo az`, `echo az via=builtin`}},
	{"exec", `exec -a name -c az x`, []string{`exec -a name -c az x`, `az x via=exec`}},
	{"exec redirect only", `exec >log; az x`, []string{`exec`, `az x`}},
	{"nohup", `nohup az vm list &`, []string{`nohup az vm list`, `az vm list via=nohup`}},
	{"time keyword", `time az group list`, []string{`az group list via=time`}},
	{"time -p keyword", `time -p az group list`, []string{`az group list via=time`}},
	{"time binary", `/usr/bin/time -f %e -o t.txt az x`, []string{`time -f %e -o t.txt az x`, `az x via=time`}},
	{"timeout", `timeout 5s kubectl get pods`, []string{`timeout 5s kubectl get pods`, `kubectl get pods via=timeout`}},
	{"timeout options", `timeout -s KILL -k 10 --preserve-status 5m az x`,
		[]string{`timeout -s KILL -k 10 --preserve-status 5m az x`, `az x via=timeout`}},
	{"nice", `nice -n 10 az vm list`, []string{`nice -n 10 az vm list`, `az vm list via=nice`}},
	{"nice number", `nice -5 az x; nice az y`, []string{`nice -5 az x`, `az x via=nice`, `nice az y`, `az y via=nice`}},
	{"ionice", `ionice -c3 -n 7 az x`, []string{`ionice -c3 -n 7 az x`, `az x via=ionice`}},
	{"ionice pid", `ionice -p 123`, []string{`ionice -p 123`}},
	{"stdbuf", `stdbuf -o0 -e L az x`, []string{`stdbuf -o0 -e L az x`, `az x via=stdbuf`}},
	{"setsid", `setsid -f az x`, []string{`setsid -f az x`, `az x via=setsid`}},
	{"watch", `watch -n 5 kubectl get pods`, []string{`watch -n 5 kubectl get pods`, `kubectl get pods via=watch`}},
	{"watch string", `watch 'kubectl get pods | grep x'`,
		[]string{`watch "kubectl get pods | grep x"`, `kubectl get pods via=watch nested`, `grep x via=watch nested`}},
	{"xargs", `xargs -n1 kubectl delete pod`, []string{`xargs -n1 kubectl delete pod`, `kubectl delete pod via=xargs +args`}},
	{"xargs options", `xargs -0 -P 4 -n 1 -I {} --max-chars=10 --delimiter , az x {}`,
		[]string{`xargs -0 -P 4 -n 1 -I {} --max-chars=10 --delimiter , az x {}`, `az x {} via=xargs +args`}},
	{"xargs -i", `xargs -i az x {}`, []string{`xargs -i az x {}`, `az x {} via=xargs +args`}},
	{"xargs in pipe", `kubectl get pods -o name | xargs kubectl delete`,
		[]string{`kubectl get pods -o name`, `xargs kubectl delete`, `kubectl delete via=xargs +args`}},
	{"find -exec", `find . -name x -exec az storage blob upload -f {} \;`,
		[]string{`find . -name x -exec az storage blob upload -f {} ;`, `az storage blob upload -f {} via=find -exec +args`}},
	{"find -exec plus and -execdir", `find . -exec az a {} + -execdir kubectl b {} ';'`,
		[]string{`find . -exec az a {} + -execdir kubectl b {} ;`, `az a {} via=find -exec +args`, `kubectl b {} via=find -execdir +args`}},
	{"find -ok", `find . -ok rm {} \;`, []string{`find . -ok rm {} ;`, `rm {} via=find -ok +args`}},
	{"fd -x", `fd -e tf -x terraform fmt`, []string{`fd -e tf -x terraform fmt`, `terraform fmt via=fd -x +args`}},
	{"wrapper chain", `nohup sudo timeout 5 nice az x &`,
		[]string{`nohup sudo timeout 5 nice az x`, `sudo timeout 5 nice az x via=nohup`, `timeout 5 nice az x via=nohup>sudo`,
			`nice az x via=nohup>sudo>timeout`, `az x via=nohup>sudo>timeout>nice`}},
	{"non-literal after wrapper", `sudo $CMD x`, []string{`sudo ?"$CMD" x`, `?"$CMD" x via=sudo`}},
	{"busybox", `busybox sh -c 'az x'`, []string{`busybox sh -c "az x"`, `sh -c "az x" via=busybox`, `az x via=busybox>sh -c nested`}},

	{"quoted wrapper name", `"sudo" \nohup /usr/local/bin/az x`, []string{`sudo nohup /usr/local/bin/az x`, `nohup /usr/local/bin/az x via=sudo`, `az x via=sudo>nohup`}},
	{"env -P", `env -P /usr/bin az x`, []string{`env -P /usr/bin az x`, `az x via=env`}},
	{"time subshell", `time (az x)`, []string{`az x via=time`}},
	{"command cd", `command cd x; terraform plan`, []string{`command cd x`, `cd x via=command`, `terraform plan dir=x`}},
	{"sudo cd does not move", `sudo cd x; terraform plan`, []string{`sudo cd x`, `cd x via=sudo`, `terraform plan`}},
	{"trap", `trap 'az group delete' EXIT`, []string{`trap "az group delete" EXIT`, `az group delete via=trap nested`}},
	{"trap reset", `trap - EXIT; trap INT`, []string{`trap - EXIT`, `trap INT`}},
	{"ssh", `ssh host 'kubectl delete ns x'`, []string{`ssh host "kubectl delete ns x"`, `kubectl delete ns x dir=? via=ssh nested`}},
	{"ssh options and words", `ssh -i key -p 22 host kubectl get pods`,
		[]string{`ssh -i key -p 22 host kubectl get pods`, `kubectl get pods dir=? via=ssh nested`}},
	{"ssh interactive", `ssh -A host`, []string{`ssh -A host`}},
	{"wsl", `wsl -d Ubuntu -e az x`, []string{`wsl -d Ubuntu -e az x`, `az x dir=? via=wsl`}},
	{"chroot", `chroot /mnt az x`, []string{`chroot /mnt az x`, `az x dir=? via=chroot`}},
	{"parallel", `parallel -j2 kubectl delete pod ::: a b`, []string{`parallel -j2 kubectl delete pod ::: a b`, `kubectl delete pod via=parallel +args`}},
	{"parallel command lines", `parallel ::: 'az x' 'kubectl y'`,
		[]string{`parallel ::: "az x" "kubectl y"`, `az x via=parallel nested`, `kubectl y via=parallel nested`}},
	{"parallel shell", `parallel bash -c ::: 'az x'`,
		[]string{`parallel bash -c ::: "az x"`, `bash -c via=parallel +args`, `az x via=parallel>bash -c nested`}},
	{"xargs into a shell", `echo 'az x' | xargs -I{} bash -c {}`,
		[]string{`echo "az x"`, `xargs -I{} bash -c {}`, `bash -c {} via=xargs +args`, `az x via=xargs>bash -c nested`}},
	{"substitution in here-doc to a command", "az x <<EOF\n$(kubectl y)\nEOF", []string{`kubectl y via=$(…)`, `az x`}},
	{"prefix with substitution", `X=1 Y=$(az x) kubectl y`, []string{`az x via=$(…)`, `kubectl y env[X=1 Y=?"$(az x)"]`}},
	{"eval of a substitution", `eval "$(az x)"`, []string{`az x via=$(…)`, `eval ?"\"$(az x)\""`, `?"$(az x)" via=eval nested`}},
	{"child shell scope", `bash -c 'cd a; export X=1; az x'; az y`,
		[]string{`bash -c "cd a; export X=1; az x"`, `cd a via=bash -c nested`, `az x env[X:=1] dir=a via=bash -c nested`, `az y`}},
	{"script written then run", `echo "az x" > run.sh && bash run.sh`, []string{`echo "az x"`, `bash run.sh`, `az x via=bash run.sh nested`}},
	{"here-doc inside a string", "bash -c 'cat <<EOF\naz x\nEOF'", []string{`bash -c "cat <<EOF\naz x\nEOF"`, `cat via=bash -c nested`}},
	{"ansi-c shell and string", `$'bash' -c $'az x'`, []string{`bash -c "az x"`, `az x via=bash -c nested`}},
	{"escaped quotes in string", `bash -c "az group delete --name \"my rg\""`,
		[]string{`bash -c "az group delete --name \"my rg\""`, `az group delete --name "my rg" via=bash -c nested`}},
	{"substitution inside a string", `bash -c 'az $(kubectl x)'`,
		[]string{`bash -c "az $(kubectl x)"`, `kubectl x via=bash -c>$(…) nested`, `az ?"$(kubectl x)" via=bash -c nested`}},
	{"single quotes inside double", `bash -c "echo '$X'"`, []string{`bash -c ?"\"echo '$X'\""`, `echo ?"'$X'" via=bash -c nested`}},
	{"unknown shell with -c", `$SHELL -c 'az x'`, []string{`?"$SHELL" -c "az x"`, `az x via=(dynamic command) -c nested`}},
	{"unknown command without -c", `$EDITOR -n file`, []string{`?"$EDITOR" -n file`}},
	{"script from process substitution", `bash <(echo 'az x')`,
		[]string{`echo "az x" via=<(…)`, `bash ?"<(echo 'az x')"`, `az x via=bash <(…) nested`}},
	{"stdin from process substitution", `bash < <(printf 'az x\n')`,
		[]string{`printf "az x\\n" via=<(…)`, `bash`, `az x via=bash < <(…) nested`}},
	{"source process substitution", `source <(echo 'cd x'); terraform plan`,
		[]string{`echo "cd x" via=<(…)`, `source ?"<(echo 'cd x')"`, `cd x via=source <(…) nested`, `terraform plan dir=x`}},
	{"script -c", `script -qc 'az x' /dev/null`, []string{`script -qc "az x" /dev/null`, `az x via=script -c nested`}},
	{"flock -c", `flock /tmp/l -c 'az x'`, []string{`flock /tmp/l -c "az x"`, `az x via=flock -c nested`}},
	{"flock command", `flock -w 5 /tmp/l az x`, []string{`flock -w 5 /tmp/l az x`, `az x via=flock`}},
	{"function cd acts on its caller", `f() { cd x; }; f; terraform plan`, []string{`cd x`, `f`, `cd x via=function`, `terraform plan dir=x`}},

	// Shell strings.
	{"bash -c", `bash -c "az group list && kubectl get pods"`,
		[]string{`bash -c "az group list && kubectl get pods"`, `az group list via=bash -c nested`, `kubectl get pods via=bash -c nested`}},
	{"bash -lc", `bash -lc 'az x'`, []string{`bash -lc "az x"`, `az x via=bash -c nested`}},
	{"sh -c --", `sh -c -- 'az x'`, []string{`sh -c -- "az x"`, `az x via=sh -c nested`}},
	{"bash -l -c", `bash -l -c 'az x'`, []string{`bash -l -c "az x"`, `az x via=bash -c nested`}},
	{"bash --norc -c", `bash --norc -c 'az x'`, []string{`bash --norc -c "az x"`, `az x via=bash -c nested`}},
	{"bash -o -c", `bash -o pipefail -ec 'az x'`, []string{`bash -o pipefail -ec "az x"`, `az x via=bash -c nested`}},
	{"zsh -c", `/bin/zsh -c 'az x'`, []string{`zsh -c "az x"`, `az x via=zsh -c nested`}},
	{"bash -c args", `bash -c 'az "$1"' _ prod`, []string{`bash -c "az \"$1\"" _ prod`, "az prod via=bash -c nested"}},
	{"nested shells", `bash -c "sh -c 'az x'"`,
		[]string{`bash -c "sh -c 'az x'"`, `sh -c "az x" via=bash -c nested`, `az x via=bash -c>sh -c nested`}},
	{"expansion in string", `bash -c "az group delete -n $NAME --yes"`,
		[]string{`bash -c ?"\"az group delete -n $NAME --yes\""`, `az group delete -n ?"$NAME" --yes via=bash -c nested`}},
	{"expansion through two levels", `bash -c "sh -c 'az $X'"`,
		[]string{`bash -c ?"\"sh -c 'az $X'\""`, `sh -c ?"'az $X'" via=bash -c nested`, `az ?"$X" via=bash -c>sh -c nested`}},
	{"substitution in string runs outside", `bash -c "az $(kubectl x)"`,
		[]string{`kubectl x via=$(…)`, `bash -c ?"\"az $(kubectl x)\""`, `az ?"$(kubectl x)" via=bash -c nested`}},
	{"whole string is a variable", `bash -c "$CMD"`, []string{`bash -c ?"\"$CMD\""`, `?"$CMD" via=bash -c nested`}},
	{"bad string", `bash -c 'if then'`, []string{`bash -c "if then"`, `?"if then" ?"if then" via=bash -c nested`}},
	// A string is read in the language of the shell that runs it.
	{"pwsh -c", `pwsh -c "\$env:X='1'; az x"`, []string{`pwsh -c "$env:X='1'; az x"`, `az x env[X:=1] via=pwsh -Command nested`}},
	{"powershell -Command joins its words", `powershell -Command Get-Date';' az group list`,
		[]string{`powershell -Command Get-Date; az group list`, `get-date via=powershell -Command nested`, `az group list via=powershell -Command nested`}},
	{"pwsh string with an expansion", `pwsh -c "az group list -s $SUB"`,
		[]string{`pwsh -c ?"\"az group list -s $SUB\""`, `?"az group list -s $SUB" ?"az group list -s $SUB" via=pwsh -Command nested`}},
	{"pwsh -EncodedCommand", `pwsh -NoProfile -EncodedCommand YQB6ACAAZwByAG8AdQBwACAAbABpAHMAdAA=`,
		[]string{`pwsh -NoProfile -EncodedCommand YQB6ACAAZwByAG8AdQBwACAAbABpAHMAdAA=`, `az group list via=pwsh -EncodedCommand nested`}},
	{"pwsh -enc not decodable", `pwsh -enc "$B64"`, []string{`pwsh -enc ?"\"$B64\""`, `?"pwsh -enc \"$B64\"" ?"pwsh -enc \"$B64\"" via=pwsh -EncodedCommand`}},
	{"pwsh script file", `pwsh ./deploy.ps1`, []string{`pwsh ./deploy.ps1`}},
	{"cmd /c", `cmd /c "az group list"`, []string{`cmd /c "az group list"`, `az group list via=cmd /c nested`}},
	{"cmd /c with cmd syntax", `cmd /c "echo 'a & az x'"`, []string{`cmd /c "echo 'a & az x'"`, `?"echo 'a & az x'" ?"echo 'a & az x'" via=cmd /c nested`}},
	{"xargs -i attached", `echo 'az x' | xargs -iX sh -c X`,
		[]string{`echo "az x"`, `xargs -iX sh -c X`, `sh -c X via=xargs +args`, `az x via=xargs>sh -c nested`}},
	{"here-doc to xargs sh -c", "xargs -I{} sh -c {} <<EOF\naz x\nEOF",
		[]string{`xargs -I{} sh -c {}`, `sh -c {} via=xargs +args`, `az x via=xargs>sh -c nested`}},
	{"script file", `bash deploy.sh prod`, []string{`bash deploy.sh prod`}},
	{"stdin from file", `bash -s < script.sh`, []string{`bash -s`}},
	{"eval", `eval "az group delete"`, []string{`eval "az group delete"`, `az group delete via=eval nested`}},
	{"eval words", `eval az group 'delete -n x'`, []string{`eval az group "delete -n x"`, `az group delete -n x via=eval nested`}},
	{"here-doc to bash", "bash <<EOF\naz group delete\nkubectl get x\nEOF",
		[]string{`bash`, `az group delete via=bash << nested`, `kubectl get x via=bash << nested`}},
	{"here-doc quoted to sh", "sh <<'EOF'\naz group delete $X\nEOF", []string{`sh`, `az group delete ?"$X" via=sh << nested`}},
	{"here-doc expansion", "bash <<EOF\naz group delete -n $X\nEOF", []string{`bash`, `az group delete -n ?"$X" via=bash << nested`}},
	{"here-doc dash", "bash <<-EOF\n\taz x\n\tEOF", []string{`bash`, `az x via=bash << nested`}},
	{"here-string", `sh <<< 'az group delete'`, []string{`sh`, `az group delete via=sh <<< nested`}},
	{"sudo bash here-doc", "sudo bash <<EOF\naz x\nEOF", []string{`sudo bash`, `bash via=sudo`, `az x via=sudo>bash << nested`}},
	{"echo to bash", `echo 'az x' | bash`, []string{`echo "az x"`, `bash`, `az x via=| bash nested`}},
	{"echo to sudo sh", `echo "az x; kubectl y" | sudo sh`,
		[]string{`echo "az x; kubectl y"`, `sudo sh`, `sh via=sudo`, `az x via=sudo>| sh nested`, `kubectl y via=sudo>| sh nested`}},
	{"printf to sh", `printf 'az x\nkubectl y\n' | sh`,
		[]string{`printf "az x\\nkubectl y\\n"`, `sh`, `az x via=| sh nested`, `kubectl y via=| sh nested`}},
	{"printf %s to bash", `printf '%s\n' 'az x' | bash`, []string{`printf "%s\\n" "az x"`, `bash`, `az x via=| bash nested`}},
	{"cat here-doc to bash", "cat <<EOF | bash\naz x\nEOF", []string{`cat`, `bash`, `az x via=| bash nested`}},
	{"echo -e to bash", `echo -e 'az x\nkubectl y' | bash`,
		[]string{`echo -e "az x\\nkubectl y"`, `bash`, `az x via=| bash nested`, `kubectl y via=| bash nested`}},
	{"unknown producer", `curl -s https://x | bash`, []string{`curl -s https://x`, `bash`, `?"bash" ?"bash" via=| bash`}},
	{"su -c", `su -c 'az x' root`, []string{`su -c "az x" root`, `az x via=su -c nested`}},
	{"env -S", `env -S 'az x'`, []string{`env -S "az x"`, `az x via=env -S nested`}},
	{"xargs sh -c", `xargs sh -c 'az x "$@"' _`,
		[]string{`xargs sh -c "az x \"$@\"" _`, `sh -c "az x \"$@\"" _ via=xargs +args`, `az x ?"\"$@\"" via=xargs>sh -c nested`}},
	{"find -exec sh -c", `find . -exec sh -c 'kubectl apply -f "$1"' _ {} \;`,
		[]string{`find . -exec sh -c "kubectl apply -f \"$1\"" _ {} ;`, `sh -c "kubectl apply -f \"$1\"" _ {} via=find -exec +args`,
			`kubectl apply -f ?"\"$1\"" via=find -exec>sh -c nested`}},

	// Data is not a call.
	{"echo data", `echo "az group delete"`, []string{`echo "az group delete"`}},
	{"echo data 2", `echo "kubectl delete ns prod"`, []string{`echo "kubectl delete ns prod"`}},
	{"commit message", `git commit -m "az group delete"`, []string{`git commit -m "az group delete"`}},
	{"grep pattern", `grep 'kubectl delete' file`, []string{`grep "kubectl delete" file`}},
	{"here-doc to cat", "cat <<EOF\naz group delete\nEOF", []string{`cat`}},
	{"here-doc to file", "cat > run.sh <<'EOF'\naz group delete\nEOF", []string{`cat`}},
	{"here-doc to tee", "tee notes.md <<EOF\nkubectl delete ns prod\nEOF", []string{`tee notes.md`}},
	{"here-string to cat", `cat <<< 'az group delete'`, []string{`cat`}},
	{"printf not piped", `printf '%s' 'az group delete'`, []string{`printf %s "az group delete"`}},
	{"echo piped to file", `echo 'az x' | tee f`, []string{`echo "az x"`, `tee f`}},
	{"single-quoted substitution", `echo '$(az x)'`, []string{`echo "$(az x)"`}},
	{"python -c", `python -c "import os; os.system('az group delete')"`, []string{`python -c "import os; os.system('az group delete')"`, `?"import os; os.system('az group delete')" ?"import os; os.system('az group delete')" via=python code nested`}},
	{"python -c that prints", `python3 -c 'print("az group delete")'`, []string{`python3 -c "print(\"az group delete\")"`}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			calls, err := Parse(tc.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			var got []string
			for _, c := range calls {
				got = append(got, render(c))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.src, diff)
			}
			checkCalls(t, tc.src, calls)
		})
	}
}

// checkCalls asserts the position contract on every call: offsets inside Src, Start and End
// around the command, the top-level line as Src for calls that are not nested, and each literal
// word's source text parsing back to its value.
func checkCalls(t *testing.T, line string, calls []rules.Call) {
	t.Helper()
	for i, c := range calls {
		if !c.Nested && c.Src != line {
			t.Errorf("call %d (%s): not nested but Src is not the line", i, render(c))
		}
		if c.Start < 0 || c.Start > c.End || c.End > len(c.Src) {
			t.Errorf("call %d (%s): Start %d End %d outside Src (%d bytes)", i, render(c), c.Start, c.End, len(c.Src))
			continue
		}
		words := append([]rules.Word(nil), c.Args...)
		tooDeep := len(c.Via) > 0 && c.Via[len(c.Via)-1] == "too deep"
		// Inside backquotes the shell removes a level of backslashes before parsing, so a
		// word's source text there does not read back as its value on its own.
		backquoted := slices.Contains(c.Via, "`…`")
		if c.NameWord != (rules.Word{}) || c.Name != "" {
			words = append(words, c.NameWord)
			if c.NameWord.Pos < c.Start && !tooDeep {
				t.Errorf("call %d (%s): Start %d after the command word %d", i, render(c), c.Start, c.NameWord.Pos)
			}
		}
		for _, a := range c.Args {
			if a.End > c.End {
				t.Errorf("call %d (%s): argument %q ends after End", i, render(c), a.Value)
			}
		}
		for _, e := range c.Env {
			if e.Value.Pos == -1 && e.Value.End == -1 {
				continue
			}
			v := e.Value
			if v.Pos < 0 || v.Pos > v.End || v.End > len(c.Src) {
				t.Errorf("call %d (%s): value of %s at [%d,%d) outside Src (%d bytes)", i, render(c), e.Name, v.Pos, v.End, len(c.Src))
			} else if v.Literal && v.Pos < v.End && !backquoted {
				if got, ok := reparseValue(c.Src[v.Pos:v.End]); !ok || got != v.Value {
					t.Errorf("call %d (%s): value source %q reparses to %q (ok=%v), want %q", i, render(c), c.Src[v.Pos:v.End], got, ok, v.Value)
				}
			}
			// env accepts any name without "=" (`env 0=1 cmd` sets it).
			if e.Name == "" || strings.Contains(e.Name, "=") {
				t.Errorf("call %d (%s): env name %q", i, render(c), e.Name)
			}
		}
		for _, w := range words {
			if w.Pos < 0 || w.Pos > w.End || w.End > len(c.Src) {
				t.Errorf("call %d (%s): word %q at [%d,%d) outside Src (%d bytes)", i, render(c), w.Value, w.Pos, w.End, len(c.Src))
				continue
			}
			if !w.Literal {
				if w.Value != c.Src[w.Pos:w.End] {
					t.Errorf("call %d (%s): non-literal %q is not its source %q", i, render(c), w.Value, c.Src[w.Pos:w.End])
				}
				continue
			}
			if w.Pos == w.End {
				if w.Value != "" {
					t.Errorf("call %d (%s): empty span for %q", i, render(c), w.Value)
				}
				continue
			}
			if backquoted {
				continue
			}
			// A word that is not literal on its own has a value from constant propagation.
			if got, ok := reparseWord(c.Src[w.Pos:w.End]); ok && got != w.Value && !(c.Nested && psWordIs(c.Src[w.Pos:w.End], w.Value)) {
				t.Errorf("call %d (%s): word source %q reparses to %q (ok=%v), want %q", i, render(c), c.Src[w.Pos:w.End], got, ok, w.Value)
			}
		}
	}
}

// psWordIs reports whether text is value as a PowerShell argument: the words of a string that
// a bash line runs with pwsh are PowerShell's.
func psWordIs(text, value string) bool {
	calls, err := ParsePowerShell("x " + text)
	return err == nil && len(calls) == 1 && len(calls[0].Args) == 1 && calls[0].Args[0].Literal && calls[0].Args[0].Value == value
}

// reparseValue parses text as the value of an assignment and returns its literal value.
func reparseValue(text string) (string, bool) {
	f, err := parseScript("X=" + text)
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 0 || len(ce.Assigns) != 1 || ce.Assigns[0].Value == nil {
		return "", false
	}
	return wordValue(ce.Assigns[0].Value, true)
}

// reparseWord parses text as one argument word and returns its literal value.
func reparseWord(text string) (string, bool) {
	f, err := parseScript(": " + text)
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 2 || len(ce.Assigns) != 0 {
		return "", false
	}
	return wordValue(ce.Args[1], false)
}

func TestParseExact(t *testing.T) {
	w := func(v string, lit bool, p, e int) rules.Word {
		return rules.Word{Value: v, Literal: lit, Pos: p, End: e}
	}
	tests := []struct {
		src  string
		want []rules.Call
	}{
		{
			src: `X=1 az group list --sub "a b" > out # done`,
			want: []rules.Call{{
				Name: "az", NameWord: w("az", true, 4, 6),
				Args: []rules.Word{w("group", true, 7, 12), w("list", true, 13, 17), w("--sub", true, 18, 23), w("a b", true, 24, 29)},
				Env:  []rules.Assign{{Name: "X", Value: w("1", true, 2, 3), Prefix: true}},
				Src:  `X=1 az group list --sub "a b" > out # done`, Start: 0, End: 29,
				Writes: []rules.Word{w("out", true, 32, 35)},
			}},
		},
		{
			src: `sudo -E env K=v kubectl get pods && echo ok`,
			want: []rules.Call{
				{
					Name: "sudo", NameWord: w("sudo", true, 0, 4),
					Args: []rules.Word{w("-E", true, 5, 7), w("env", true, 8, 11), w("K=v", true, 12, 15), w("kubectl", true, 16, 23), w("get", true, 24, 27), w("pods", true, 28, 32)},
					Src:  `sudo -E env K=v kubectl get pods && echo ok`, Start: 0, End: 32,
				},
				{
					Name: "env", NameWord: w("env", true, 8, 11),
					Args: []rules.Word{w("K=v", true, 12, 15), w("kubectl", true, 16, 23), w("get", true, 24, 27), w("pods", true, 28, 32)},
					Via:  []string{"sudo"}, Wrapped: true, Src: `sudo -E env K=v kubectl get pods && echo ok`, Start: 8, End: 32,
				},
				{
					Name: "kubectl", NameWord: w("kubectl", true, 16, 23),
					Args: []rules.Word{w("get", true, 24, 27), w("pods", true, 28, 32)},
					Env:  []rules.Assign{{Name: "K", Value: w("v", true, 14, 15), Prefix: true}},
					Via:  []string{"sudo", "env"}, Wrapped: true, Src: `sudo -E env K=v kubectl get pods && echo ok`, Start: 12, End: 32,
				},
				{
					Name: "echo", NameWord: w("echo", true, 36, 40), Args: []rules.Word{w("ok", true, 41, 43)},
					Src: `sudo -E env K=v kubectl get pods && echo ok`, Start: 36, End: 43,
				},
			},
		},
		{
			src: `export A=1; bash -c "az x $Y"`,
			want: []rules.Call{
				{
					Name: "bash", NameWord: w("bash", true, 12, 16),
					Args: []rules.Word{w("-c", true, 17, 19), w(`"az x $Y"`, false, 20, 29)},
					Env:  []rules.Assign{{Name: "A", Value: w("1", true, 9, 10)}},
					Src:  `export A=1; bash -c "az x $Y"`, Start: 12, End: 29,
				},
				{
					Name: "az", NameWord: w("az", true, 0, 2),
					Args: []rules.Word{w("x", true, 3, 4), w("$Y", false, 5, 7)},
					Env:  []rules.Assign{{Name: "A", Value: w("1", true, -1, -1)}},
					Via:  []string{"bash -c"}, Src: `az x $Y`, Nested: true, Start: 0, End: 7,
				},
			},
		},
		{
			src: `kubectl exec p -- ls`,
			want: []rules.Call{{
				Name: "kubectl", NameWord: w("kubectl", true, 0, 7),
				Args: []rules.Word{w("exec", true, 8, 12), w("p", true, 13, 14), w("--", true, 15, 17), w("ls", true, 18, 20)},
				Src:  `kubectl exec p -- ls`, Start: 0, End: 20,
			}, {
				// After "--", a command without a row of its own may run what follows.
				Name: "ls", NameWord: w("ls", true, 18, 20), Via: []string{"kubectl --"}, Wrapped: true,
				Src: `kubectl exec p -- ls`, Start: 18, End: 20,
			}},
		},
	}
	for _, tc := range tests {
		got, err := Parse(tc.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.src, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.src, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		`az "unterminated`,
		`az 'unterminated`,
		`az (`,
		`if then fi`,
		`az )`,
		`echo $(az x`,
		`a && `,
		"cat <<EOF\nno end",
	} {
		calls, err := Parse(src)
		if err == nil || calls != nil {
			t.Errorf("Parse(%q) = %d calls, %v; want a syntax error and no calls", src, len(calls), err)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line == 0 {
			t.Errorf("Parse(%q) error %v: want a *SyntaxError with a position", src, err)
		}
		if strings.Contains(err.Error(), "failed to") || err.Error() != strings.ToLower(err.Error()[:1])+err.Error()[1:] {
			t.Errorf("error %q: want lowercase, no \"failed to\"", err)
		}
	}
}

func TestParseLimits(t *testing.T) {
	t.Run("re-parse depth", func(t *testing.T) {
		// Each level quotes the next with the other kind of quote via printf %q-style escaping.
		s := "az x"
		for i := 0; i < maxReparseDepth+4; i++ {
			s = "bash -c " + Quote(s)
		}
		calls, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		last := calls[len(calls)-1]
		if last.Name != "" || last.Via[len(last.Via)-1] != "too deep" || len(last.Args) != 1 || last.Args[0].Literal {
			t.Errorf("last call %s: want a too-deep call", render(last))
		}
		// One bash call per level that was parsed (the line and maxReparseDepth strings), then
		// the too-deep call.
		if len(calls) != maxReparseDepth+2 {
			t.Errorf("got %d calls, want %d", len(calls), maxReparseDepth+2)
		}
		checkCalls(t, s, calls)
	})
	t.Run("deep substitutions", func(t *testing.T) {
		n := maxBracketDepth
		s := strings.Repeat("$(", n) + "az x" + strings.Repeat(")", n)
		start := time.Now()
		calls, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
		if len(calls) == 0 || calls[0].Via[len(calls[0].Via)-1] != "too deep" {
			t.Fatalf("want a too-deep call first, got %d calls", len(calls))
		}
		checkCalls(t, s, calls)
	})
	t.Run("deep subshells", func(t *testing.T) {
		n := maxBracketDepth
		s := strings.Repeat("( ", n) + "az x" + strings.Repeat(" )", n)
		if _, err := Parse(s); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("nesting past the bracket limit is refused before parsing", func(t *testing.T) {
		for _, s := range []string{
			strings.Repeat("$(", maxBracketDepth+1) + "az x" + strings.Repeat(")", maxBracketDepth+1),
			strings.Repeat("((", 5000) + "1" + strings.Repeat("))", 5000),
			strings.Repeat("{ ", 10000) + "az x" + strings.Repeat("; }", 10000),
		} {
			start := time.Now()
			_, err := Parse(s)
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "deep") {
				t.Fatalf("want a too-deep *SyntaxError, got %v", err)
			}
			if d := time.Since(start); d > 100*time.Millisecond {
				t.Errorf("took %v to refuse", d)
			}
		}
	})
	t.Run("huge nesting is refused", func(t *testing.T) {
		n := 400000
		s := strings.Repeat("$(", n) + "az x" + strings.Repeat(")", n)
		_, err := Parse(s)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("want a *SyntaxError, got %v", err)
		}
	})
	t.Run("wrapper chain", func(t *testing.T) {
		s := strings.Repeat("nohup ", 200) + "az x"
		calls, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		last := calls[len(calls)-1]
		if last.Via[len(last.Via)-1] != "too deep" || len(calls) != maxWrapperChain+1 {
			t.Errorf("got %d calls, last %s", len(calls), render(last))
		}
		checkCalls(t, s, calls)
	})
	t.Run("long and chain", func(t *testing.T) {
		s := strings.Repeat("az x && ", 5000) + "az y"
		calls, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 5001 {
			t.Errorf("got %d calls", len(calls))
		}
	})
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"prod", "prod"},
		{"11111111-1111-1111-1111-111111111111", "11111111-1111-1111-1111-111111111111"},
		{"a b", "'a b'"},
		{"it's", `"it's"`},
		{"", "''"},
		{"$(rm -rf /)", "'$(rm -rf /)'"},
		{"a\nb", `$'a\nb'`},
		{"a\x00b", "a"},
		{"if", "'if'"},
	} {
		got := Quote(tc.in)
		if got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// The quoted form must read back as the value (up to a NUL).
		v, ok := reparseWord(got)
		want, _, _ := strings.Cut(tc.in, "\x00")
		if !ok || v != want {
			t.Errorf("Quote(%q) = %q reads back as %q (ok=%v)", tc.in, got, v, ok)
		}
	}
}

// TestQuotePOSIX runs each quoted value through the system's sh (dash on Debian, which has no
// $'…'), as a harness runs a hook line, and checks that the program receives it unchanged.
func TestQuotePOSIX(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	for _, v := range []string{"prod", "/opt/bin/ctxguard", "a b", "it's", "", "$(id)", "a\nb", "bell\x07", `C:\Users\O'Brien\ctxguard.exe`} {
		q := QuotePOSIX(v)
		out, err := exec.Command(sh, "-c", "printf %s "+q).Output()
		if err != nil || string(out) != v {
			t.Errorf("sh -c 'printf %%s %s' = %q (%v), want %q", q, out, err, v)
		}
	}
}

func ExampleParse() {
	calls, _ := Parse(`cd infra && sudo -E TF_WORKSPACE=prod terraform plan | tee plan.txt`)
	for _, c := range calls {
		fmt.Println(render(c))
	}
	// Output:
	// cd infra
	// sudo -E TF_WORKSPACE=prod terraform plan dir=infra
	// terraform plan env[TF_WORKSPACE=prod] dir=infra via=sudo
	// tee plan.txt dir=infra
}

// TestMay checks what a word that is not literal may be (rules.Call.May): a for loop's items and
// an unknown assignment's text in the place of the variable, in bash and PowerShell; and what
// find -delete writes.
func TestMay(t *testing.T) {
	for _, tt := range []struct {
		line string
		ps   bool
		want []string // the May values of the last call
	}{
		{`for f in ~/.kube/config ~/.aws/*; do sed -i s/a/b/ "$f"; done`, false, []string{`"~/.kube/config"`, `"~/.aws/*"`}},
		{`for f in ~/.kube/*; do > "${f}.bak"; done`, false, []string{`"~/.kube/*.bak"`, `"${f}.bak"`}},
		{`f=$HOME/.kube/config; sed -i s/a/b/ $f`, false, []string{`$HOME/.kube/config`}},
		{`for f in ~/.kube/*; do f=x; sed -i s/a/b/ "$f"; done`, false, nil},
		{`for f in ~/.kube/*; do sed -i s/a/b/ "$file"; done`, false, nil},
		// find's {} stands for what it finds: under its starting points, the names it tests.
		{`find ~/.kube -name config -exec rm {} +`, false, []string{`~/.kube/config`, `~/.kube/*/config`, `~/.kube/*/*/config`, `~/.kube/*/*/*/config`}},
		// What xargs appends, when the line shows its input.
		{`echo a .ctxguard.yaml | xargs rm -f`, false, []string{`a`, `.ctxguard.yaml`}},
		{"printf 'x y\\n.claude/settings.json\\n' | xargs -I{} cp /dev/null {}", false, []string{`x y`, `.claude/settings.json`}},
		{`echo "a b" | xargs rm`, false, []string{`a`, `b`}},
		{`echo "'a b'" | xargs rm`, false, nil},
		{`find a b/ -name x -delete`, false, []string{`a/x`, `a/*/x`, `a/*/*/x`, `a/*/*/*/x`, `b/x`, `b/*/x`, `b/*/*/x`, `b/*/*/*/x`}},
		{`find -type f -execdir sed -i s/a/b/ x{}`, false, []string{`x./*`, `x./*/*`, `x./*/*/*`, `x./*/*/*/*`}},
		{`foreach ($F in Get-ChildItem ~/.kube) { Set-Content $f x }`, true, []string{`~/.kube/*`, `~/.kube`}},
		{`foreach ($f in 'a.txt', "b.txt") { Set-Content $f x }`, true, []string{`a.txt`, `b.txt`}},
		{`Get-ChildItem ~/.kube | ForEach-Object { Set-Content $_.FullName x }`, true, []string{`~/.kube/*`, `~/.kube`}},
		{`'a.txt' | %{ Remove-Item $PSItem }`, true, []string{`a.txt`}},
	} {
		parse := Parse
		if tt.ps {
			parse = ParsePowerShell
		}
		calls, err := parse(tt.line)
		if err != nil {
			t.Fatal(err)
		}
		// The first call that has any (a ForEach-Object after its block's calls has its own).
		var got []string
		for _, c := range calls {
			for _, m := range append(c.May, c.Writes...) {
				got = append(got, m.Value)
			}
			if got != nil {
				break
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: May (-want +got):\n%s", tt.line, diff)
		}
	}
}
