package providers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/spec"
)

// TestListed reads the contexts that the providers' listed files define, from the files the CLIs
// wrote: aws's profiles in two INI files (not its sso-session sections), gcloud's configurations
// (one without a project gives none), docker's contexts (one folder each, named inside), azd's
// environments (one folder each). A provider with nothing on the machine lists nothing.
func TestListed(t *testing.T) {
	azd := []string{"azd/azure.yaml", "work/azure.yaml", "azd/.azure/config.json", "work/.azure/config.json",
		"azd/.azure/.gitignore", "work/.azure/.gitignore", "azd/.azure/dev/.env", "work/.azure/dev/.env", "azd/.azure/prod/.env", "work/.azure/prod/.env"}
	var docker []string
	for _, d := range []string{"e919a75364398a449f860aeadddc57fa0502145a4e63959ddb33c417a48dc0da", "6754af9632a2745e85c293e5aac0863370d9bd3330b9938c00cadfd215227d77"} {
		docker = append(docker, "docker/contexts/meta/"+d+"/meta.json", "home/.docker/contexts/meta/"+d+"/meta.json")
	}
	for _, tt := range []struct {
		provider string
		files    []string
		extra    string // written into the home, with an sso-session section
		want     []spec.Known
	}{
		{provider: "aws", files: []string{"aws/config", "home/.aws/config", "aws/credentials", "home/.aws/credentials"},
			extra: "[sso-session contoso]\nsso_region = us-east-1\n[profile qa]\nregion = eu-west-1\n",
			want:  []spec.Known{{ID: "default", Name: "default"}, {ID: "dev", Name: "dev"}, {ID: "prod", Name: "prod"}, {ID: "staging", Name: "staging"}, {ID: "qa", Name: "qa"}}},
		{provider: "aws", files: []string{"aws/credentials", "home/.aws/credentials"},
			want: []spec.Known{{ID: "dev", Name: "dev"}, {ID: "staging", Name: "staging"}}},
		{provider: "gcloud", files: gcloudFiles,
			want: []spec.Known{{ID: "contoso-dev-123456", Name: "dev"}, {ID: "contoso-prod-654321", Name: "prod"}}},
		{provider: "docker", files: docker,
			want: []spec.Known{{ID: "prod", Name: "prod"}, {ID: "staging", Name: "staging"}}}, // in the folders' order
		{provider: "azd", files: azd, want: []spec.Known{{ID: "dev", Name: "dev"}, {ID: "prod", Name: "prod"}}},
		{provider: "aws"}, {provider: "gcloud"}, {provider: "docker"}, {provider: "azd"},
	} {
		t.Run(fmt.Sprintf("%s/%d files", tt.provider, len(tt.files)/2), func(t *testing.T) {
			root := testenv.TempDir(t)
			mkdir(t, filepath.Join(root, "work"))
			place(t, root, tt.files...)
			if tt.extra != "" {
				config := filepath.Join(root, "home", ".aws", "config")
				data, err := os.ReadFile(config)
				if err != nil {
					t.Fatal(err)
				}
				write(t, config, string(data)+tt.extra)
			}
			in := spec.Input{Env: homeEnv(root, nil), Dir: filepath.Join(root, "work"), Home: filepath.Join(root, "home"), System: paths.Env{}}
			got, err := providers.NewReader().Listed(provider(t, tt.provider), in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Listed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListedBroken: a listed file that does not parse is reported with its name, and the other
// listings still give their contexts.
func TestListedBroken(t *testing.T) {
	root := testenv.TempDir(t)
	place(t, root, "aws/credentials", "home/.aws/credentials")
	write(t, filepath.Join(root, "home", ".aws", "config"), "[profile dev\nregion = x\n")
	in := spec.Input{Env: homeEnv(root, nil), Home: filepath.Join(root, "home"), System: paths.Env{}}
	got, err := providers.NewReader().Listed(provider(t, "aws"), in)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "home", ".aws", "config")) {
		t.Errorf("err = %v, want one naming the config file", err)
	}
	if diff := cmp.Diff([]spec.Known{{ID: "dev", Name: "dev"}, {ID: "staging", Name: "staging"}}, got); diff != "" {
		t.Errorf("Listed (-want +got):\n%s", diff)
	}
}
