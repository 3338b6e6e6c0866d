package providers_test

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/spec"
)

const (
	dockerConfig = "home/.docker/config.json"
	doctlConfig  = "home/.config/doctl/config.yaml"
	doctlMac     = "home/Library/Application Support/doctl/config.yaml"
	dbxConfig    = "home/.databrickscfg"
	ocContext    = "payments/api-ocp-example-invalid:6443/alice"
)

var doctlKnown = []spec.Known{{ID: "default", Name: "default"}, {ID: "dev", Name: "dev"}, {ID: "prod", Name: "prod"}}

// pulumiWorkspace writes a workspace file where pulumi looks for the project at work/Pulumi.yaml:
// its name holds the SHA-1 of that file's path, which depends on the test's root.
func pulumiWorkspace(fixture string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		place(t, root, "pulumi/Pulumi.yaml", "work/Pulumi.yaml", "pulumi/credentials.after-login-local.json", "home/.pulumi/credentials.json")
		project, err := filepath.EvalSymlinks(filepath.Join(root, "work", "Pulumi.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha1.Sum([]byte(project))
		place(t, root, fixture, "home/.pulumi/workspaces/shop-"+hex.EncodeToString(sum[:])+"-workspace.json")
	}
}

// reachCases are the read steps of the providers beyond the first six (aws, azd, databricks,
// docker, doctl, firebase, helm, oc, pulumi), and kubectl's kubeconfig as other tools leave it,
// each against the files those CLIs wrote.
func reachCases() []resolveCase {
	azdFiles := []string{"azd/azure.yaml", "work/azure.yaml", "azd/.azure/config.json", "work/.azure/config.json"}
	return []resolveCase{
		// aws: no state file; flag, two variables and the keys that override them.
		{name: "aws default", provider: "aws", want: spec.Active{Value: "default", From: spec.From{Kind: spec.FromDefault}}},
		{name: "aws AWS_PROFILE", provider: "aws", env: map[string]string{"AWS_PROFILE": "dev"},
			want: spec.Active{Value: "dev", From: spec.From{Kind: spec.FromEnv, Name: "AWS_PROFILE"}}},
		{name: "aws AWS_DEFAULT_PROFILE", provider: "aws", env: map[string]string{"AWS_DEFAULT_PROFILE": "dev"},
			want: spec.Active{Value: "dev", From: spec.From{Kind: spec.FromEnv, Name: "AWS_DEFAULT_PROFILE"}}},
		{name: "aws both profile variables, same", provider: "aws", env: map[string]string{"AWS_PROFILE": "dev", "AWS_DEFAULT_PROFILE": "dev"},
			want: spec.Active{Value: "dev", From: spec.From{Kind: spec.FromEnv, Name: "AWS_PROFILE"}}},
		{name: "aws both profile variables differ (v1 and v2 disagree)", provider: "aws",
			env: map[string]string{"AWS_PROFILE": "staging", "AWS_DEFAULT_PROFILE": "dev"}, unknown: "AWS_PROFILE=staging and AWS_DEFAULT_PROFILE=dev disagree"},
		{name: "aws keys in the environment", provider: "aws", env: map[string]string{"AWS_PROFILE": "dev", "AWS_ACCESS_KEY_ID": "AKIAENVKEY000000009"},
			unknown: "AWS_ACCESS_KEY_ID is set"},
		{name: "aws --profile beats the keys", provider: "aws", env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIAENVKEY000000009"},
			flags: map[string]string{"--profile": "prod"}, want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromFlag, Name: "--profile"}}},

		// docker: the files docker 28 wrote, and what beats them.
		{name: "docker after context use prod", provider: "docker", files: []string{"docker/config.json.after-context-use-prod", dockerConfig},
			want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromFile}, File: dockerConfig}},
		{name: "docker after context use default (key removed)", provider: "docker", files: []string{"docker/config.json.after-context-use-default", dockerConfig},
			want: spec.Active{Value: "default", From: spec.From{Kind: spec.FromDefault}, File: dockerConfig}},
		{name: "docker no config.json (context create writes none)", provider: "docker", want: spec.Active{Value: "default", From: spec.From{Kind: spec.FromDefault}}},
		{name: "docker DOCKER_CONTEXT", provider: "docker", files: []string{"docker/config.json.after-context-use-prod", dockerConfig},
			env: map[string]string{"DOCKER_CONTEXT": "staging"}, want: spec.Active{Value: "staging", From: spec.From{Kind: spec.FromEnv, Name: "DOCKER_CONTEXT"}}},
		{name: "docker --context beats DOCKER_CONTEXT", provider: "docker", files: []string{"docker/config.json.after-context-use-prod", dockerConfig},
			env: map[string]string{"DOCKER_CONTEXT": "staging"}, flags: map[string]string{"-c": "prod"}, want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromFlag, Name: "--context"}}},
		{name: "docker DOCKER_HOST overrides", provider: "docker", files: []string{"docker/config.json.after-context-use-prod", dockerConfig},
			env: map[string]string{"DOCKER_HOST": "tcp://h.example.invalid:1", "DOCKER_CONTEXT": "staging"}, unknown: "DOCKER_HOST is set"},
		{name: "docker -H overrides", provider: "docker", flags: map[string]string{"-H": "tcp://h.example.invalid:1"}, unknown: "-H is set"},
		{name: "docker --context beats DOCKER_HOST", provider: "docker", env: map[string]string{"DOCKER_HOST": "tcp://h.example.invalid:1"},
			flags: map[string]string{"--context": "staging"}, want: spec.Active{Value: "staging", From: spec.From{Kind: spec.FromFlag, Name: "--context"}}},
		{name: "docker DOCKER_CONFIG", provider: "docker", files: []string{"docker/config.json.after-context-use-prod", "d/config.json"},
			env: map[string]string{"DOCKER_CONFIG": "{root}/d"}, want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromFile}, File: "d/config.json"}},
		{name: "docker --config beats DOCKER_CONFIG", provider: "docker", files: []string{"docker/config.json.after-context-use-prod", "d/config.json"},
			env: map[string]string{"DOCKER_CONFIG": "{root}/elsewhere"}, flags: map[string]string{"--config": "{root}/d"},
			want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromFile}, File: "d/config.json"}},

		// doctl: the files doctl wrote (2400 lines each).
		{name: "doctl after auth switch prod", provider: "doctl", files: []string{"doctl/config.after-auth-switch-prod.yaml", doctlConfig},
			want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: doctlConfig, Known: doctlKnown}, known: true},
		{name: "doctl after auth init (default context)", provider: "doctl", files: []string{"doctl/config.after-auth-init-default.yaml", doctlConfig},
			want: spec.Active{Value: "default", From: spec.From{Kind: spec.FromFile}, File: doctlConfig}},
		{name: "doctl no config", provider: "doctl", want: spec.Active{Value: "default", From: spec.From{Kind: spec.FromDefault}}},
		{name: "doctl DIGITALOCEAN_CONTEXT", provider: "doctl", files: []string{"doctl/config.after-auth-switch-prod.yaml", doctlConfig},
			env: map[string]string{"DIGITALOCEAN_CONTEXT": "dev"}, want: spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromEnv, Name: "DIGITALOCEAN_CONTEXT"}, File: doctlConfig}},
		{name: "doctl --context beats the variable", provider: "doctl", files: []string{"doctl/config.after-auth-switch-prod.yaml", doctlConfig},
			env: map[string]string{"DIGITALOCEAN_CONTEXT": "dev"}, flags: map[string]string{"--context": "default"}, want: spec.Active{Value: "default", Name: "default", From: spec.From{Kind: spec.FromFlag, Name: "--context"}, File: doctlConfig}},
		{name: "doctl XDG_CONFIG_HOME", provider: "doctl", files: []string{"doctl/config.after-auth-switch-prod.yaml", "xdg/doctl/config.yaml"},
			env: map[string]string{"XDG_CONFIG_HOME": "{root}/xdg"}, want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "xdg/doctl/config.yaml"}},
		{name: "doctl --config", provider: "doctl", files: []string{"doctl/config.after-auth-switch-prod.yaml", "c.yaml"},
			flags: map[string]string{"-c": "{root}/c.yaml"}, want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "c.yaml"}},
		{name: "doctl macOS", provider: "doctl", os: "darwin", files: []string{"doctl/config.after-auth-switch-prod.yaml", doctlMac},
			want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: doctlMac}},

		// helm and oc read the kubeconfig as kubectl does.
		{name: "helm kubeconfig", provider: "helm", files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome},
			want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome, Known: kubeKnown}, known: true},
		{name: "helm HELM_KUBECONTEXT", provider: "helm", files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome},
			env: map[string]string{"HELM_KUBECONTEXT": "dev"}, want: spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromEnv, Name: "HELM_KUBECONTEXT"}, File: kubeHome}},
		{name: "helm KUBECONFIG list", provider: "helm",
			files: []string{"kubectl/merged/a.after-use-context-dev.yaml", "k/a.yaml", "kubectl/merged/b.before.yaml", "k/b.yaml"},
			env:   map[string]string{"KUBECONFIG": "{root}/k/a.yaml:{root}/k/b.yaml"}, want: spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromFile}, File: "k/a.yaml"}},
		{name: "oc after oc project payments", provider: "oc", files: []string{"oc/kubeconfig.oc-style.yaml", kubeHome},
			want: spec.Active{Value: ocContext, Name: ocContext, From: spec.From{Kind: spec.FromFile}, File: kubeHome}},
		{name: "kubectl after kubectx prod", provider: "kubectl", files: []string{"kubectx/config.after-kubectx-prod.yaml", kubeHome},
			want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome}},
		{name: "kubectl after aws eks update-kubeconfig", provider: "kubectl", files: []string{"aws/kubeconfig.after-eks-update-kubeconfig.yaml", kubeHome},
			want: spec.Active{Value: "arn:aws:eks:eu-west-1:111111111111:cluster/dev-cluster", Name: "arn:aws:eks:eu-west-1:111111111111:cluster/dev-cluster", From: spec.From{Kind: spec.FromFile}, File: kubeHome}},

		// databricks: [__settings__] default_profile, else DEFAULT.
		{name: "databricks after auth switch prod", provider: "databricks", files: []string{"databricks/databrickscfg.after-auth-switch-prod", dbxConfig},
			want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: dbxConfig,
				Known: []spec.Known{{ID: "DEFAULT", Name: "DEFAULT"}, {ID: "prod", Name: "prod"}}}, known: true},
		{name: "databricks without settings: DEFAULT", provider: "databricks", files: []string{"databricks/databrickscfg.no-settings", dbxConfig},
			want: spec.Active{Value: "DEFAULT", Name: "DEFAULT", From: spec.From{Kind: spec.FromDefault}, File: dbxConfig}},
		{name: "databricks DATABRICKS_CONFIG_PROFILE", provider: "databricks", files: []string{"databricks/databrickscfg.after-auth-switch-prod", dbxConfig},
			env: map[string]string{"DATABRICKS_CONFIG_PROFILE": "DEFAULT"}, want: spec.Active{Value: "DEFAULT", Name: "DEFAULT", From: spec.From{Kind: spec.FromEnv, Name: "DATABRICKS_CONFIG_PROFILE"}, File: dbxConfig}},
		{name: "databricks -p beats the variable", provider: "databricks", files: []string{"databricks/databrickscfg.no-settings", dbxConfig},
			env: map[string]string{"DATABRICKS_CONFIG_PROFILE": "DEFAULT"}, flags: map[string]string{"-p": "prod"}, want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFlag, Name: "-p"}, File: dbxConfig}},
		{name: "databricks DATABRICKS_CONFIG_FILE", provider: "databricks", files: []string{"databricks/databrickscfg.after-auth-switch-prod", "cfg/databricks.ini"},
			env: map[string]string{"DATABRICKS_CONFIG_FILE": "{root}/cfg/databricks.ini"}, want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "cfg/databricks.ini"}},

		// azd: the project found upward, its .azure/config.json.
		{name: "azd default environment", provider: "azd", files: azdFiles,
			want: spec.Active{Value: "dev", From: spec.From{Kind: spec.FromFile}, File: "work/.azure/config.json"}},
		{name: "azd from a subfolder of the project", provider: "azd", files: azdFiles, dir: "work/src/api",
			setup: func(t *testing.T, root string) { mkdir(t, filepath.Join(root, "work/src/api")) },
			want:  spec.Active{Value: "dev", From: spec.From{Kind: spec.FromFile}, File: "work/.azure/config.json"}},
		{name: "azd AZURE_ENV_NAME", provider: "azd", files: azdFiles, env: map[string]string{"AZURE_ENV_NAME": "prod"},
			want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromEnv, Name: "AZURE_ENV_NAME"}}},
		{name: "azd -e beats AZURE_ENV_NAME", provider: "azd", files: azdFiles, env: map[string]string{"AZURE_ENV_NAME": "prod"},
			flags: map[string]string{"-e": "qa"}, want: spec.Active{Value: "qa", From: spec.From{Kind: spec.FromFlag, Name: "-e"}}},
		{name: "azd outside a project", provider: "azd", want: spec.Active{}},

		// pulumi: the project found upward, the workspace file named by its SHA-1.
		{name: "pulumi after stack select dev (per-backend file)", provider: "pulumi", setup: pulumiWorkspace("pulumi/workspace.after-stack-select-dev.json"),
			want: spec.Active{Value: "organization/shop/dev", From: spec.From{Kind: spec.FromFile}}, anyFile: true},
		{name: "pulumi after stack init prod", provider: "pulumi", setup: pulumiWorkspace("pulumi/workspace.after-stack-init-prod.json"),
			want: spec.Active{Value: "organization/shop/prod", From: spec.From{Kind: spec.FromFile}}, anyFile: true},
		{name: "pulumi legacy workspace file", provider: "pulumi", setup: pulumiWorkspace("pulumi/workspace.legacy.json"),
			want: spec.Active{Value: "acme/infra/prod", From: spec.From{Kind: spec.FromFile}}, anyFile: true},
		{name: "pulumi from a subfolder", provider: "pulumi", setup: func(t *testing.T, root string) {
			pulumiWorkspace("pulumi/workspace.after-stack-select-dev.json")(t, root)
			mkdir(t, filepath.Join(root, "work/src"))
		}, dir: "work/src", want: spec.Active{Value: "organization/shop/dev", From: spec.From{Kind: spec.FromFile}}, anyFile: true},
		{name: "pulumi another backend has no stack selected", provider: "pulumi", setup: pulumiWorkspace("pulumi/workspace.after-stack-select-dev.json"),
			env: map[string]string{"PULUMI_BACKEND_URL": "https://api.pulumi.com"}, want: spec.Active{}, anyFile: true},
		{name: "pulumi PULUMI_STACK", provider: "pulumi", setup: pulumiWorkspace("pulumi/workspace.after-stack-select-dev.json"),
			env: map[string]string{"PULUMI_STACK": "prod"}, want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromEnv, Name: "PULUMI_STACK"}}},
		{name: "pulumi --stack beats PULUMI_STACK", provider: "pulumi", setup: pulumiWorkspace("pulumi/workspace.after-stack-select-dev.json"),
			env: map[string]string{"PULUMI_STACK": "prod"}, flags: map[string]string{"-s": "qa"}, want: spec.Active{Value: "qa", From: spec.From{Kind: spec.FromFlag, Name: "--stack"}}},
		{name: "pulumi outside a project", provider: "pulumi", want: spec.Active{}},

		// firebase: the folder of firebase.json, its entry in the configstore, its .firebaserc aliases.
		{name: "firebase after use prod (an alias)", provider: "firebase", setup: firebaseActive("prod"),
			want: spec.Active{Value: "contoso-prod-456", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "work/.firebaserc",
				Known: []spec.Known{{ID: "contoso-dev-123", Name: "default"}, {ID: "contoso-prod-456", Name: "prod"}}}, known: true},
		{name: "firebase from a subfolder", provider: "firebase", setup: firebaseActive("prod"), dir: "work/src",
			want: spec.Active{Value: "contoso-prod-456", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "work/.firebaserc"}},
		{name: "firebase after use of a project id", provider: "firebase", setup: firebaseActive("contoso-qa-789"),
			want: spec.Active{Value: "contoso-qa-789", From: spec.From{Kind: spec.FromDefault}, File: "work/.firebaserc"}},
		{name: "firebase -P alias beats the active project", provider: "firebase", setup: firebaseActive("prod"),
			flags: map[string]string{"-P": "default"}, want: spec.Active{Value: "contoso-dev-123", Name: "default", From: spec.From{Kind: spec.FromFile}, File: "work/.firebaserc"}},
		{name: "firebase nothing active: not read, so bound", provider: "firebase",
			files: []string{"firebase/firebase.json", "work/firebase.json", "firebase/firebaserc.after-use-add", "work/.firebaserc"},
			want:  spec.Active{File: "work/.firebaserc"}},
	}
}

// firebaseActive places a firebase project in work/ and records active as its active project in
// the configstore, keyed by the folder's path as firebase keys it.
func firebaseActive(active string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		place(t, root, "firebase/firebase.json", "work/firebase.json", "firebase/firebaserc.after-use-add", "work/.firebaserc")
		mkdir(t, filepath.Join(root, "work/src"))
		data, err := os.ReadFile("testdata/firebase/configstore.after-use-prod.json")
		if err != nil {
			t.Fatal(err)
		}
		store := strings.Replace(string(data), `"/work/cache/fx/firebase/app": "prod"`, `"`+filepath.Join(root, "work")+`": "`+active+`"`, 1)
		write(t, filepath.Join(root, "home/.config/configstore/firebase-tools.json"), store)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
