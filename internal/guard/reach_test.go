package guard_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

// TestMachineReach decides lines of the providers beyond the first six against testdata/machine,
// whose home holds the state their CLIs wrote (providers/testdata): docker's current context is
// prod, doctl's prod, databricks' prod, the kubeconfig's dev; the repository is an azd project
// whose default environment is dev.
func TestMachineReach(t *testing.T) {
	env, repo := machine(t)
	tests := []lineCase{
		// aws: no state; bound with --profile, never AWS_PROFILE=.
		{"aws s3 ls", "rewrite", "aws s3 ls --profile dev", "aws.rebind"},
		{"AWS_ACCESS_KEY_ID=AKIAX aws s3 ls", "rewrite", "AWS_ACCESS_KEY_ID=AKIAX aws s3 ls --profile dev", "AWS_ACCESS_KEY_ID is set"},
		{"AWS_PROFILE=staging AWS_DEFAULT_PROFILE=dev aws s3 ls", "rewrite", "AWS_PROFILE=staging AWS_DEFAULT_PROFILE=dev aws s3 ls --profile dev", "disagree"},
		{"aws --profile dev s3 ls", "allow", "", ""},
		{"aws s3 ls --profile prod", "deny", "", "aws.binding-not-allowed"},
		{"aws s3 rb s3://bucket --force --profile dev", "deny", "", "aws.destructive.s3-rb-force"},
		{"aws configure list", "allow", "", ""},
		// docker: bound before the subcommand; a subcommand's -c is no binding.
		{"docker ps -a", "rewrite", "docker --context staging ps -a", "docker.rebind"},
		{"docker run -c 512 nginx", "rewrite", "docker --context staging run -c 512 nginx", ""},
		{"docker -c prod ps", "deny", "", "docker.binding-not-allowed"},
		{"docker context use prod", "deny", "", "docker.switch-not-allowed"},
		{"docker context use staging && docker ps", "rewrite", "docker context use staging && docker --context staging ps", ""},
		{"DOCKER_HOST=ssh://x docker ps", "rewrite", "DOCKER_HOST=ssh://x docker --context staging ps", "DOCKER_HOST is set"},
		{"docker compose -f x.yml down -v", "deny", "", "docker.destructive.compose-down-v"},
		// helm and oc act in kubectl's contexts, under kubectl's policy, moved by its switchers.
		{"helm list", "rewrite", "helm list --kube-context dev", "helm.bind"},
		{"helm repo update", "allow", "", ""},
		{"helm upgrade web ./chart --kube-context prod", "deny", "", "helm.binding-not-allowed"},
		{"kubectx prod", "deny", "", "kubectl.switch-not-allowed"},
		{"kubectl config use-context dev && helm list", "rewrite", "kubectl config use-context dev && helm list --kube-context dev", ""},
		{"oc get pods", "rewrite", "oc get pods --context dev", "oc.bind"},
		// oc project selects a context the line does not name, which kubectl's policy guards.
		{"oc project payments && kubectl get pods", "ask", "oc project payments && kubectl get pods --context dev", "oc.switch-unknown"},
		{"aws eks update-kubeconfig --name c --alias prod --profile dev", "deny", "", "kubectl.switch-not-allowed"},
		// doctl: --context, lower case.
		{"doctl compute droplet list", "rewrite", "doctl compute droplet list --context dev", "doctl.rebind"},
		{"doctl auth switch --context prod", "deny", "", "doctl.switch-not-allowed"},
		{"doctl compute droplet list --context DEV", "allow", "", ""},
		// databricks: [__settings__] default_profile is prod.
		{"databricks clusters list", "rewrite", "databricks clusters list --profile DEFAULT", "databricks.rebind"},
		{"databricks auth switch --profile prod", "deny", "", "databricks.switch-not-allowed"},
		{"databricks bundle destroy -p DEFAULT", "deny", "", "databricks.destructive.bundle-destroy"},
		// azd: the project's default environment, from any folder of the project.
		{"azd deploy", "rewrite", "azd deploy --environment dev", "azd.bind"},
		{"cd src && azd deploy", "rewrite", "cd src && azd deploy --environment dev", "azd.bind"},
		{"azd env select prod && azd deploy", "rewrite", "azd env select prod && azd deploy --environment prod", ""},
		{"azd env select qa", "deny", "", "azd.switch-not-allowed"},
		{"azd down -e dev", "deny", "", "azd.destructive.down"},
		{"azd deploy -e prod", "allow", "", ""},
		{"databricks clusters list -p DEFAULT", "allow", "", ""},
	}
	decideLines(t, env, repo, tests)
}

// TestPulumiMachine decides pulumi lines in a project whose workspace file (named by the SHA-1 of
// the project file's path, so written here) selects the dev stack.
func TestPulumiMachine(t *testing.T) {
	root := testenv.TempDir(t)
	home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
	writeFiles(t, map[string]string{
		filepath.Join(repo, ".git", "HEAD"):                "ref: refs/heads/main\n",
		filepath.Join(repo, "Pulumi.yaml"):                 "name: shop\nruntime: yaml\n",
		filepath.Join(repo, ".ctxguard.yaml"):              "version: 1\ncontexts:\n  pulumi:\n    allow: ['*/shop/dev', dev]\ndestructive: ask\n",
		filepath.Join(home, ".pulumi", "credentials.json"): `{"current": "file://~"}`,
	})
	project, err := filepath.EvalSymlinks(filepath.Join(repo, "Pulumi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum([]byte(project))
	ws := filepath.Join(home, ".pulumi", "workspaces", "shop-"+hex.EncodeToString(sum[:])+"-workspace.json")
	writeFiles(t, map[string]string{ws: `{"stacks": {"file://~": "organization/shop/prod"}}`})
	env := tempEnv(t, root, home)
	tests := []lineCase{
		{"pulumi preview", "rewrite", "pulumi preview --stack dev", "pulumi.rebind"},
		{"pulumi stack select prod", "deny", "", "pulumi.switch-not-allowed"},
		{"pulumi stack select dev && pulumi preview", "rewrite", "pulumi stack select dev && pulumi preview --stack dev", ""},
		{"pulumi preview -s organization/shop/dev", "allow", "", ""},
		{"pulumi destroy --stack dev", "deny", "", "pulumi.destructive.destroy"},
		{"pulumi stack ls", "allow", "", ""},
	}
	decideLines(t, env, repo, tests)
}

// lineCase is a line, the verdict it must get, the command it must become ("" for any) and a
// substring of its rule and reason.
type lineCase struct{ line, verdict, command, reason string }

func decideLines(t *testing.T, env paths.Env, repo string, tests []lineCase) {
	t.Helper()
	for _, tt := range tests {
		o := guard.Decide(rules.Request{Command: tt.line, Cwd: repo}, env)
		if o.Verdict.String() != tt.verdict || tt.command != "" && o.Command != tt.command || !strings.Contains(o.Rule+" "+o.Reason, tt.reason) {
			t.Errorf("%s: %s %q (%s: %s), want %s %q with %q", tt.line, o.Verdict, o.Command, o.Rule, o.Reason, tt.verdict, tt.command, tt.reason)
		}
	}
}

// TestFirebaseMachine decides firebase lines in a project whose active project, in firebase's
// configstore, is the alias prod.
func TestFirebaseMachine(t *testing.T) {
	root := testenv.TempDir(t)
	home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
	store, _ := json.Marshal(map[string]any{"activeProjects": map[string]string{repo: "prod"}})
	writeFiles(t, map[string]string{
		filepath.Join(repo, ".git", "HEAD"):                                  "ref: refs/heads/main\n",
		filepath.Join(repo, "firebase.json"):                                 "{}\n",
		filepath.Join(repo, ".firebaserc"):                                   `{"projects": {"default": "contoso-dev-123", "prod": "contoso-prod-456"}}`,
		filepath.Join(repo, ".ctxguard.yaml"):                                "version: 1\ncontexts:\n  firebase:\n    allow: [default]\ndestructive: ask\n",
		filepath.Join(home, ".config", "configstore", "firebase-tools.json"): string(store),
	})
	env := tempEnv(t, root, home)
	decideLines(t, env, repo, []lineCase{
		{"firebase deploy --only hosting", "rewrite", "firebase deploy --only hosting --project default", "firebase.rebind"},
		{"firebase deploy -P contoso-dev-123", "allow", "", ""},
		{"firebase use prod", "deny", "", "firebase.switch-not-allowed"},
		{"firebase use default && firebase deploy", "rewrite", "firebase use default && firebase deploy --project default", ""},
		{"firebase deploy -P prod", "deny", "", "firebase.binding-not-allowed"},
		{"firebase functions:delete api -P default", "ask", "", "firebase.destructive.functions:delete"},
	})
}

// tempEnv is the environment of a machine of the running system made in a temporary root: its
// home, no managed policy, session memory in a folder of its own.
func tempEnv(t *testing.T, root, home string) paths.Env {
	return testenv.Home(home, map[string]string{"XDG_STATE_HOME": testenv.TempDir(t), "CTXGUARD_MANAGED_POLICY": filepath.Join(root, "none.yaml")})
}

func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStateFileWrites: a write to a file that holds a guarded CLI's contexts is asked about, like
// a write to the kubeconfig, for the files a provider reads its context from and those it lists
// in defined_in (aws reads none, but its config and credentials define every profile), where
// their variables move them, for state kept under whichever directory a call runs in
// (terraform's), also after a `cd`, and for globs that may match one.
func TestStateFileWrites(t *testing.T) {
	env, repo := machine(t)
	home := env.Home
	tests := []lineCase{
		{"echo x > ~/.kube/config", "ask", "", "the kubectl state " + filepath.Join(home, ".kube", "config")},
		{"echo x > ~/.aws/config", "ask", "", "the aws state " + filepath.Join(home, ".aws", "config")},
		{`printf '[dev]\naws_access_key_id = AKIAPROD\n' >> ~/.aws/credentials`, "ask", "", "state.write"},
		{"sed -i s/AKIADEV/AKIAPROD/ " + filepath.ToSlash(filepath.Join(home, ".aws", "credentials")), "ask", "", "state.write"},
		{"cp other.ini ~/.azure/clouds.config", "ask", "", "the az state"},
		{"echo x > ~/.aws/config.bak", "allow", "", ""},
		{"echo x > .terraform/terraform.tfstate", "ask", "", "the terraform state " + filepath.Join(repo, ".terraform", "terraform.tfstate")},
		{"cd infra && echo prod > .terraform/environment", "ask", "", "the terraform state " + filepath.Join(repo, "infra", ".terraform", "environment")},
		{"echo prod > modules/net/.terraform/environment", "ask", "", "state.write"},
		{"cp ../x/terraform.tfstate.d/prod/terraform.tfstate infra/terraform.tfstate.d/dev/", "ask", "", "state.write"},
		{"rm -rf infra/.terraform", "ask", "", "state.write"},
		{"echo x > infra/main.tf", "allow", "", ""},
		// A glob that may match a state file is asked about; one that cannot, and a path in a
		// variable, are not guessed at.
		{"sed -i s/AKIADEV/AKIAPROD/ ~/.aws/cred*", "ask", "", "self.dynamic-write"},
		{`sed -i s/dev/prod/ "$HOME"/.kube/conf*`, "ask", "", "a CLI's state file"},
		{"sed -i s/a/b/ ~/notes/*.md", "allow", "", ""},
		{`echo x > "$OUT"`, "allow", "", ""},
	}
	decideLines(t, env, repo, tests)
	moved := testenv.Home(home, map[string]string{"AWS_CONFIG_FILE": filepath.Join(repo, "aws.ini"),
		"CTXGUARD_MANAGED_POLICY": filepath.Join(repo, "none.yaml"), "XDG_STATE_HOME": testenv.TempDir(t)})
	decideLines(t, moved, repo, []lineCase{{"echo x > aws.ini", "ask", "", "the aws state " + filepath.Join(repo, "aws.ini")}})
}
