package explain_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/explain"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// files is the throwaway machine every case runs on: a repository with a policy and the state
// of three CLIs, the shared az default being one the policy does not allow.
var files = map[string]string{
	"repo/.ctxguard.yaml": `version: 1
contexts:
  az:
    allow: [Contoso-Dev]
    default: Contoso-Dev
  kubectl:
    allow: [dev, prod]
  terraform:
    allow: [staging]
destructive: ask
`,
	"home/.azure/azureProfile.json":                            "\ufeff" + `{"subscriptions": [{"id": "11111111-1111-4111-8111-111111111111", "isDefault": false, "name": "Contoso-Dev"}, {"id": "22222222-2222-4222-8222-222222222222", "isDefault": true, "name": "Contoso-Prod"}]}`,
	"home/.kube/config":                                        "apiVersion: v1\nkind: Config\ncontexts:\n- {name: dev, context: {cluster: c}}\n- {name: prod, context: {cluster: c}}\ncurrent-context: dev\n",
	"repo/infra/.terraform/environment":                        "staging",
	"repo/infra/terraform.tfstate.d/staging/terraform.tfstate": "{}",
	"broken/.ctxguard.yaml":                                    "version: 1\ncontexts:\n  az:\n    allow: Contoso-Dev\n    defualt: x\n",
}

func TestGolden(t *testing.T) {
	root := testenv.TempDir(t)
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"CTXGUARD_MANAGED_POLICY": filepath.Join(root, "none.yaml")}
	env := testenv.Home(filepath.Join(root, "home"), vars)
	tests := []struct {
		name, dir, command string
		json               bool
	}{
		{"az-rebind", "repo", "az group list -o table", false},
		{"az-rebind", "repo", "az group list -o table", true},
		{"chain", "repo", "kubectl config use-context prod && kubectl get pods; az account set -s contoso-dev && az vm list", false},
		{"chain", "repo", "kubectl config use-context prod && kubectl get pods; az account set -s contoso-dev && az vm list", true},
		{"terraform-cd", "repo", "cd infra && terraform plan -out tf.plan", false},
		{"switch-denied", "repo", "az account set --subscription Contoso-Prod", false},
		{"destructive", "repo", "kubectl delete pod web-1 --context dev", false},
		{"data-only", "repo", `echo "az group delete" | grep az`, false},
		{"no-policy", "home", "az group delete -n rg --yes", false},
		{"policy-error", "broken", "ls", false},
	}
	for _, tt := range tests {
		name := tt.name + ".txt"
		if tt.json {
			name = tt.name + ".json"
		}
		t.Run(name, func(t *testing.T) {
			o := guard.Decide(rules.Request{Command: tt.command, Cwd: filepath.Join(root, tt.dir)}, env)
			var buf bytes.Buffer
			render := explain.Text
			if tt.json {
				render = explain.JSON
			}
			if err := render(&buf, o); err != nil {
				t.Fatal(err)
			}
			got := portable(buf.String(), root)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/explain -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("explain output differs from %s (rerun with -update if the change is intended):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

// portable is explain's output with the test tree's root as $ROOT and, on Windows, the paths
// under it spelt with /, as the goldens hold them, so that one golden serves every system.
func portable(out, root string) string {
	out = strings.ReplaceAll(out, root, "$ROOT")
	if filepath.Separator == '/' {
		return out
	}
	out = strings.ReplaceAll(out, strings.ReplaceAll(root, `\`, `\\`), "$ROOT") // as JSON escapes it
	return underRoot.ReplaceAllStringFunc(out, func(p string) string {
		return strings.ReplaceAll(strings.ReplaceAll(p, `\\`, "/"), `\`, "/")
	})
}

var underRoot = regexp.MustCompile(`\$ROOT[^\s"(),]*`)
