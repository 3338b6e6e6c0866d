package shell

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/rules"
)

// psRender is render plus the files a call's redirections write (writes=…).
func psRender(c rules.Call) string {
	s := render(c)
	if len(c.Writes) > 0 {
		var ws []string
		for _, w := range c.Writes {
			ws = append(ws, renderWord(w))
		}
		s += " writes=" + strings.Join(ws, ",")
	}
	return s
}

func TestParsePowerShell(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"az group list", []string{"az group list"}},
		{"AZ.CMD group list", []string{"az group list"}},
		{`& "C:\Program Files\az.cmd" account show`, []string{"az account show via=&"}},
		{"& 'az' group list", []string{"az group list via=&"}},
		{". ./deploy.ps1 -Env prod", []string{"deploy -Env prod via=."}},
		// Statement separators, pipelines and PowerShell 7 chains.
		{"Get-Date; az group list | ConvertFrom-Json", []string{"get-date", "az group list", "convertfrom-json"}},
		{"az login && kubectl get pods || gh pr list", []string{"az login", "kubectl get pods", "gh pr list"}},
		{"az group list\nkubectl get pods\r\ngh pr list", []string{"az group list", "kubectl get pods", "gh pr list"}},
		{"Start-Sleep 1 & az group list", []string{"start-sleep 1", "az group list"}},
		// Quoting: single quotes with '' doubling, double quotes with backtick and "" escapes,
		// typographic quotes, backtick escapes in bare words.
		{"az group create -n 'it''s'", []string{`az group create -n "it's"`}},
		{"az group create -n \"a`\"b\"\"c\"", []string{`az group create -n "a\"b\"c"`}},
		{"az group create -n ‘x’ --tags “a b”", []string{`az group create -n x --tags "a b"`}},
		{"az` group list", []string{"az group list"}}, // the command is named "az group"
		{"a`z group list", []string{"az group list"}},
		{"az group list `\n  --output table", []string{"az group list --output table"}},
		{"az group create -n a`tb", []string{`az group create -n "a\tb"`}},
		// Comments and block comments.
		{"az group list # az group delete", []string{"az group list"}},
		{"<# kubectl delete ns prod #> gh pr list", []string{"gh pr list"}},
		{"<# multi\nline az #>\naz login", []string{"az login"}},
		{"echo a#b", []string{"echo a#b"}},
		// Here-strings are data.
		{"Write-Output @'\naz group delete -n x\n'@", []string{`write-output "az group delete -n x"`}},
		{"Write-Output @\"\naz $x\n\"@; gh pr list", []string{"write-output ?\"@\\\"\\naz $x\\n\\\"@\"", "gh pr list"}},
		{"$s = @'\nkubectl delete ns prod\n'@\naz login", []string{"az login"}},
		// --% passes the rest of the line verbatim.
		{"az --% group list %SUB%\ngh pr list", []string{`az ?"group" ?"list" ?"%SUB%"`, "gh pr list"}},
		// Variables, subexpressions and arrays are not literal; their calls run first.
		{"az group list --subscription $sub", []string{`az group list --subscription ?"$sub"`}},
		{"az group list --subscription $env:SUB", []string{`az group list --subscription ?"$env:SUB"`}},
		{`Write-Output "sub: $(az account show --query id)"`, []string{"az account show --query id", `write-output ?"\"sub: $(az account show --query id)\""`}},
		{"kubectl get pods -n (az group list)", []string{"az group list", `kubectl get pods -n ?"(az group list)"`}},
		{"$x = az account show; kubectl get pods", []string{"az account show", "kubectl get pods"}},
		{"az vm list --ids a,b", []string{`az vm list --ids ?"a,b"`}},
		// A number is passed as its value: literal only where that is its text.
		{"kubectl scale --replicas 0x10", []string{`kubectl scale --replicas ?"0x10"`}},
		{"pac auth select --index 1", []string{"pac auth select --index 1"}},
		{"az account set --subscription 2; kubectl scale --replicas 10 x", []string{"az account set --subscription 2", "kubectl scale --replicas 10 x"}},
		{"kubectl scale --replicas 007 1kb 1e3 1.50 -1 +1 12345678901234567890", []string{`kubectl scale --replicas ?"007" ?"1kb" ?"1e3" ?"1.50" ?"-1" ?"+1" ?"12345678901234567890"`}},
		{"kubectl scale --replicas '0x10'", []string{"kubectl scale --replicas 0x10"}},
		// Script blocks and compound statements: their calls are read, keywords are not calls.
		{"Get-ChildItem | ForEach-Object { kubectl delete pod $_.Name }", []string{"get-childitem", `kubectl delete pod ?"$_.Name"`, `foreach-object ?"{ kubectl delete pod $_.Name }"`}},
		{"& { az group list }", []string{"az group list"}},
		{"if ($x -eq 1) { az login } elseif (gh auth status) { gcloud auth list } else { kubectl get ns }", []string{"az login", "gh auth status", "gcloud auth list", "kubectl get ns"}},
		{"foreach ($g in az group list) { az group show -n $g }", []string{"az group list", `az group show -n ?"$g"`}},
		{"try { az login } catch { Write-Error $_ } finally { gh pr list }", []string{"az login", `write-error ?"$_"`, "gh pr list"}},
		{"function Deploy { param($x) terraform apply }; Deploy", []string{"terraform apply", "deploy", "terraform apply via=function"}},
		// Constant propagation: known strings and arrays where the line reads them.
		{"$a = 'az'; & $a group list", []string{"az group list via=&"}},
		{"$A = \"az\"; & $a group list; & ${a} vm list", []string{"az group list via=&", "az vm list via=&"}},
		{"$c = 'kubectl delete ns x'; iex $c", []string{`iex "kubectl delete ns x"`, "kubectl delete ns x via=iex nested"}},
		{"$x = @('group', 'list'); $n = 'az'; & $n @x", []string{"az group list via=&"}},
		{"$x = 'group','list'; az $x --subscription \"$s\"", []string{`az group list --subscription ?"\"$s\""`}},
		{"$s = 'dev'; az group list --subscription \"sub-$s\"", []string{`az group list --subscription sub-dev`}},
		{"$f = '.ctxguard.yaml'; 'x' > $f", []string{`?"" writes=.ctxguard.yaml`}},
		{"$env:T = 'kubectl'; & $env:T get pods", []string{"kubectl get pods env[T:=kubectl] via=&"}},
		// What may change a variable leaves it unknown.
		{"$a = 'ls'; $a += 'x'; & $a", []string{`?"$a" via=&`}},
		{"$a = 'ls'; [string]$a = 'az'; & $a group list", []string{`?"$a" group list via=&`}},
		{"$a = 'ls'; $b = 'ls'; $a, $b = 'az', 'az'; & $b", []string{`?"$b" via=&`}},
		{"$a = @('ls'); $a[0] = 'az'; & $a", []string{`?"$a" via=&`}},
		{"$a = 'ls'; $a = (Get-Date); & $a", []string{"get-date", `?"$a" via=&`}},
		{"$_ = 'az'; & $_ group list", []string{`?"$_" group list via=&`}},
		{"$a = 'ls'; Set-Variable a az; & $a", []string{"set-variable a az", `?"$a" via=&`}},
		{"$a = 'ls'; sv a az; & $a", []string{"sv a az", `?"$a" via=&`}},
		{"$a = 'ls'; Write-Output az -OutVar a; & $a", []string{"write-output az -OutVar a", `?"$a" via=&`}},
		{"$a = 'ls'; . ./x.ps1; & $a", []string{"x via=.", `?"$a" via=&`}},
		{"$a = 'ls'; & ('s' + 'v') a az; & $a", []string{`?"('s' + 'v')" a az via=&`, `?"$a" via=&`}},
		// A body that may not run, or runs again.
		{"$a = 'az'; if ($x) { $a = 'ls' }; & $a group list", []string{`?"$a" group list via=&`}},
		{"$a = 'az'; if ($x) { $a = 'ls' } else { & $a group list }", []string{`?"$a" group list via=&`}},
		{"$a = 'ls'; foreach ($i in 1, 2) { & $a group list; $a = 'az' }", []string{"ls group list via=&", `?"$a" group list via=&`, `?"$a" group list via=&`}},
		{"$a = 'ls'; while ($true) { & $a x; $a = 'az' }", []string{"ls x via=&", `?"$a" x via=&`, `?"$a" x via=&`}},
		{"$a = 'ls'; 1, 2 | ForEach-Object { & $a x; $a = 'az' }", []string{"ls x via=&", `?"$a" x via=&`, `foreach-object ?"{ & $a x; $a = 'az' }"`}},
		{"$a = 'az'; & { $a = 'ls' }; & $a x", []string{`?"$a" x via=&`}},
		// Functions and script blocks called with literal arguments.
		{"function f { az @args }; f group delete -n rg --yes", []string{`az ?"@args"`, "f group delete -n rg --yes", "az group delete -n rg --yes via=function"}},
		{"function f($c) { kubectl $c ns payments }; f delete", []string{`kubectl ?"$c" ns payments`, "f delete", "kubectl delete ns payments via=function"}},
		{"& { param($v) kubectl $v ns payments } delete", []string{`kubectl ?"$v" ns payments`, "kubectl delete ns payments via=function"}},
		{"$v = 'get'; & { param($v) kubectl $v ns } ", []string{`kubectl ?"$v" ns`}},
		{"function f { param($v = 'x') kubectl $v ns }; f delete", []string{`kubectl ?"$v" ns`, "f delete", `kubectl ?"$v" ns via=function`}},
		{"& { param([string]$c) kubectl $c ns payments } delete", []string{`kubectl ?"$c" ns payments`, "kubectl delete ns payments via=function"}},
		// A [switch] takes no position, and an attribute may change the positions: not bound.
		{"& { param([switch]$f, $c) kubectl $c ns payments } delete", []string{`kubectl ?"$c" ns payments`, `kubectl ?"$c" ns payments via=function`}},
		{"& { param([Parameter(Position=1)]$c, [Parameter(Position=0)]$d) & $c $d ns } delete kubectl",
			[]string{"position=1", "position=0", `?"$c" ?"$d" ns via=&`, "position=1 via=function", "position=0 via=function", `?"$c" ?"$d" ns via=function>&`}},
		// After a compound statement, & is the call operator, not a background job.
		{"& { param($c) & $c delete ns payments } kubectl", []string{`?"$c" delete ns payments via=&`, "kubectl delete ns payments via=function>&"}},
		{"if ($x) { az a } & kubectl b", []string{"az a", "kubectl b via=&"}},
		{"while ($true) { kubectl get pods; break }", []string{"kubectl get pods"}},
		// Environment: $env:NAME sets it for every later call.
		{"$env:TF_WORKSPACE='staging'; terraform plan", []string{`terraform plan env[TF_WORKSPACE:=staging]`}},
		{"$env:TF_WORKSPACE = \"a b\"\nterraform plan", []string{`terraform plan env[TF_WORKSPACE:="a b"]`}},
		// A block that may not run leaves what it sets unknown.
		{"if ($c) { $env:TF_WORKSPACE = 'dev' }; terraform plan", []string{`terraform plan env[TF_WORKSPACE:=?"$env:TF_WORKSPACE"]`}},
		{"$env:KUBECONFIG = $p; kubectl get pods", []string{`kubectl get pods env[KUBECONFIG:=?"$p"]`}},
		{"$env:X='1'; $env:X=$null; az login", []string{"az login"}},
		// Directory changes.
		{"cd infra; terraform plan", []string{"cd infra", "terraform plan dir=infra"}},
		{"Set-Location -Path ../prod && terraform plan", []string{"set-location -Path ../prod", "terraform plan dir=../prod"}},
		{"if ($x) { cd a }; terraform plan", []string{"cd a", "terraform plan dir=?"}},
		{`cd C:\work\infra; terraform plan`, []string{`cd "C:\\work\\infra"`, "terraform plan dir=C:/work/infra"}},
		{`if ($x) { cd a }; Set-Location D:/x; cd ..\..; cd \w; cd y; terraform plan`, []string{"cd a", "set-location D:/x dir=?", `cd "..\\.." dir=D:/x`, `cd "\\w" dir=D:/`, "cd y dir=D:/w", "terraform plan dir=D:/w/y"}},
		{"cd C:; terraform plan", []string{"cd C:", "terraform plan dir=?"}},
		{`cd HKLM:\Software; terraform plan`, []string{`cd "HKLM:\\Software"`, "terraform plan dir=?"}},
		{`cd \\server\share; terraform plan`, []string{`cd "\\\\server\\share"`, "terraform plan dir=?"}},
		// Strings run again: iex, pwsh -Command, bash -c.
		{"iex 'az group delete -n x'", []string{`iex "az group delete -n x"`, "az group delete -n x via=iex nested"}},
		{"Invoke-Expression -Command \"kubectl get pods\"", []string{`invoke-expression -Command "kubectl get pods"`, "kubectl get pods via=iex nested"}},
		{"'az group delete' | iex", []string{"iex", "az group delete via=iex nested"}},
		{"Write-Output 'az group list' 'kubectl get pods' | bash", []string{`write-output "az group list" "kubectl get pods"`, "bash", "az group list via=| bash nested", "kubectl get pods via=| bash nested"}},
		// What is piped in without being shown is asked about, as bash's `… | base64 -d | bash`.
		{"echo 'az group list' $x | bash", []string{`echo "az group list" ?"$x"`, "bash", `?"bash" ?"bash" via=| bash`}},
		{"Get-Content s.txt | iex", []string{"get-content s.txt", "iex", `?"iex" ?"iex" via=iex`}},
		// Text decoded from a literal is read.
		{"[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('YXogZ3JvdXAgbGlzdA==')) | Invoke-Expression",
			[]string{"invoke-expression", "az group list via=iex nested"}},
		{"iex ([System.Text.Encoding]::Unicode.GetString([System.Convert]::FromBase64String('YQB6ACAAeAA=')))",
			[]string{`iex ?"([System.Text.Encoding]::Unicode.GetString([System.Convert]::FromBase64String('YQB6ACAAeAA=')))"`, "az x via=iex nested"}},
		{"$c = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('YXogZ3JvdXAgbGlzdA==')); iex $c",
			[]string{`iex "az group list"`, "az group list via=iex nested"}},
		// Files the line writes, then runs.
		{"Set-Content s.ps1 'az group list'; ./s.ps1", []string{"set-content s.ps1 \"az group list\"", "s", "az group list via=./s.ps1 nested"}},
		{"'kubectl delete ns x' | Out-File -FilePath .\\S.ps1; . ./s.ps1", []string{"out-file -FilePath \".\\\\S.ps1\"", "s via=.", "kubectl delete ns x via=.>./s.ps1 nested"}},
		{"Set-Content -Value 'az x' -Path s.ps1; Add-Content s.ps1 'kubectl get pods'; & ./s.ps1", []string{"set-content -Value \"az x\" -Path s.ps1", "add-content s.ps1 \"kubectl get pods\"", "s via=&", "az x via=&>./s.ps1 nested", "kubectl get pods via=&>./s.ps1 nested"}},
		{"echo 'az x' > s.ps1; pwsh -File s.ps1", []string{"echo \"az x\" writes=s.ps1", "pwsh -File s.ps1", "az x via=pwsh s.ps1 nested"}},
		{"Set-Content s.ps1 $c; ./s.ps1", []string{`set-content s.ps1 ?"$c"`, "s", `?"./s.ps1" ?"./s.ps1" via=./s.ps1`}},
		{"Set-Content s.ps1 'az x'; Remove-Item s.ps1; ./s.ps1", []string{"set-content s.ps1 \"az x\"", "remove-item s.ps1", "s"}},
		{"Copy-Item (Get-Command kubectl).Source ./k; ./k delete ns x", []string{"get-command kubectl", `copy-item ?"(Get-Command kubectl).Source" ./k`, "kubectl delete ns x"}},
		{"New-Item -ItemType SymbolicLink -Path k -Target $(gcm az).Path; ./k group list", []string{"gcm az", `new-item -ItemType SymbolicLink -Path k -Target ?"$(gcm az).Path"`, "az group list"}},
		{"Set-Content a.ps1 'az x'; Copy-Item a.ps1 b.ps1; ./b.ps1", []string{"set-content a.ps1 \"az x\"", "copy-item a.ps1 b.ps1", "b", "az x via=./b.ps1 nested"}},
		{"parallel kubectl delete pod ::: a b", []string{"parallel kubectl delete pod ::: a b", "kubectl delete pod via=parallel +args"}},
		{"iex \"az $args\"", []string{`iex ?"\"az $args\""`, `?"iex \"az $args\"" ?"iex \"az $args\"" via=iex`}},
		{"pwsh -c 'az login'", []string{`pwsh -c "az login"`, "az login via=pwsh -Command nested"}},
		{"bash -c 'rm .claude/settings.json'", []string{`bash -c "rm .claude/settings.json"`, "rm .claude/settings.json via=bash -c nested"}},
		{"bash -c $cmd", []string{`bash -c ?"$cmd"`, `?"bash -c $cmd" ?"bash -c $cmd" via=bash -c`}},
		{"'az group list' | bash", []string{"bash", "az group list via=| bash nested"}},
		{"pwsh -NoProfile -Command Set-Location infra; terraform plan", []string{"pwsh -NoProfile -Command Set-Location infra", "set-location infra via=pwsh -Command nested", "terraform plan"}},
		{"pwsh -nop -c 'cd infra; terraform plan'", []string{`pwsh -nop -c "cd infra; terraform plan"`, "cd infra via=pwsh -Command nested", "terraform plan dir=infra via=pwsh -Command nested"}},
		{"powershell kubectl delete ns prod", []string{"powershell kubectl delete ns prod", "kubectl delete ns prod via=powershell -Command nested"}},
		{"pwsh -c { az group list }", []string{"az group list", `pwsh -c ?"{ az group list }"`}},
		{"pwsh -cwa 'az group list $args' x", []string{`pwsh -cwa "az group list $args" x`, `az group list ?"$args" via=pwsh -CommandWithArgs nested`}},
		// -EncodedCommand is base64 of UTF-16LE text; what cannot be decoded is opaque.
		{"pwsh -EncodedCommand " + encodePS("az group delete -n x"), []string{"pwsh -EncodedCommand " + encodePS("az group delete -n x"), "az group delete -n x via=pwsh -EncodedCommand nested"}},
		{"powershell.exe -NoP -enc " + encodePS("$env:X='1'; kubectl get pods"), []string{"powershell -NoP -enc " + encodePS("$env:X='1'; kubectl get pods"), "kubectl get pods env[X:=1] via=powershell -EncodedCommand nested"}},
		{"pwsh -ex Bypass -wd C:\\x -co 'az group list'", []string{`pwsh -ex Bypass -wd "C:\\x" -co "az group list"`, "az group list via=pwsh -Command nested"}},
		{"pwsh -e " + encodePS("az group list"), []string{"pwsh -e " + encodePS("az group list"), "az group list via=pwsh -EncodedCommand nested"}},
		{"'az group list' | pwsh -NoProfile -Command -", []string{"pwsh -NoProfile -Command -", "az group list via=| pwsh nested"}},
		{"'az group list' | powershell -", []string{"powershell -", "az group list via=| powershell nested"}},
		{"pwsh -ec 'not base64!'", []string{`pwsh -ec "not base64!"`, `?"pwsh -ec 'not base64!'" ?"pwsh -ec 'not base64!'" via=pwsh -EncodedCommand`}},
		// A script file's content is not known, as for bash FILE.
		{"pwsh -File deploy.ps1 -Env prod", []string{"pwsh -File deploy.ps1 -Env prod"}},
		{"pwsh deploy.ps1", []string{"pwsh deploy.ps1"}},
		// Wrappers are the bash reader's (one table).
		{"wsl kubectl delete ns prod", []string{"wsl kubectl delete ns prod", "kubectl delete ns prod dir=? via=wsl"}},
		{"wsl --list", []string{"wsl --list"}},
		{"sudo kubectl delete ns prod", []string{"sudo kubectl delete ns prod", "kubectl delete ns prod via=sudo"}},
		{"bash -lc 'az group delete -n x'", []string{`bash -lc "az group delete -n x"`, "az group delete -n x via=bash -c nested"}},
		{"env X=1 kubectl get pods", []string{"env X=1 kubectl get pods", "kubectl get pods env[X=1] via=env"}},
		{"$env:A='1'; sudo -E kubectl get pods; sudo kubectl get ns", []string{"sudo -E kubectl get pods env[A:=1]", "kubectl get pods env[A:=1] via=sudo", "sudo kubectl get ns env[A:=1]", "kubectl get ns via=sudo"}},
		{"& sudo timeout 1m az x", []string{"sudo timeout 1m az x via=&", "timeout 1m az x via=&>sudo", "az x via=&>sudo>timeout"}},
		{"Get-ChildItem *.yaml | xargs kubectl apply -f", []string{"get-childitem *.yaml", "xargs kubectl apply -f", "kubectl apply -f via=xargs +args"}},
		// Commands ctxguard cannot follow are opaque.
		{"Start-Process az -ArgumentList 'group','list'", []string{`start-process az -ArgumentList ?"'group','list'"`, `?"Start-Process az -ArgumentList 'group','list'" ?"Start-Process az -ArgumentList 'group','list'" via=start-process`}},
		{"cmd /c 'az group list'", []string{`cmd /c "az group list"`, "az group list via=cmd /c nested"}},
		{"cmd /c az group list --subscription %SUB%", []string{"cmd /c az group list --subscription %SUB%", `?"az group list --subscription %SUB%" ?"az group list --subscription %SUB%" via=cmd /c nested`}},
		{"& $cli group list", []string{`?"$cli" group list via=&`}},
		// Redirections.
		{"echo x > .ctxguard.yaml", []string{"echo x writes=.ctxguard.yaml"}},
		{"az group list 2>&1 >> out.txt", []string{"az group list writes=out.txt"}},
		{"az group list *> 'all.txt'", []string{"az group list writes=all.txt"}},
		// An expression's output redirected to a file writes it too.
		{"'x' > .ctxguard.yaml", []string{`?"" writes=.ctxguard.yaml`}},
		{"\"a: $(az account show)\" >> .ctxguard.yaml; $x 2>&1 > out.txt", []string{"az account show", `?"" writes=.ctxguard.yaml`, `?"" writes=out.txt`}},
		{"& { az group list } > out.txt", []string{"az group list", `?"" writes=out.txt`}},
		{"$y = 'a' > f.txt", []string{`?"" writes=f.txt`}},
		// Unreadable text is one opaque call, never an error.
		{"az group list 'unterminated", []string{`?"az group list 'unterminated" ?"az group list 'unterminated" via=powershell (unreadable: unterminated string at byte 27)`}},
		{"az group list < in.txt", []string{`?"az group list < in.txt" ?"az group list < in.txt" via=powershell (unreadable: the '<' operator is reserved for future use at byte 14)`}},
		{"", nil},
		{"# only a comment", nil},
	}
	for _, tt := range tests {
		calls, err := ParsePowerShell(tt.src)
		if err != nil {
			t.Errorf("ParsePowerShell(%q): %v", tt.src, err)
			continue
		}
		var got []string
		for _, c := range calls {
			got = append(got, psRender(c))
			checkOffsets(t, tt.src, c)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePowerShell(%q) mismatch (-want +got):\n%s", tt.src, diff)
		}
	}
}

// checkOffsets checks that every position of a call lies in its Src and that a bare literal
// word's text is its value.
func checkOffsets(t *testing.T, src string, c rules.Call) {
	t.Helper()
	if !c.Nested && c.Src != src {
		t.Errorf("%q: call %q has Src %q", src, c.Name, c.Src)
	}
	in := func(w rules.Word) {
		if w.Pos == -1 && w.End == -1 {
			return
		}
		if w.Pos < 0 || w.Pos > w.End || w.End > len(c.Src) {
			t.Errorf("%q: word %q at [%d,%d] outside Src of length %d", src, w.Value, w.Pos, w.End, len(c.Src))
			return
		}
		if !w.Literal && w.Value != c.Src[w.Pos:w.End] {
			t.Errorf("%q: non-literal word %q is not its source %q", src, w.Value, c.Src[w.Pos:w.End])
		}
	}
	in(c.NameWord)
	for _, a := range c.Args {
		in(a)
	}
	for _, a := range c.Writes {
		in(a)
	}
	for _, e := range c.Env {
		in(e.Value)
	}
	if c.Start < 0 || c.Start > c.End || c.End > len(c.Src) {
		t.Errorf("%q: call %q spans [%d,%d] of %d", src, c.Name, c.Start, c.End, len(c.Src))
	}
}

// encodePS is what pwsh -EncodedCommand takes: base64 of UTF-16LE text.
func encodePS(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestQuotePowerShell(t *testing.T) {
	for _, v := range []string{"prod", "Contoso-Dev", "11111111-1111-4111-8111-111111111111", "a b", "it's", "it’s", "$x", "-x", "0x10", "@a", "", "a;b", "`n", "tab\there", "1", "42", "007", "1e5", `C:\Users\me\ctxguard.exe`, `\\server\share`} {
		q := QuotePowerShell(v)
		calls, err := ParsePowerShell("x " + q)
		if err != nil || len(calls) != 1 || len(calls[0].Args) != 1 {
			t.Errorf("QuotePowerShell(%q) = %s, which reads as %d calls (%v)", v, q, len(calls), err)
			continue
		}
		a := calls[0].Args[0]
		if !a.Literal || a.Value != v {
			t.Errorf("QuotePowerShell(%q) = %s, which reads back as %q (literal %v)", v, q, a.Value, a.Literal)
		}
	}
	// A profile index stays a bare number in a fix (pac auth select --index 1); a number that
	// PowerShell would read differently is quoted.
	for v, want := range map[string]string{"1": "1", "42": "42", "007": "'007'", "1e5": "'1e5'", "0x10": "'0x10'"} {
		if got := QuotePowerShell(v); got != want {
			t.Errorf("QuotePowerShell(%q) = %s, want %s", v, got, want)
		}
	}
}

func TestRewritePowerShell(t *testing.T) {
	tests := []struct {
		src   string
		edits []rules.Edit
		want  string
		err   string
	}{
		{"az group list | ConvertFrom-Json", []rules.Edit{{At: 13, Text: " --subscription 'a b'"}}, "az group list --subscription 'a b' | ConvertFrom-Json", ""},
		{"& { az group list }", []rules.Edit{{At: 17, Text: " --subscription dev"}}, "& { az group list --subscription dev }", ""},
		{"az group list # c", []rules.Edit{{At: 13, Text: " --subscription dev"}}, "az group list --subscription dev # c", ""},
		// An edit that adds a command, a variable or a redirection is refused.
		{"az group list", []rules.Edit{{At: 13, Text: "; rm x"}}, "", "is not a list of words"},
		{"az group list", []rules.Edit{{At: 13, Text: " --subscription $x"}}, "", "has an expansion"},
		{"az group list", []rules.Edit{{At: 13, Text: " > f"}}, "", "is not a list of words"},
		// An edit inside a string changes that string, which is refused.
		{"iex 'az group list'", []rules.Edit{{At: 18, Text: " --subscription dev"}}, "", "rewrite"},
	}
	for _, tt := range tests {
		got, err := RewritePowerShell(tt.src, tt.edits)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("RewritePowerShell(%q, %v) = %q, %v; want error containing %q", tt.src, tt.edits, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("RewritePowerShell(%q, %v) = %q, %v; want %q", tt.src, tt.edits, got, err, tt.want)
		}
	}
}

func FuzzParsePowerShell(f *testing.F) {
	for _, s := range []string{"az group list", "iex 'az x'", "& { az }", "@'\nx\n'@", "$env:A='b'; az", "a `\n b", "<# x #>", "\"$(az x)\"", "--% a b",
		"sudo -E env A=1 az x", "wsl -e az x", "bash -lc 'az x; cd a'", "pwsh -enc YQB6AA==", "pwsh -c 'iex ''az x'''", "cmd /c 'az x'",
		"'x' > f", `cd C:\x; cd ..; az`, "echo 'az x' | bash", "'az' | xargs -I{} sh -c {}", "find . -exec az {} ';'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		calls, err := ParsePowerShell(src)
		if err != nil {
			return
		}
		for _, c := range calls {
			checkOffsets(t, src, c)
			for _, v := range c.Via {
				if strings.Contains(v, "internal error") {
					t.Fatalf("ParsePowerShell(%q): %s", src, v)
				}
			}
		}
	})
}
