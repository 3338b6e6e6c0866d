package shell

import (
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/rules"
)

// at returns the offset just after the first occurrence of mark in src, or of its start when
// mark begins with "^".
func at(t *testing.T, src, mark string) int {
	t.Helper()
	before := strings.HasPrefix(mark, "^")
	mark = strings.TrimPrefix(mark, "^")
	i := strings.Index(src, mark)
	if i < 0 {
		t.Fatalf("%q not in %q", mark, src)
	}
	if before {
		return i
	}
	return i + len(mark)
}

func TestRewrite(t *testing.T) {
	type ed struct{ mark, text string }
	tests := []struct {
		name  string
		src   string
		edits []ed
		want  string
	}{
		{"flag at end of chained call", `kubectl apply -f x && echo done`, []ed{{"-f x", " --context dev"}},
			`kubectl apply -f x --context dev && echo done`},
		{"flag before --", `kubectl exec p -- ls`, []ed{{"^--", "--context dev "}},
			`kubectl exec p --context dev -- ls`},
		{"trailing comment", `kubectl get pods # list them`, []ed{{"pods", " --context dev"}},
			`kubectl get pods --context dev # list them`},
		{"quoted value", `az group list`, []ed{{"list", " --subscription " + Quote("a b")}},
			`az group list --subscription 'a b'`},
		{"value with a quote", `az group list`, []ed{{"list", " --subscription " + Quote("it's")}},
			`az group list --subscription "it's"`},
		{"plain value stays bare", `az group list`, []ed{{"list", " --subscription " + Quote("11111111-1111-1111-1111-111111111111")}},
			`az group list --subscription 11111111-1111-1111-1111-111111111111`},
		{"env prefix", `terraform plan`, []ed{{"^terraform", "TF_WORKSPACE=staging "}},
			`TF_WORKSPACE=staging terraform plan`},
		{"env prefix overriding", `TF_WORKSPACE=prod terraform plan`, []ed{{"^terraform", "TF_WORKSPACE=staging "}},
			`TF_WORKSPACE=prod TF_WORKSPACE=staging terraform plan`},
		{"env wrapper after sudo", `sudo terraform plan`, []ed{{"^terraform", "env TF_WORKSPACE=staging "}},
			`sudo env TF_WORKSPACE=staging terraform plan`},
		{"env wrapper after time", `time terraform plan`, []ed{{"^terraform", "env TF_WORKSPACE=staging "}},
			`time env TF_WORKSPACE=staging terraform plan`},
		{"env wrapper after xargs", `ls | xargs terraform plan`, []ed{{"^terraform", "env TF_WORKSPACE=staging "}},
			`ls | xargs env TF_WORKSPACE=staging terraform plan`},
		{"after the command word", `gh pr list`, []ed{{"gh", " --repo " + Quote("o/r")}},
			`gh --repo o/r pr list`},
		{"through a wrapper", `sudo az group list`, []ed{{"list", " --subscription x"}},
			`sudo az group list --subscription x`},
		{"two calls", `az group list && az vm list | grep x`, []ed{{"group list", " --subscription a"}, {"vm list", " --subscription b"}},
			`az group list --subscription a && az vm list --subscription b | grep x`},
		{"same offset keeps order", `az x`, []ed{{"x", " --a 1"}, {"x", " --b 2"}},
			`az x --a 1 --b 2`},
		{"inside a substitution", `echo $(az account show) done`, []ed{{"show", " --subscription s"}},
			`echo $(az account show --subscription s) done`},
		{"call with a redirection", `kubectl get pods > out.txt 2>&1`, []ed{{"pods", " --context dev"}},
			`kubectl get pods --context dev > out.txt 2>&1`},
		{"prefix on a child shell", `X=1 bash -c 'terraform plan'`, []ed{{"^bash", "TF_WORKSPACE=s "}},
			`X=1 TF_WORKSPACE=s bash -c 'terraform plan'`},
		{"find -exec before {}", `find . -exec kubectl apply -f {} \;`, []ed{{"^{}", "--context dev "}},
			`find . -exec kubectl apply -f --context dev {} \;`},
		{"substitution inside a child shell string", `bash -c "az $(kubectl get x)"`, []ed{{"get x", " --context dev"}},
			`bash -c "az $(kubectl get x --context dev)"`},
		{"env wrapper on a nested shell", `bash -c 'terraform plan'`, []ed{{"^bash", "env TF_WORKSPACE=s "}},
			`env TF_WORKSPACE=s bash -c 'terraform plan'`},
		{"after exports", `export KUBECONFIG=/k; kubectl get pods`, []ed{{"pods", " --context dev"}},
			`export KUBECONFIG=/k; kubectl get pods --context dev`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var edits []rules.Edit
			for _, e := range tc.edits {
				edits = append(edits, rules.Edit{At: at(t, tc.src, e.mark), Text: e.text})
			}
			got, err := Rewrite(tc.src, edits)
			if err != nil {
				t.Fatalf("Rewrite(%q, %v): %v", tc.src, edits, err)
			}
			if got != tc.want {
				t.Errorf("Rewrite(%q, %v) = %q, want %q", tc.src, edits, got, tc.want)
			}
		})
	}
}

func TestRewriteRejects(t *testing.T) {
	tests := []struct {
		name string
		src  string
		edit rules.Edit
		want string // part of the error
	}{
		{"inside a quoted string", `az group list --query "[0].id"`, rules.Edit{At: 24, Text: " --subscription x"}, "word"},
		{"inside single quotes", `echo 'a b' && az x`, rules.Edit{At: 7, Text: " --x y"}, "word"},
		{"command separator", `az group list`, rules.Edit{At: 13, Text: "; rm -rf /"}, ""},
		{"and list", `az group list`, rules.Edit{At: 13, Text: " && rm -rf /"}, ""},
		{"newline", `az group list`, rules.Edit{At: 13, Text: "\nrm -rf /"}, "adds the command"},
		{"substitution", `az group list`, rules.Edit{At: 13, Text: " $(rm -rf /)"}, "expansion"},
		{"variable", `az group list`, rules.Edit{At: 13, Text: " --subscription $SUB"}, "expansion"},
		{"redirection", `az group list`, rules.Edit{At: 13, Text: " > /etc/passwd"}, "not a list of words"},
		{"comment", `az group list && rm x`, rules.Edit{At: 13, Text: " #"}, "no words"},
		{"merges with a word", `kubectl get pods`, rules.Edit{At: 16, Text: "--context dev"}, ""},
		{"splits a word", `kubectl get pods`, rules.Edit{At: 14, Text: " --context dev "}, ""},
		{"out of range", `az x`, rules.Edit{At: 10, Text: " --y z"}, "outside"},
		{"negative", `az x`, rules.Edit{At: -1, Text: " --y z"}, "outside"},
		{"into a here-document", "cat <<EOF\nbody\nEOF", rules.Edit{At: 14, Text: " --y z"}, "does not become words"},
		{"into a child shell string", `bash -c 'az x'`, rules.Edit{At: 13, Text: " --y z"}, ""},
		{"new command before", `az x`, rules.Edit{At: 0, Text: "sudo "}, "adds the command"},
		{"changes the command", `az x`, rules.Edit{At: 0, Text: "echo "}, "adds the command"},
		{"bad syntax", `az "x`, rules.Edit{At: 0, Text: "X=1 "}, "syntax"},
		{"edited line breaks", `az x`, rules.Edit{At: 0, Text: "'"}, ""},
		{"inside a parameter default", `bash -c "az ${X:-d}"`, rules.Edit{At: 18, Text: " --y z"}, "does not become words"},
		{"literal inside a string", `bash -c "az x"`, rules.Edit{At: 13, Text: " --y z"}, "inside the word"},
		{"flag value taken by cd", `cd a && az x`, rules.Edit{At: 4, Text: " --context dev"}, "where or how"},
		{"glob", `az x`, rules.Edit{At: 4, Text: " *"}, "expansion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rewrite(tc.src, []rules.Edit{tc.edit})
			if err == nil {
				t.Fatalf("Rewrite(%q, %v) = %q, want an error", tc.src, tc.edit, got)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Rewrite(%q, %v) error %q, want it to mention %q", tc.src, tc.edit, err, tc.want)
			}
			if strings.Contains(err.Error(), "failed to") {
				t.Errorf("error %q says \"failed to\"", err)
			}
		})
	}
}

func TestRewriteNoEdits(t *testing.T) {
	got, err := Rewrite(`az x`, nil)
	if err != nil || got != `az x` {
		t.Errorf("Rewrite without edits = %q, %v", got, err)
	}
}
