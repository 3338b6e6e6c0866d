package providers_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/spec"
	"github.com/google/go-cmp/cmp"
)

const (
	azProfile = "home/.azure/azureProfile.json"
	kubeHome  = "home/.kube/config"
	ghHosts   = "home/.config/gh/hosts.yml"
	gcloudDir = "home/.config/gcloud"
	pacLinux  = "home/.local/share/Microsoft/PowerAppsCli/authprofiles_v2.json"
	pacMac    = "home/Library/Application Support/Microsoft/PowerAppsCli/authprofiles_v2.json"
	tfEnv     = "work/.terraform/environment"

	prodSub = "22222222-2222-4222-8222-222222222222"
	devSub  = "11111111-1111-4111-8111-111111111111"
)

var azKnown = []spec.Known{{ID: devSub, Name: "Contoso-Dev"}, {ID: prodSub, Name: "Contoso-Prod"}}

var kubeKnown = []spec.Known{{ID: "dev", Name: "dev"}, {ID: "prod", Name: "prod"}, {ID: "prod-admin", Name: "prod-admin"}}

// gcloudFiles places the whole gcloud fixture folder.
var gcloudFiles = []string{
	"gcloud/active_config", gcloudDir + "/active_config",
	"gcloud/configurations/config_default", gcloudDir + "/configurations/config_default",
	"gcloud/configurations/config_dev", gcloudDir + "/configurations/config_dev",
	"gcloud/configurations/config_prod", gcloudDir + "/configurations/config_prod",
}

// resolveCase is one call resolved against state files in a temporary root holding home/ (the
// home directory) and work/ (the call's working directory). {root} in env, flag and var values
// and in want.File is that root.
type resolveCase struct {
	name     string
	provider string
	files    []string // pairs: testdata file, destination under the root
	setup    func(t *testing.T, root string)
	env      map[string]string
	flags    map[string]string
	vars     map[string]string
	os       string

	dir     string      // the call's directory under the root; "" is work
	want    spec.Active // Value, Name, From and File are always compared
	known   bool        // compare want.Known too
	fields  bool        // and the known contexts' Fields
	lets    bool        // compare want.Vars too
	wantErr string      // a substring of the error, which must be a *providers.StateError
	unknown string      // a substring of the error, which must wrap spec.ErrUnknown
	anyFile bool        // the file's name is computed (pulumi's): do not compare it
}

func resolveCases() []resolveCase {
	return []resolveCase{
		// az: every fixture az wrote, and the hand-written one.
		{name: "az after account set prod (BOM, one line)", provider: "az",
			files: []string{"az/azureProfile.after-account-set-prod.json", azProfile},
			want:  spec.Active{Value: prodSub, Name: "Contoso-Prod", From: spec.From{Kind: spec.FromFile}, File: azProfile, Known: azKnown}, known: true},
		{name: "az handwritten", provider: "az",
			files: []string{"az/azureProfile.handwritten.json", azProfile},
			want:  spec.Active{Value: devSub, Name: "Contoso-Dev", From: spec.From{Kind: spec.FromFile}, File: azProfile, Known: azKnown}, known: true},
		{name: "az no default", provider: "az",
			files: []string{"az/azureProfile.no-default.json", azProfile},
			want:  spec.Active{File: azProfile, Known: azKnown}, known: true},
		{name: "az after account clear", provider: "az",
			files: []string{"az/azureProfile.after-account-clear.json", azProfile},
			want:  spec.Active{File: azProfile}, known: true},
		{name: "az fresh install", provider: "az",
			files: []string{"az/azureProfile.fresh-install.json", azProfile},
			want:  spec.Active{File: azProfile}},
		{name: "az missing then created (BOM and {})", provider: "az",
			files: []string{"az/azureProfile.missing-then-created.json", azProfile},
			want:  spec.Active{File: azProfile}},
		{name: "az no file", provider: "az", want: spec.Active{}},
		{name: "az AZURE_CONFIG_DIR", provider: "az",
			files: []string{"az/azureProfile.handwritten.json", "other/azureProfile.json",
				"az/azureProfile.after-account-set-prod.json", azProfile},
			env:  map[string]string{"AZURE_CONFIG_DIR": "{root}/other"},
			want: spec.Active{Value: devSub, Name: "Contoso-Dev", From: spec.From{Kind: spec.FromFile}, File: "other/azureProfile.json"}},
		{name: "az empty AZURE_CONFIG_DIR is unset", provider: "az",
			files: []string{"az/azureProfile.after-account-set-prod.json", azProfile},
			env:   map[string]string{"AZURE_CONFIG_DIR": ""},
			want:  spec.Active{Value: prodSub, Name: "Contoso-Prod", From: spec.From{Kind: spec.FromFile}, File: azProfile}},
		{name: "az AZURE_SUBSCRIPTION_ID is ignored", provider: "az",
			files: []string{"az/azureProfile.after-account-set-prod.json", azProfile},
			env:   map[string]string{"AZURE_SUBSCRIPTION_ID": devSub, "AZURE_DEFAULTS_SUBSCRIPTION": devSub},
			want:  spec.Active{Value: prodSub, Name: "Contoso-Prod", From: spec.From{Kind: spec.FromFile}, File: azProfile}},
		{name: "az CRLF", provider: "az",
			setup: func(t *testing.T, root string) {
				data, _ := os.ReadFile("testdata/az/azureProfile.handwritten.json")
				write(t, filepath.Join(root, azProfile), strings.ReplaceAll(string(data), "\n", "\r\n"))
			},
			want: spec.Active{Value: devSub, Name: "Contoso-Dev", From: spec.From{Kind: spec.FromFile}, File: azProfile}},
		{name: "az empty file", provider: "az",
			setup: func(t *testing.T, root string) { write(t, filepath.Join(root, azProfile), "") },
			want:  spec.Active{File: azProfile}},
		{name: "az truncated by a concurrent write", provider: "az",
			setup: func(t *testing.T, root string) {
				data, _ := os.ReadFile("testdata/az/azureProfile.after-account-set-prod.json")
				write(t, filepath.Join(root, azProfile), string(data[:len(data)/2]))
			},
			wantErr: "read state {root}/" + azProfile + ": invalid JSON at line 1"},
		{name: "az directory instead of file", provider: "az",
			setup: func(t *testing.T, root string) {
				if err := os.MkdirAll(filepath.Join(root, azProfile), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "read state {root}/" + azProfile + ": is a directory"},
		{name: "az unreadable", provider: "az",
			setup: func(t *testing.T, root string) {
				if os.Geteuid() == 0 {
					t.Skip("running as root: a file mode cannot make a read fail")
				}
				place(t, root, "az/azureProfile.handwritten.json", azProfile)
				if err := os.Chmod(filepath.Join(root, azProfile), 0); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "read state {root}/" + azProfile + ": permission denied"},
		{name: "az home is a file", provider: "az",
			setup: func(t *testing.T, root string) { write(t, filepath.Join(root, "home/.azure"), "x") },
			want:  spec.Active{}},

		// kubectl: the four kubeconfigs, merged lists and --kubeconfig.
		{name: "kubectl handwritten", provider: "kubectl",
			files: []string{"kubectl/config.handwritten.yaml", kubeHome},
			want:  spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromFile}, File: kubeHome, Known: kubeKnown}, known: true},
		{name: "kubectl after use-context prod", provider: "kubectl",
			files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome, Known: kubeKnown}, known: true},
		{name: "kubectl after set-context --current --namespace", provider: "kubectl",
			files: []string{"kubectl/config.after-set-context-current-namespace-checkout.yaml", kubeHome},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome}},
		{name: "kubectl no current-context", provider: "kubectl",
			files: []string{"kubectl/config.no-current-context.yaml", kubeHome},
			want:  spec.Active{File: kubeHome, Known: kubeKnown}, known: true},
		{name: "kubectl no kubeconfig", provider: "kubectl", want: spec.Active{}},
		{name: "kubectl merged: first file that sets current-context wins", provider: "kubectl",
			files: []string{"kubectl/merged/a.after-use-context-dev.yaml", "k/a.yaml", "kubectl/merged/b.before.yaml", "k/b.yaml"},
			env:   map[string]string{"KUBECONFIG": "{root}/k/missing.yaml:{root}/k/a.yaml:{root}/k/b.yaml"},
			want: spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromFile}, File: "k/a.yaml",
				Known: []spec.Known{{ID: "dev", Name: "dev"}, {ID: "prod", Name: "prod"}}}, known: true},
		{name: "kubectl merged: a file without current-context is skipped", provider: "kubectl",
			files: []string{"kubectl/merged/a.before.yaml", "k/a.yaml", "kubectl/merged/b.before.yaml", "k/b.yaml"},
			env:   map[string]string{"KUBECONFIG": "{root}/k/missing.yaml:{root}/k/a.yaml:{root}/k/b.yaml"},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "k/b.yaml"}},
		{name: "kubectl merged: relative entries and repeats", provider: "kubectl",
			files: []string{"kubectl/merged/a.before.yaml", "work/a.yaml", "kubectl/merged/b.before.yaml", "work/b.yaml"},
			env:   map[string]string{"KUBECONFIG": "a.yaml::a.yaml:./b.yaml"},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "work/b.yaml"}},
		{name: "kubectl --kubeconfig beats KUBECONFIG and the home file", provider: "kubectl",
			files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome,
				"kubectl/merged/a.after-use-context-dev.yaml", "k/a.yaml", "kubectl/config.handwritten.yaml", "k/flag.yaml"},
			env:   map[string]string{"KUBECONFIG": "{root}/k/a.yaml"},
			flags: map[string]string{"--kubeconfig": "{root}/k/flag.yaml"},
			want:  spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromFile}, File: "k/flag.yaml"}},
		{name: "kubectl CRLF", provider: "kubectl",
			setup: func(t *testing.T, root string) {
				data, _ := os.ReadFile("testdata/kubectl/config.after-use-context-prod.yaml")
				write(t, filepath.Join(root, kubeHome), strings.ReplaceAll(string(data), "\n", "\r\n"))
			},
			want: spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome}},
		{name: "kubectl corrupt", provider: "kubectl",
			setup:   func(t *testing.T, root string) { write(t, filepath.Join(root, kubeHome), "current-context: [dev\n") },
			wantErr: "read state {root}/" + kubeHome + ": line 1: "},

		// gcloud: active_config, the env var and flag that beat it, the project env var.
		{name: "gcloud active_config prod", provider: "gcloud", files: gcloudFiles,
			want: spec.Active{Value: "contoso-prod-654321", From: spec.From{Kind: spec.FromFile}, File: gcloudDir + "/configurations/config_prod",
				Vars: map[string]string{"config": "prod"}}, lets: true},
		{name: "gcloud CLOUDSDK_ACTIVE_CONFIG_NAME", provider: "gcloud", files: gcloudFiles,
			env:  map[string]string{"CLOUDSDK_ACTIVE_CONFIG_NAME": "dev"},
			want: spec.Active{Value: "contoso-dev-123456", From: spec.From{Kind: spec.FromFile}, File: gcloudDir + "/configurations/config_dev"}},
		{name: "gcloud --configuration beats the env var", provider: "gcloud", files: gcloudFiles,
			env:   map[string]string{"CLOUDSDK_ACTIVE_CONFIG_NAME": "prod"},
			flags: map[string]string{"--configuration": "dev"},
			want:  spec.Active{Value: "contoso-dev-123456", From: spec.From{Kind: spec.FromFile}, File: gcloudDir + "/configurations/config_dev"}},
		{name: "gcloud CLOUDSDK_CORE_PROJECT", provider: "gcloud", files: gcloudFiles,
			env:  map[string]string{"CLOUDSDK_ACTIVE_CONFIG_NAME": "dev", "CLOUDSDK_CORE_PROJECT": "envproj"},
			want: spec.Active{Value: "envproj", From: spec.From{Kind: spec.FromEnv, Name: "CLOUDSDK_CORE_PROJECT"}}},
		{name: "gcloud carried config", provider: "gcloud", files: gcloudFiles,
			vars: map[string]string{"config": "dev"},
			want: spec.Active{Value: "contoso-dev-123456", From: spec.From{Kind: spec.FromFile}, File: gcloudDir + "/configurations/config_dev",
				Vars: map[string]string{"config": "dev"}}, lets: true},
		{name: "gcloud env beats a carried config", provider: "gcloud", files: gcloudFiles,
			vars: map[string]string{"config": "dev"},
			env:  map[string]string{"CLOUDSDK_ACTIVE_CONFIG_NAME": "prod"},
			want: spec.Active{Value: "contoso-prod-654321", From: spec.From{Kind: spec.FromFile}, File: gcloudDir + "/configurations/config_prod"}},
		{name: "gcloud no active_config: default configuration, empty", provider: "gcloud",
			files: []string{"gcloud/configurations/config_default", gcloudDir + "/configurations/config_default",
				"gcloud/configurations/config_prod", gcloudDir + "/configurations/config_prod"},
			want: spec.Active{File: gcloudDir + "/configurations/config_default",
				Vars: map[string]string{"config": "default"}}, lets: true},
		{name: "gcloud unknown configuration is empty", provider: "gcloud", files: gcloudFiles,
			env:  map[string]string{"CLOUDSDK_ACTIVE_CONFIG_NAME": "nope"},
			want: spec.Active{}},
		{name: "gcloud CLOUDSDK_CONFIG", provider: "gcloud",
			files: []string{"gcloud/active_config", "g/active_config", "gcloud/configurations/config_prod", "g/configurations/config_prod"},
			env:   map[string]string{"CLOUDSDK_CONFIG": "{root}/g"},
			want:  spec.Active{Value: "contoso-prod-654321", From: spec.From{Kind: spec.FromFile}, File: "g/configurations/config_prod"}},
		{name: "gcloud corrupt configuration", provider: "gcloud",
			setup: func(t *testing.T, root string) {
				write(t, filepath.Join(root, gcloudDir, "active_config"), "prod")
				write(t, filepath.Join(root, gcloudDir, "configurations/config_prod"), "[core]\nproject contoso\n")
			},
			wantErr: "read state {root}/" + gcloudDir + "/configurations/config_prod: line 2: "},

		// gh: every hosts.yml, and the host chosen by GH_HOST or --hostname.
		{name: "gh legacy (no users list, so no name)", provider: "gh", files: []string{"gh/hosts.legacy-pre-2.40.yml", ghHosts},
			want: spec.Active{Value: "alice-example", From: spec.From{Kind: spec.FromFile}, File: ghHosts}, known: true},
		{name: "gh after migration", provider: "gh", files: []string{"gh/hosts.after-multi-account-migration.yml", ghHosts},
			want: spec.Active{Value: "alice-example", Name: "alice-example", From: spec.From{Kind: spec.FromFile}, File: ghHosts,
				Known: []spec.Known{{ID: "alice-example", Name: "alice-example"}}}, known: true},
		{name: "gh two users, alice active", provider: "gh", files: []string{"gh/hosts.two-users-alice-active.yml", ghHosts},
			want: spec.Active{Value: "alice-example", Name: "alice-example", From: spec.From{Kind: spec.FromFile}, File: ghHosts,
				Known: []spec.Known{{ID: "alice-example", Name: "alice-example"}, {ID: "bob-example", Name: "bob-example"}}}, known: true},
		{name: "gh after auth switch to bob", provider: "gh", files: []string{"gh/hosts.after-auth-switch-to-bob.yml", ghHosts},
			want: spec.Active{Value: "bob-example", Name: "bob-example", From: spec.From{Kind: spec.FromFile}, File: ghHosts}},
		{name: "gh GH_HOST", provider: "gh", files: []string{"gh/hosts.after-auth-switch-to-bob.yml", ghHosts},
			env: map[string]string{"GH_HOST": "ghe.example.invalid"},
			want: spec.Active{Value: "alice-corp", Name: "alice-corp", From: spec.From{Kind: spec.FromFile}, File: ghHosts,
				Known: []spec.Known{{ID: "alice-corp", Name: "alice-corp"}}, Vars: map[string]string{"host": "ghe.example.invalid"}},
			known: true, lets: true},
		{name: "gh --hostname beats GH_HOST", provider: "gh", files: []string{"gh/hosts.after-auth-switch-to-bob.yml", ghHosts},
			env:   map[string]string{"GH_HOST": "github.com"},
			flags: map[string]string{"--hostname": "ghe.example.invalid"},
			want:  spec.Active{Value: "alice-corp", Name: "alice-corp", From: spec.From{Kind: spec.FromFile}, File: ghHosts}},
		{name: "gh unknown host", provider: "gh", files: []string{"gh/hosts.legacy-pre-2.40.yml", ghHosts},
			env:  map[string]string{"GH_HOST": "example.invalid"},
			want: spec.Active{File: ghHosts}},
		{name: "gh XDG_CONFIG_HOME", provider: "gh", files: []string{"gh/hosts.after-auth-switch-to-bob.yml", "xdg/gh/hosts.yml"},
			env:  map[string]string{"XDG_CONFIG_HOME": "{root}/xdg"},
			want: spec.Active{Value: "bob-example", Name: "bob-example", From: spec.From{Kind: spec.FromFile}, File: "xdg/gh/hosts.yml"}},
		{name: "gh GH_CONFIG_DIR beats XDG_CONFIG_HOME", provider: "gh",
			files: []string{"gh/hosts.after-auth-switch-to-bob.yml", "xdg/gh/hosts.yml", "gh/hosts.legacy-pre-2.40.yml", "ghdir/hosts.yml"},
			env:   map[string]string{"XDG_CONFIG_HOME": "{root}/xdg", "GH_CONFIG_DIR": "{root}/ghdir"},
			want:  spec.Active{Value: "alice-example", From: spec.From{Kind: spec.FromFile}, File: "ghdir/hosts.yml"}},

		// terraform: the environment file in the working directory.
		{name: "terraform staging", provider: "terraform", files: []string{"terraform/environment.staging", tfEnv},
			want: spec.Active{Value: "staging", From: spec.From{Kind: spec.FromFile}, File: tfEnv}},
		{name: "terraform no environment file", provider: "terraform",
			want: spec.Active{Value: "default", From: spec.From{Kind: spec.FromDefault}}},
		{name: "terraform empty environment file", provider: "terraform",
			setup: func(t *testing.T, root string) { write(t, filepath.Join(root, tfEnv), "\n") },
			want:  spec.Active{Value: "default", From: spec.From{Kind: spec.FromDefault}, File: tfEnv}},
		{name: "terraform TF_WORKSPACE", provider: "terraform", files: []string{"terraform/environment.staging", tfEnv},
			env:  map[string]string{"TF_WORKSPACE": "prod"},
			want: spec.Active{Value: "prod", From: spec.From{Kind: spec.FromEnv, Name: "TF_WORKSPACE"}}},
		{name: "terraform TF_DATA_DIR", provider: "terraform", files: []string{"terraform/environment.staging", "work/data/environment"},
			env:  map[string]string{"TF_DATA_DIR": "data"},
			want: spec.Active{Value: "staging", From: spec.From{Kind: spec.FromFile}, File: "work/data/environment"}},
		{name: "terraform trailing newline", provider: "terraform",
			setup: func(t *testing.T, root string) { write(t, filepath.Join(root, tfEnv), "prod\r\n") },
			want:  spec.Active{Value: "prod", From: spec.From{Kind: spec.FromFile}, File: tfEnv}},

		// pac: the synthetic profile file, on Linux and macOS.
		{name: "pac", provider: "pac", files: []string{"pac/authprofiles_v2.synthetic.json", pacLinux},
			want: spec.Active{Value: "https://contoso.crm4.dynamics.com/", Name: "Contoso Production", From: spec.From{Kind: spec.FromFile}, File: pacLinux,
				Known: []spec.Known{
					{ID: "https://contoso-dev.crm4.dynamics.com/", Name: "contoso-dev", Fields: map[string]string{
						"type": "Sandbox", "environment": "Contoso Dev", "environment_id": "1d1d1d1d-0000-4000-8000-000000000001", "geo": "EMEA", "user": "alice@contoso.example"}},
					{ID: "https://contoso.crm4.dynamics.com/", Name: "contoso-prod", Fields: map[string]string{
						"type": "Production", "environment": "Contoso Production", "environment_id": "2e2e2e2e-0000-4000-8000-000000000002", "geo": "EMEA", "user": "alice@contoso.example"}},
					// A null in the file is no value: the profile without an environment has no type.
					{ID: "https://service.powerapps.com/", Name: "", Fields: map[string]string{"geo": "EMEA", "user": "alice@contoso.example"}},
				}}, known: true, fields: true},
		{name: "pac folder case matters on Linux", provider: "pac",
			files: []string{"pac/authprofiles_v2.synthetic.json", "home/.local/share/Microsoft/PowerAppsCLI/authprofiles_v2.json"},
			want:  spec.Active{}},
		{name: "pac XDG_DATA_HOME", provider: "pac",
			files: []string{"pac/authprofiles_v2.synthetic.json", "data/Microsoft/PowerAppsCli/authprofiles_v2.json"},
			env:   map[string]string{"XDG_DATA_HOME": "{root}/data"},
			want:  spec.Active{Value: "https://contoso.crm4.dynamics.com/", Name: "Contoso Production", From: spec.From{Kind: spec.FromFile}, File: "data/Microsoft/PowerAppsCli/authprofiles_v2.json"}},
		{name: "pac no environment selected", provider: "pac",
			setup: func(t *testing.T, root string) {
				write(t, filepath.Join(root, pacLinux), `{"Profiles":[],"Current":{"UNIVERSAL":{"Resource":"https://service.powerapps.com/"}}}`)
			},
			want: spec.Active{File: pacLinux}},
		{name: "pac macOS, .NET 8 folder", provider: "pac", os: "darwin",
			files: []string{"pac/authprofiles_v2.synthetic.json", pacMac},
			want:  spec.Active{Value: "https://contoso.crm4.dynamics.com/", Name: "Contoso Production", From: spec.From{Kind: spec.FromFile}, File: pacMac}},
		{name: "pac macOS, older .NET folder", provider: "pac", os: "darwin",
			files: []string{"pac/authprofiles_v2.synthetic.json", pacLinux},
			want:  spec.Active{Value: "https://contoso.crm4.dynamics.com/", Name: "Contoso Production", From: spec.From{Kind: spec.FromFile}, File: pacLinux}},
		{name: "pac macOS, both: the newer folder wins", provider: "pac", os: "darwin",
			files: []string{"pac/authprofiles_v2.synthetic.json", pacMac},
			setup: func(t *testing.T, root string) {
				write(t, filepath.Join(root, pacLinux), `{"Current":{"UNIVERSAL":{"Resource":"https://old.example/"}}}`)
			},
			want: spec.Active{Value: "https://contoso.crm4.dynamics.com/", Name: "Contoso Production", From: spec.From{Kind: spec.FromFile}, File: pacMac}},

		// Windows: each CLI's own folders, with no HOME unless a case sets one (Git Bash does).
		{name: "windows az from USERPROFILE, HOME elsewhere", provider: "az", os: "windows",
			files: []string{"az/azureProfile.after-account-set-prod.json", azProfile, "az/azureProfile.handwritten.json", "other/.azure/azureProfile.json"},
			env:   map[string]string{"USERPROFILE": "{root}/home", "HOME": "{root}/other"},
			want:  spec.Active{Value: prodSub, Name: "Contoso-Prod", From: spec.From{Kind: spec.FromFile}, File: azProfile}},
		{name: "windows kubectl from USERPROFILE without HOME", provider: "kubectl", os: "windows",
			files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome},
			env:   map[string]string{"USERPROFILE": "{root}/home"},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome}},
		{name: "windows kubectl: HOME first when it holds .kube/config", provider: "kubectl", os: "windows",
			files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome, "kubectl/config.handwritten.yaml", "other/.kube/config"},
			env:   map[string]string{"USERPROFILE": "{root}/home", "HOME": "{root}/other"},
			want:  spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromFile}, File: "other/.kube/config"}},
		{name: "windows kubectl: HOME without .kube/config is passed over", provider: "kubectl", os: "windows",
			files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome},
			env:   map[string]string{"USERPROFILE": "{root}/home", "HOME": "{root}/work"},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: kubeHome}},
		{name: "windows kubectl: HOMEDRIVE and HOMEPATH before USERPROFILE", provider: "kubectl", os: "windows",
			files: []string{"kubectl/config.after-use-context-prod.yaml", kubeHome, "kubectl/config.handwritten.yaml", "other/.kube/config"},
			env:   map[string]string{"USERPROFILE": "{root}/home", "HOMEDRIVE": "{root}", "HOMEPATH": "/other"},
			want:  spec.Active{Value: "dev", Name: "dev", From: spec.From{Kind: spec.FromFile}, File: "other/.kube/config"}},
		{name: "windows kubectl: KUBECONFIG is ;-separated", provider: "kubectl", os: "windows",
			files: []string{"kubectl/config.after-use-context-prod.yaml", "k/prod.yaml", "kubectl/config.handwritten.yaml", kubeHome},
			env:   map[string]string{"USERPROFILE": "{root}/home", "KUBECONFIG": "{root}/k/missing.yaml;{root}/k/prod.yaml"},
			want:  spec.Active{Value: "prod", Name: "prod", From: spec.From{Kind: spec.FromFile}, File: "k/prod.yaml"}},
		{name: "windows gcloud from APPDATA", provider: "gcloud", os: "windows",
			files: []string{"gcloud/active_config", "appdata/gcloud/active_config", "gcloud/configurations/config_prod", "appdata/gcloud/configurations/config_prod"},
			env:   map[string]string{"APPDATA": "{root}/appdata"},
			want:  spec.Active{Value: "contoso-prod-654321", From: spec.From{Kind: spec.FromFile}, File: "appdata/gcloud/configurations/config_prod"}},
		{name: "windows gh from AppData without XDG_CONFIG_HOME", provider: "gh", os: "windows",
			files: []string{"gh/hosts.after-auth-switch-to-bob.yml", "appdata/GitHub CLI/hosts.yml"},
			env:   map[string]string{"APPDATA": "{root}/appdata"},
			want:  spec.Active{Value: "bob-example", Name: "bob-example", From: spec.From{Kind: spec.FromFile}, File: "appdata/GitHub CLI/hosts.yml"}},
		{name: "windows gh: XDG_CONFIG_HOME before AppData", provider: "gh", os: "windows",
			files: []string{"gh/hosts.after-auth-switch-to-bob.yml", "appdata/GitHub CLI/hosts.yml", "gh/hosts.two-users-alice-active.yml", "xdg/gh/hosts.yml"},
			env:   map[string]string{"APPDATA": "{root}/appdata", "XDG_CONFIG_HOME": "{root}/xdg"},
			want:  spec.Active{Value: "alice-example", Name: "alice-example", From: spec.From{Kind: spec.FromFile}, File: "xdg/gh/hosts.yml"}},
		{name: "windows gh: GH_CONFIG_DIR first", provider: "gh", os: "windows",
			files: []string{"gh/hosts.two-users-alice-active.yml", "xdg/gh/hosts.yml", "gh/hosts.after-auth-switch-to-bob.yml", "ghdir/hosts.yml"},
			env:   map[string]string{"XDG_CONFIG_HOME": "{root}/xdg", "GH_CONFIG_DIR": "{root}/ghdir"},
			want:  spec.Active{Value: "bob-example", Name: "bob-example", From: spec.From{Kind: spec.FromFile}, File: "ghdir/hosts.yml"}},
		{name: "windows pac from LOCALAPPDATA", provider: "pac", os: "windows",
			files: []string{"pac/authprofiles_v2.synthetic.json", "local/Microsoft/PowerAppsCli/authprofiles_v2.json"},
			env:   map[string]string{"LOCALAPPDATA": "{root}/local"},
			want:  spec.Active{Value: "https://contoso.crm4.dynamics.com/", Name: "Contoso Production", From: spec.From{Kind: spec.FromFile}, File: "local/Microsoft/PowerAppsCli/authprofiles_v2.json"}},
		{name: "windows terraform", provider: "terraform", os: "windows", files: []string{"terraform/environment.staging", tfEnv},
			want: spec.Active{Value: "staging", From: spec.From{Kind: spec.FromFile}, File: tfEnv}},
	}
}

func TestResolve(t *testing.T) {
	for _, tt := range append(resolveCases(), reachCases()...) {
		t.Run(tt.name, func(t *testing.T) {
			root := testenv.TempDir(t)
			sub := func(s string) string { return strings.ReplaceAll(s, "{root}", root) }
			subMap := func(m map[string]string) map[string]string {
				out := make(map[string]string, len(m))
				for k, v := range m {
					out[k] = sub(v)
				}
				return out
			}
			for _, d := range []string{"home", "work"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			place(t, root, tt.files...)
			if tt.setup != nil {
				tt.setup(t, root)
			}
			osName := tt.os
			if osName == "" {
				osName = "linux"
			}
			dir := tt.dir
			if dir == "" {
				dir = "work"
			}
			if (osName == "windows") != (runtime.GOOS == "windows") {
				// The case's files are read from disk at paths its system spells; the cases
				// for the other family are their counterpart (.ci/wine runs the Windows ones).
				t.Skipf("a case for %s, whose paths this system cannot name", osName)
			}
			in := spec.Input{
				Env:    env(subMap(tt.env)),
				Dir:    filepath.Join(root, dir),
				Home:   filepath.Join(root, "home"),
				System: paths.Env{OS: osName},
				Flag:   flags(subMap(tt.flags)),
				Vars:   subMap(tt.vars),
			}
			got, err := providers.NewReader().Resolve(provider(t, tt.provider), in)
			if tt.unknown != "" {
				if !errors.Is(err, spec.ErrUnknown) || !strings.Contains(err.Error(), tt.unknown) {
					t.Fatalf("Resolve error = %v, want ErrUnknown saying %q", err, tt.unknown)
				}
				return
			}
			if tt.wantErr != "" {
				var se *providers.StateError
				if err == nil || !strings.Contains(err.Error(), sub(tt.wantErr)) || !errors.As(err, &se) {
					t.Fatalf("Resolve error = %v, want a *StateError containing %q", err, sub(tt.wantErr))
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			want := tt.want
			if want.File != "" {
				want.File = filepath.Join(root, want.File)
			}
			type view struct {
				Value, Name, File string
				From              spec.From
				Known             []spec.Known
				Vars              map[string]string
			}
			if tt.anyFile {
				got.File = want.File
			}
			g := view{Value: got.Value, Name: got.Name, From: got.From, File: got.File}
			w := view{Value: want.Value, Name: want.Name, From: want.From, File: want.File}
			if tt.known {
				g.Known, w.Known = got.Known, want.Known
				if !tt.fields {
					g.Known = withoutFields(got.Known)
				}
			}
			if tt.lets {
				g.Vars, w.Vars = got.Vars, want.Vars
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}

// withoutFields is known without the Fields of its contexts, for the cases about ids and names.
func withoutFields(known []spec.Known) []spec.Known {
	if known == nil {
		return nil
	}
	out := make([]spec.Known, len(known))
	for i, k := range known {
		out[i] = spec.Known{ID: k.ID, Name: k.Name}
	}
	return out
}

// TestFixturesIntact guards the copies: az's byte-order mark is the point of several cases.
func TestFixturesIntact(t *testing.T) {
	for _, f := range []string{
		"az/azureProfile.after-account-set-prod.json", "az/azureProfile.after-account-clear.json",
		"az/azureProfile.fresh-install.json", "az/azureProfile.missing-then-created.json",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "\ufeff") {
			t.Errorf("%s lost its UTF-8 byte-order mark", f)
		}
	}
	if data, _ := os.ReadFile("testdata/az/azureProfile.missing-then-created.json"); string(data) != "\ufeff{}" {
		t.Errorf("missing-then-created = %q, want \\ufeff{}", data)
	}
}

func TestResolveTrace(t *testing.T) {
	root := testenv.TempDir(t)
	place(t, root, gcloudFiles...)
	in := spec.Input{Home: filepath.Join(root, "home"), System: paths.Env{}, Env: homeEnv(root, nil)}
	got, err := providers.NewReader().Resolve(provider(t, "gcloud"), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []spec.Let{{Name: "config", Value: "prod", From: spec.From{Kind: spec.FromFile}, File: filepath.Join(root, gcloudDir, "active_config")}}
	if diff := cmp.Diff(want, got.Lets); diff != "" {
		t.Errorf("Lets (-want +got):\n%s", diff)
	}
	if got.Key != "core.project" {
		t.Errorf("Key = %q, want core.project", got.Key)
	}

	in.Env = homeEnv(root, map[string]string{"GH_HOST": "ghe.example.invalid"})
	place(t, root, "gh/hosts.legacy-pre-2.40.yml", ghHosts)
	got, err = providers.NewReader().Resolve(provider(t, "gh"), in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `ghe\.example\.invalid.user`; got.Key != want {
		t.Errorf("Key = %q, want %q (the host escaped for gjson)", got.Key, want)
	}
	if want := []spec.Let{{Name: "host", Value: "ghe.example.invalid", From: spec.From{Kind: spec.FromEnv, Name: "GH_HOST"}}}; !cmp.Equal(want, got.Lets) {
		t.Errorf("Lets = %v, want %v", got.Lets, want)
	}
}

// TestReaderCaches checks that a Reader reads each file once: a second call sees the first
// call's state even when the file changed in between, so every call of one line agrees.
func TestReaderCaches(t *testing.T) {
	root := testenv.TempDir(t)
	place(t, root, "az/azureProfile.after-account-set-prod.json", azProfile)
	in := spec.Input{Home: filepath.Join(root, "home"), System: paths.Env{}, Env: homeEnv(root, nil)}
	r := providers.NewReader()
	a, err := r.Resolve(provider(t, "az"), in)
	if err != nil || a.Value != prodSub {
		t.Fatalf("Resolve = %q, %v", a.Value, err)
	}
	place(t, root, "az/azureProfile.handwritten.json", azProfile)
	if a, _ = r.Resolve(provider(t, "az"), in); a.Value != prodSub {
		t.Errorf("second Resolve = %q, want the cached %q", a.Value, prodSub)
	}
	if a, _ = providers.NewReader().Resolve(provider(t, "az"), in); a.Value != devSub {
		t.Errorf("new Reader = %q, want %q", a.Value, devSub)
	}
}

func TestActiveFind(t *testing.T) {
	a := spec.Active{Known: azKnown}
	for _, tt := range []struct {
		v    string
		fold bool
		want string
		ok   bool
	}{
		{devSub, false, devSub, true},
		{"Contoso-Prod", false, prodSub, true},
		{"contoso-prod", false, "", false},
		{"contoso-prod", true, prodSub, true},
		{"nope", true, "", false},
	} {
		e, ok := a.Find(tt.v, tt.fold)
		if e.ID != tt.want || ok != tt.ok {
			t.Errorf("Find(%q, %v) = %v, %v; want %q, %v", tt.v, tt.fold, e, ok, tt.want, tt.ok)
		}
	}
}

func TestTarget(t *testing.T) {
	root := testenv.TempDir(t)
	place(t, root, "pac/authprofiles_v2.synthetic.json", pacLinux)
	in := spec.Input{Home: filepath.Join(root, "home"), System: paths.Env{}, Env: homeEnv(root, nil)}
	s := provider(t, "pac")
	byIndex, byName, env := &s.Switch[0], &s.Switch[1], &s.Switch[2]
	tests := []struct {
		sw     *spec.Switch
		target string
		want   string
		ok     bool
	}{
		{byIndex, "1", "https://contoso-dev.crm4.dynamics.com/", true},
		{byIndex, "2", "https://contoso.crm4.dynamics.com/", true},
		{byIndex, "3", "https://service.powerapps.com/", true},
		{byIndex, "4", "", false},
		{byIndex, "0", "", false},
		{byIndex, "-1", "", false},
		{byIndex, "one", "", false},
		{byName, "contoso-dev", "https://contoso-dev.crm4.dynamics.com/", true},
		{byName, "contoso-prod", "https://contoso.crm4.dynamics.com/", true},
		{byName, "Contoso-Dev", "", false},
		{byName, `x"y\`, "", false},
		{byName, "contoso-*", "", false},
		{env, "https://other.crm.dynamics.com/", "https://other.crm.dynamics.com/", true},
	}
	r := providers.NewReader()
	for _, tt := range tests {
		got, ok, err := r.Target(s, in, tt.sw, tt.target)
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("Target(%s %v, %q) = %q, %v, %v; want %q, %v", tt.sw.Command, tt.sw.Flags, tt.target, got, ok, err, tt.want, tt.ok)
		}
	}
}

func TestLookup(t *testing.T) {
	root := testenv.TempDir(t)
	place(t, root, "pac/authprofiles_v2.synthetic.json", pacLinux, "gh/hosts.two-users-alice-active.yml", ghHosts)
	in := spec.Input{Home: filepath.Join(root, "home"), System: paths.Env{}, Env: homeEnv(root, map[string]string{"GH_HOST": "ghe.example.invalid"})}
	r := providers.NewReader()
	for _, tt := range []struct {
		provider, path, want string
		ok                   bool
	}{
		{"pac", "Profiles.0.Resource", "https://contoso-dev.crm4.dynamics.com/", true},
		{"pac", `Profiles.#(Name=="contoso-dev").FriendlyName`, "Contoso Dev", true},
		{"pac", "Profiles.7.Resource", "", false},
		{"gh", "${host}.git_protocol", "ssh", true},
		{"gh", "${host}.users.alice-corp.oauth_token", "gho_FAKEcorp0000000000000000000000000000", true},
	} {
		got, ok, err := r.Lookup(provider(t, tt.provider), in, tt.path)
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("Lookup(%s, %q) = %q, %v, %v; want %q, %v", tt.provider, tt.path, got, ok, err, tt.want, tt.ok)
		}
	}
}

func TestExists(t *testing.T) {
	root := testenv.TempDir(t)
	dir := filepath.Join(root, "work")
	if err := os.MkdirAll(filepath.Join(dir, "terraform.tfstate.d", "staging"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "terraform.tfstate.d", "escape", "x"), "")
	in := spec.Input{Dir: dir, Home: filepath.Join(root, "home"), System: paths.Env{}, Env: homeEnv(root, nil)}
	s := provider(t, "terraform")
	r := providers.NewReader()
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{"default", true},
		{"staging", true},
		{"nope", false},
		{"", false},
		{"Default", false},
		{"../terraform.tfstate.d/escape", false},
		{"..", false},
		{".", false},
	} {
		got, err := r.Exists(s, in, tt.value)
		if err != nil || got != tt.want {
			t.Errorf("Exists(%q) = %v, %v; want %v", tt.value, got, err, tt.want)
		}
	}
	// A provider without checks accepts every value.
	if ok, err := r.Exists(provider(t, "az"), in, "anything"); !ok || err != nil {
		t.Errorf("Exists without checks = %v, %v; want true", ok, err)
	}
}

func BenchmarkResolve(b *testing.B) {
	root := testenv.TempDir(b)
	place(b, root, "az/azureProfile.after-account-set-prod.json", azProfile,
		"kubectl/config.after-use-context-prod.yaml", kubeHome,
		"terraform/environment.staging", tfEnv)
	place(b, root, gcloudFiles...)
	in := spec.Input{
		Env:    homeEnv(root, map[string]string{"PATH": "/usr/bin"}),
		Dir:    filepath.Join(root, "work"),
		Home:   filepath.Join(root, "home"),
		System: paths.Env{},
		Flag:   flags(nil),
	}
	specs := []*spec.Spec{provider(b, "az"), provider(b, "kubectl"), provider(b, "gcloud"), provider(b, "terraform")}
	want := []string{prodSub, "prod", "contoso-prod-654321", "staging"}
	b.ReportAllocs()
	for b.Loop() {
		r := providers.NewReader()
		for i, s := range specs {
			a, err := r.Resolve(s, in)
			if err != nil || a.Value != want[i] {
				b.Fatalf("Resolve(%s) = %q, %v", s.Name, a.Value, err)
			}
		}
	}
}

// TestNoDir: when the engine cannot tell the call's directory, a relative state path is an
// error it can recognise, and absolute ones still resolve.
func TestNoDir(t *testing.T) {
	root := testenv.TempDir(t)
	place(t, root, "az/azureProfile.after-account-set-prod.json", azProfile)
	in := spec.Input{Home: filepath.Join(root, "home"), System: paths.Env{}, Env: homeEnv(root, nil)}
	r := providers.NewReader()
	if _, err := r.Resolve(provider(t, "terraform"), in); !errors.Is(err, spec.ErrNoDir) {
		t.Errorf("terraform without a directory: %v, want ErrNoDir", err)
	}
	if ok, err := r.Exists(provider(t, "terraform"), in, "staging"); !errors.Is(err, spec.ErrNoDir) {
		t.Errorf("Exists without a directory = %v, %v; want ErrNoDir", ok, err)
	}
	if ok, err := r.Exists(provider(t, "terraform"), in, "default"); !ok || err != nil {
		t.Errorf("Exists(default) without a directory = %v, %v; want true", ok, err)
	}
	if a, err := r.Resolve(provider(t, "az"), in); err != nil || a.Value != prodSub {
		t.Errorf("az without a directory = %q, %v", a.Value, err)
	}
	// A relative KUBECONFIG entry needs the directory too.
	in.Env = env(map[string]string{"KUBECONFIG": "a.yaml"})
	if _, err := r.Resolve(provider(t, "kubectl"), in); !errors.Is(err, spec.ErrNoDir) {
		t.Errorf("relative KUBECONFIG without a directory: %v, want ErrNoDir", err)
	}
}

func TestStepMentions(t *testing.T) {
	tests := []struct {
		provider string
		step     int
		name     string
		want     bool
	}{
		{"kubectl", 0, "KUBECONFIG", true},
		{"kubectl", 1, "KUBECONFIG", false},
		{"kubectl", 1, "kubeconfig", true},
		{"az", 0, "AZURE_CONFIG_DIR", true},
		{"az", 0, "USERPROFILE", true}, // in the Windows template
		{"az", 0, "HOME", false},
		{"gh", 1, "XDG_CONFIG_HOME", true}, // in a nested default
		{"gh", 1, "APPDATA", true},
		{"gh", 0, "GH_HOST", true},
		{"terraform", 0, "TF_DATA_DIR", true},
		{"terraform", 0, "TF_WORKSPACE", true},
		{"pac", 0, "XDG_DATA_HOME", true}, // in the Linux template and a macOS one
	}
	for _, tt := range tests {
		st := &provider(t, tt.provider).Context.Read[tt.step]
		if got := st.Mentions(tt.name); got != tt.want {
			t.Errorf("%s step %d Mentions(%s) = %v, want %v (templates %q)", tt.provider, tt.step, tt.name, got, tt.want, st.Templates())
		}
	}
}
