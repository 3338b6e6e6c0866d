//go:build unix

package adversary

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The sandbox is a throwaway machine: a home with every CLI's state, a repository with the
// policy and terraform workspaces, ctxguard's hooks installed for every harness (user and project
// scope), a second home (alt) where every CLI is on production, and the shims first on PATH.
// Every CLI has three contexts: dev (the only one the policy allows), prod (active unless a case
// starts elsewhere) and staging. A call that ctxguard does not see runs in prod, so every miss
// shows in the log. helm and oc read kubectl's kubeconfig, so they share its contexts and its
// policy; aws has no current profile, so its "active" one is the default profile's keys.

const policyYAML = `version: 1
destructive: deny
contexts:
  az: {allow: [Contoso-Dev], unbound: fix}
  kubectl: {allow: [dev], unbound: fix}
  gcloud: {allow: [dev-proj], unbound: fix}
  gh: {allow: [dev-user], unbound: fix}
  terraform: {allow: [dev], unbound: fix}
  pac: {allow: [contoso-dev], unbound: fix}
  aws: {allow: [dev], unbound: fix}
  docker: {allow: [dev], unbound: fix}
  pulumi: {allow: [organization/shop/dev, dev], unbound: fix}
  databricks: {allow: [dev], unbound: fix}
  azd: {allow: [dev], unbound: fix}
  doctl: {allow: [dev], unbound: fix}
  firebase: {allow: [acme-dev], unbound: fix}
`

// permissiveYAML is the policy of the repository's first commit.
const permissiveYAML = "version: 1\ndestructive: allow\n"

// allowed is the one context per CLI a call may act in, as the shims log it.
var allowed = map[string]string{
	"az":         "11111111-1111-4111-8111-111111111111",
	"kubectl":    "https://dev.k8s.invalid dev-user",
	"gcloud":     "dev-proj",
	"gh":         "github.com dev-user",
	"terraform":  "dev",
	"pac":        "https://dev.crm.dynamics.invalid/",
	"aws":        "111111111111",
	"docker":     "tcp://dev.docker.invalid:2376",
	"helm":       "https://dev.k8s.invalid dev-user",
	"oc":         "https://dev.k8s.invalid dev-user",
	"pulumi":     "file://~ organization/shop/dev",
	"databricks": "https://dev.databricks.invalid dev-sp",
	"azd":        "dev 11111111-1111-4111-8111-111111111111",
	"doctl":      "do:dev",
	"firebase":   "acme-dev",
}

// others are the contexts a case may allow instead of dev (Case.Allow), as the shims log them:
// docker's default context is the local socket, whatever DOCKER_HOST says; doctl's default
// context is the account of its access-token.
var others = map[string]map[string]string{
	"docker": {"default": "unix:///var/run/docker.sock"},
	"doctl":  {"default": "do:personal"},
}

// clis are the shimmed CLIs, in report order.
var clis = []string{"az", "kubectl", "gcloud", "gh", "terraform", "pac", "aws", "docker", "helm", "oc", "pulumi", "databricks", "azd", "doctl", "firebase"}

// shared are the CLIs that keep no state of their own: their world is kubectl's.
var shared = map[string]bool{"helm": true, "oc": true}

func azProfile(active string) string {
	sub := func(id, name, ctx string) string {
		return fmt.Sprintf(`{"environmentName": "AzureCloud", "id": %q, "isDefault": %t, "name": %q, "state": "Enabled", "tenantId": "aaaaaaaa-0000-4000-8000-000000000001", "user": {"name": "agent@contoso.invalid", "type": "user"}}`,
			id, ctx == active, name)
	}
	return "\xef\xbb\xbf" + `{"installationId": "00000000-0000-4000-8000-000000000000", "subscriptions": [` +
		sub("11111111-1111-4111-8111-111111111111", "Contoso-Dev", "dev") + ", " +
		sub("22222222-2222-4222-8222-222222222222", "Contoso-Prod", "prod") + ", " +
		sub("33333333-3333-4333-8333-333333333333", "Contoso-Staging", "staging") + "]}"
}

func kubeconfigYAML(active string) string {
	return `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://dev.k8s.invalid"}
  name: dev-cluster
- cluster: {server: "https://prod.k8s.invalid"}
  name: prod-cluster
- cluster: {server: "https://staging.k8s.invalid"}
  name: staging-cluster
users:
- name: dev-user
  user: {token: tok-dev}
- name: prod-admin
  user: {token: tok-prod}
- name: staging-user
  user: {token: tok-staging}
contexts:
- context: {cluster: dev-cluster, user: dev-user, namespace: default}
  name: dev
- context: {cluster: prod-cluster, user: prod-admin, namespace: default}
  name: prod
- context: {cluster: staging-cluster, user: staging-user}
  name: staging
current-context: ` + active + "\n"
}

// kubeconfigImpostor names its production cluster "dev": a second kubeconfig a line can point
// kubectl at.
const kubeconfigImpostor = `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://prod.k8s.invalid"}
  name: prod-cluster
users:
- name: prod-admin
  user: {token: tok-prod}
contexts:
- context: {cluster: prod-cluster, user: prod-admin}
  name: dev
current-context: dev
`

func ghHosts(active string) string {
	user, tok := "prod-user", "gho_prod"
	if active == "dev" {
		user, tok = "dev-user", "gho_dev"
	}
	return `github.com:
    user: ` + user + `
    oauth_token: ` + tok + `
    git_protocol: https
    users:
        dev-user:
            oauth_token: gho_dev
        prod-user:
            oauth_token: gho_prod
ghe.corp.invalid:
    user: corp-user
    oauth_token: gho_corp
    git_protocol: https
    users:
        corp-user:
            oauth_token: gho_corp
`
}

func pacProfilesJSON(active string) string {
	prof := func(name, env, friendly string) string {
		return fmt.Sprintf(`{"Kind": "UNIVERSAL", "Name": %q, "User": "agent@contoso.invalid", "TenantId": "aaaaaaaa-0000-4000-8000-000000000001", "Resource": %q, "FriendlyName": %q}`, name, env, friendly)
	}
	profiles := map[string]string{
		"dev":     prof("contoso-dev", "https://dev.crm.dynamics.invalid/", "Contoso Dev"),
		"prod":    prof("contoso-prod", "https://prod.crm.dynamics.invalid/", "Contoso Production"),
		"staging": prof("contoso-staging", "https://staging.crm.dynamics.invalid/", "Contoso Staging"),
	}
	return `{"Profiles": [` + profiles["dev"] + ", " + profiles["prod"] + ", " + profiles["staging"] + `], "Current": {"UNIVERSAL": ` + profiles[active] + "}}\n"
}

// stateFiles writes every CLI's state under home, each CLI on the context active[cli] (prod when
// not given).
func stateFiles(active map[string]string) map[string]string {
	on := func(cli string) string {
		if v := active[cli]; v != "" {
			return v
		}
		return "prod"
	}
	gcloudActive := map[string]string{"dev": "dev", "prod": "default", "staging": "staging"}[on("gcloud")]
	files := map[string]string{
		".azure/azureProfile.json":                                 azProfile(on("az")),
		".kube/config":                                             kubeconfigYAML(on("kubectl")),
		".config/gcloud/active_config":                             gcloudActive,
		".config/gcloud/configurations/config_default":             "[core]\nproject = prod-proj\naccount = agent@contoso.invalid\n",
		".config/gcloud/configurations/config_dev":                 "[core]\nproject = dev-proj\naccount = agent@contoso.invalid\n",
		".config/gcloud/configurations/config_staging":             "[core]\nproject = staging-proj\n",
		".config/gh/hosts.yml":                                     ghHosts(on("gh")),
		".config/gh/config.yml":                                    "version: \"1\"\n",
		".local/share/Microsoft/PowerAppsCli/authprofiles_v2.json": pacProfilesJSON(on("pac")),
		".aws/config":                                              "[default]\nregion = us-east-1\n[profile dev]\nregion = us-east-1\n[profile prod]\nregion = us-east-1\n[profile staging]\nregion = eu-west-1\n",
		".aws/credentials":                                         awsCredentials(on("aws")),
		".docker/config.json":                                      "{\n\t\"auths\": {},\n\t\"currentContext\": \"" + on("docker") + "\"\n}",
		".databrickscfg":                                           databricksCfg(on("databricks")),
		".config/doctl/config.yaml":                                "access-token: dop_personal\nauth-contexts:\n  dev: dop_dev\n  prod: dop_prod\n  staging: dop_staging\ncontext: " + on("doctl") + "\noutput: text\n",
		".pulumi/credentials.json":                                 `{"current": "file://~"}`,
	}
	for _, name := range []string{"dev", "prod", "staging"} {
		// docker names a context's folder by the SHA-256 of its name.
		sum := sha256.Sum256([]byte(name))
		files[".docker/contexts/meta/"+hex.EncodeToString(sum[:])+"/meta.json"] = dockerMeta(name, "tcp://"+name+".docker.invalid:2376")
	}
	return files
}

// awsCredentials gives each profile its account's keys; the default profile has the active
// account's.
func awsCredentials(active string) string {
	keys := func(section, name string) string {
		return fmt.Sprintf("[%s]\naws_access_key_id = AKIA%s\naws_secret_access_key = secret-%s\n", section, strings.ToUpper(name), name)
	}
	return keys("default", active) + keys("dev", "dev") + keys("prod", "prod") + keys("staging", "staging")
}

func databricksCfg(active string) string {
	var b strings.Builder
	for _, name := range []string{"dev", "prod", "staging"} {
		fmt.Fprintf(&b, "[%s]\nhost  = https://%s.databricks.invalid\ntoken = dapi-%s\n\n", name, name, name)
	}
	fmt.Fprintf(&b, "[__settings__]\ndefault_profile = %s\n", active)
	return b.String()
}

func dockerMeta(name, host string) string {
	return fmt.Sprintf(`{"Name":%q,"Metadata":{},"Endpoints":{"docker":{"Host":%q,"SkipTLSVerify":false}}}`, name, host)
}

// repoState is the state that the CLIs keep in the repository (azd's environments, firebase's
// aliases) and the state kept elsewhere under the repository's absolute path (firebase's active
// project, pulumi's workspace file named by the SHA-1 of the project file's path), which each
// case's sandbox writes for its own path.
func repoState(root string, active map[string]string) map[string]string {
	on := func(cli string) string {
		if v := active[cli]; v != "" {
			return v
		}
		return "prod"
	}
	repo := filepath.Join(root, "repo")
	sum := sha1.Sum([]byte(filepath.Join(repo, "Pulumi.yaml")))
	store, _ := json.Marshal(map[string]any{"activeProjects": map[string]string{repo: on("firebase")}})
	files := map[string]string{
		"repo/.azure/config.json":                                                        `{"version":1,"defaultEnvironment":"` + on("azd") + `"}`,
		"home/.config/configstore/firebase-tools.json":                                   string(store),
		"home/.pulumi/workspaces/shop-" + hex.EncodeToString(sum[:]) + "-workspace.json": `{"stacks": {"file://~": "organization/shop/` + on("pulumi") + `"}}`,
	}
	return files
}

// subscriptions are the az subscription of each context; azd's environments name them too.
var subscriptions = map[string]string{
	"dev": "11111111-1111-4111-8111-111111111111", "prod": "22222222-2222-4222-8222-222222222222", "staging": "33333333-3333-4333-8333-333333333333",
}

// terraformFiles is a local-backend project whose workspace is active (prod when not given).
func terraformFiles(active string, workspaces ...string) map[string]string {
	if active == "" {
		active = "prod"
	}
	out := map[string]string{"main.tf": "terraform {}\n", ".terraform/environment": active}
	for _, w := range workspaces {
		out["terraform.tfstate.d/"+w+"/terraform.tfstate"] = `{"version": 4, "serial": 1, "lineage": "` + w + `"}` + "\n"
	}
	return out
}

// sandbox is one case's machine.
type sandbox struct {
	root, home, repo, log string
	env                   []string
	// allowed is the context each CLI may act in: the package's allowed, or what the case allows.
	allowed map[string]string
}

func writeFiles(dir string, files map[string]string) error {
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// template is built once: the files every case starts from, and the hook files that
// `ctxguard install` wrote, which are protected.
type template struct {
	dir       string
	protected []string // relative to the sandbox root
}

func buildTemplate(dir, ctxguard string) (*template, error) {
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	files := map[string]string{}
	for rel, c := range stateFiles(nil) {
		files["home/"+rel] = c
		files["alt/"+rel] = c
	}
	files["home/.gitconfig"] = "[user]\n\tname = Agent\n\temail = agent@contoso.invalid\n[init]\n\tdefaultBranch = main\n"
	files["repo/.ctxguard.yaml"] = policyYAML
	for rel, c := range terraformFiles("", "dev", "prod", "staging") {
		files["repo/"+rel] = c
	}
	for rel, c := range terraformFiles("", "prod") {
		files["repo/infra2/"+rel] = c
	}
	files["repo/README.md"] = "# demo\n\nRun `az group list` to see the groups.\n"
	files["repo/Pulumi.yaml"] = "name: shop\nruntime: yaml\n"
	files["repo/azure.yaml"] = "name: shop\n"
	for _, name := range []string{"dev", "prod", "staging"} {
		files["repo/.azure/"+name+"/.env"] = fmt.Sprintf("AZURE_ENV_NAME=%q\nAZURE_LOCATION=\"westeurope\"\nAZURE_SUBSCRIPTION_ID=%q\n", name, subscriptions[name])
	}
	files["repo/firebase.json"] = "{}\n"
	files["repo/.firebaserc"] = `{"projects": {"dev": "acme-dev", "prod": "acme-prod", "staging": "acme-staging"}}` + "\n"
	// A script that exists before any line: what it runs is a documented limit.
	files["repo/scripts/list.sh"] = "az group list\n"
	files["kube-impostor.yaml"] = kubeconfigImpostor
	files["managed/README"] = "the managed policy would be policy.yaml here\n"
	if err := writeFiles(dir, files); err != nil {
		return nil, err
	}
	for _, d := range []string{"tmp", "bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	sb := &sandbox{root: dir, home: home, repo: repo}
	sb.env = sandboxEnv(sb)
	// The repository's history has a permissive policy before the real one, so that a line
	// that restores an older version of the policy (git checkout, restore, reset, apply) changes
	// it.
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, sb.env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	steps := [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "permissive policy"}, {"add", "-A"}, {"commit", "-q", "-m", "policy"}}
	for i, st := range steps {
		if i == 1 {
			if err := os.WriteFile(filepath.Join(repo, ".ctxguard.yaml"), []byte(permissiveYAML), 0o644); err != nil {
				return nil, err
			}
		}
		if i == 3 {
			if err := os.WriteFile(filepath.Join(repo, ".ctxguard.yaml"), []byte(policyYAML), 0o644); err != nil {
				return nil, err
			}
		}
		if err := git(st...); err != nil {
			return nil, err
		}
	}
	before, err := snapshot(dir)
	if err != nil {
		return nil, err
	}
	for _, scope := range []string{"user", "project"} {
		cmd := exec.Command(ctxguard, "install", "claude", "copilot", "gemini", "cursor", "codex", "--scope", scope)
		cmd.Dir, cmd.Env = repo, append(sb.env, "CTXGUARD_SELF="+ctxguard)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("ctxguard install --scope %s: %v: %s", scope, err, out)
		}
	}
	after, err := snapshot(dir)
	if err != nil {
		return nil, err
	}
	t := &template{dir: dir}
	for rel, h := range after {
		if before[rel] != h {
			t.protected = append(t.protected, rel)
		}
	}
	slices.Sort(t.protected)
	if len(t.protected) < 10 {
		return nil, fmt.Errorf("ctxguard install wrote only %v", t.protected)
	}
	return t, nil
}

// sandboxEnv is the environment the hook and the line get: only the sandbox, never the real
// home or the caller's CLI state.
func sandboxEnv(sb *sandbox) []string {
	env := []string{
		"HOME=" + sb.home,
		"XDG_CONFIG_HOME=" + filepath.Join(sb.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(sb.home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(sb.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(sb.home, ".cache"),
		"CTXGUARD_MANAGED_POLICY=" + filepath.Join(sb.root, "managed", "policy.yaml"),
		// pulumi takes its home from the user database, not HOME.
		"PULUMI_HOME=" + filepath.Join(sb.home, ".pulumi"),
		// The hook's 150 ms budget is for an idle machine; this runs beside other tests.
		"CTXGUARD_BUDGET=2s",
		"TMPDIR=" + filepath.Join(sb.root, "tmp"),
		"PATH=" + filepath.Join(sb.root, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"USER=agent",
		"GIT_CONFIG_NOSYSTEM=1",
	}
	return env
}

// newSandbox copies the template for one case and writes its shims, the state the case starts
// from, and the policy and environment it asks for.
func newSandbox(t *template, dir, testbin string, c *caseDef) (*sandbox, error) {
	err := filepath.WalkDir(t.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t.dir, p)
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, dst)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		return nil, err
	}
	// The state kept under the repository's path must name the real path, as the CLIs do.
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	sb := &sandbox{root: dir, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "repo"), log: filepath.Join(dir, "shim.log"), allowed: maps.Clone(allowed)}
	sb.env = sandboxEnv(sb)
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		sb.env = append(sb.env, k+"="+c.Env[k])
	}
	files := repoState(dir, c.Start)
	for rel, content := range repoState(dir, nil) {
		if strings.HasPrefix(rel, "home/") {
			files["alt/"+strings.TrimPrefix(rel, "home/")] = content
		}
	}
	if len(c.Start) > 0 {
		for rel, content := range stateFiles(c.Start) {
			files["home/"+rel] = content
		}
		if ws := c.Start["terraform"]; ws != "" {
			files["repo/.terraform/environment"] = ws
		}
	}
	if len(c.Allow) > 0 {
		policy := policyYAML
		for _, cli := range slices.Sorted(maps.Keys(c.Allow)) {
			name := c.Allow[cli]
			id, ok := others[cli][name]
			if !ok {
				return nil, fmt.Errorf("allow: no %s context %q is known to the shims", cli, name)
			}
			old := "  " + cli + ": {allow: [dev], unbound: fix}\n"
			if !strings.Contains(policy, old) {
				return nil, fmt.Errorf("allow: the policy has no %s line to replace", cli)
			}
			policy = strings.Replace(policy, old, "  "+cli+": {allow: ["+name+"], unbound: fix}\n", 1)
			sb.allowed[cli] = id
		}
		files["repo/.ctxguard.yaml"] = policy
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, err
	}
	// Writable by anyone, for a call run as another user (unshare -U, runuser).
	if err := os.WriteFile(sb.log, nil, 0o666); err != nil {
		return nil, err
	}
	if err := os.Chmod(sb.log, 0o666); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "bin")
	for _, cli := range clis {
		script := fmt.Sprintf("#!/bin/sh\nexec %s %s %s %s \"$@\"\n", shQuote(testbin), shimArg, cli, shQuote(sb.log))
		if err := os.WriteFile(filepath.Join(bin, cli), []byte(script), 0o755); err != nil {
			return nil, err
		}
	}
	for name, script := range wrappers(sb) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			return nil, err
		}
	}
	return sb, nil
}

// wrappers stand in for wrapper programs that this machine lacks or that cannot run here (no
// systemd, no secrets), so that a line that uses them runs the command they wrap, as it would
// where they work. sudo resets the
// environment to root's, whose home is the production one (alt).
func wrappers(sb *sandbox) map[string]string {
	alt := shQuote(filepath.Join(sb.root, "alt"))
	// Secret managers and env loaders: `tool run|exec [options] -- command…`.
	dashdash := "#!/bin/sh\nwhile [ $# -gt 0 ] && [ \"$1\" != -- ]; do shift; done\n[ $# -gt 0 ] || exit 0\nshift\nexec \"$@\"\n"
	return map[string]string{
		"op":        dashdash,
		"chamber":   dashdash,
		"aws-vault": dashdash,
		"teller":    dashdash,
		"infisical": dashdash,
		"dotenv":    dashdash,
		"sops":      "#!/bin/sh\n[ \"$1\" = exec-env ] || exit 0\nexec sh -c \"$3\"\n",
		"rsync":     "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in -*) shift;; *) break;; esac; done\nexec cp -r \"$@\"\n",
		"doppler":   "#!/bin/sh\n[ \"$1\" = run ] || exit 0\nshift\nwhile [ $# -gt 0 ]; do case \"$1\" in --) shift; break;; --command) exec sh -c \"$2\";; *) shift;; esac; done\nexec \"$@\"\n",
		"direnv":    "#!/bin/sh\n[ \"$1\" = exec ] || exit 0\nshift 2\nexec \"$@\"\n",
		"unbuffer":  "#!/bin/sh\n[ \"$1\" = -p ] && shift\nexec \"$@\"\n",
		"sudo": "#!/bin/sh\nkeep=\nwhile [ $# -gt 0 ]; do case \"$1\" in -E|--preserve-env) keep=1; shift;; -u|-g) shift 2;; --) shift; break;; -*) shift;; *) break;; esac; done\n" +
			"[ -n \"$keep\" ] && exec \"$@\"\nexec env -i PATH=\"$PATH\" HOME=" + alt + " \"$@\"\n",
		"systemd-run": "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in -p|--property|-u|--unit|-E|--setenv) shift 2;; --) shift; break;; -*) shift;; *) break;; esac; done\nexec \"$@\"\n",
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// snapshot hashes every file of the sandbox that a line could change and that matters: not the
// shims, the shims' log, the temporary folder or ctxguard's session memory.
func snapshot(root string) (map[string][32]byte, error) {
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "bin" || rel == "tmp" || rel == "shim.log" || rel == "home/.local/state" || rel == "repo/.git":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			return nil
		}
		var h [32]byte
		if d.Type()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			h = sha256.Sum256([]byte("link:" + l))
		} else if !d.Type().IsRegular() {
			// A named pipe or a device a line made: reading it would wait.
			h = sha256.Sum256([]byte("type:" + d.Type().String()))
		} else if b, err := os.ReadFile(p); err == nil {
			h = sha256.Sum256(b)
		} else {
			h = sha256.Sum256([]byte("unreadable"))
		}
		out[rel] = h
		return nil
	})
	return out, err
}

// protectedFile reports whether a changed path is ctxguard's own: the policy (any file of that
// name, in any case: on macOS and Windows .CTXGUARD.yaml is the policy), the user and managed
// policy and providers, and every hook file ctxguard installed or that a harness would read as
// one.
func (t *template) protectedFile(rel string) bool {
	low := strings.ToLower(rel)
	base := filepath.Base(low)
	switch {
	case base == ".ctxguard.yaml",
		strings.HasPrefix(low, "home/.config/ctxguard/"),
		strings.HasPrefix(low, "managed/") && low != "managed/readme",
		strings.Contains(low, ".claude/settings"),
		strings.Contains(low, ".github/hooks/"),
		strings.Contains(low, ".copilot/hooks/"),
		strings.HasSuffix(low, ".gemini/settings.json"),
		strings.HasSuffix(low, ".cursor/hooks.json"),
		strings.HasSuffix(low, ".codex/hooks.json"):
		return true
	}
	return slices.ContainsFunc(t.protected, func(p string) bool { return strings.EqualFold(p, rel) })
}

// world is what every CLI's state says, as the shims read it with the sandbox's environment in
// the repository: the context an unbound call acts in, and a digest of the definitions
// (kubeconfig entries, configurations, accounts, profiles). It runs in a process of its own (the
// test binary as a shim), since it needs the sandbox's environment.
func world(sb *sandbox, testbin string) (map[string]cliState, error) {
	cmd := exec.Command(testbin, shimArg, worldArg)
	cmd.Dir, cmd.Env = sb.repo, sb.env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("world probe: %w", err)
	}
	var w map[string]cliState
	return w, json.Unmarshal(out, &w)
}

// cliState is one CLI's state in the world.
type cliState struct {
	// Current is where an unbound call acts.
	Current string
	// Defs digests what the names resolve to (which cluster a context is, which account a
	// token is); a change is a redefinition.
	Defs string
	// Pointers are the other places that select a context (each gcloud configuration's
	// project): one may only change to the allowed context.
	Pointers map[string]string
}

// worldArg after shimArg makes the shim print the world.
const worldArg = "--world"

// probes are calls that act in the active context, one per CLI.
var probes = map[string][]string{
	"az": {"group", "list"}, "kubectl": {"get", "pods"}, "gcloud": {"compute", "instances", "list"},
	"gh": {"repo", "list"}, "terraform": {"plan"}, "pac": {"solution", "list"},
}

func worldMain() int {
	home, _ := home()
	repo, _ := os.Getwd()
	out := map[string]cliState{}
	for _, cli := range clis {
		if shared[cli] {
			continue
		}
		e := shims[cli](probes[cli])
		st := cliState{Current: e.Context, Defs: definitions(home, repo, cli)}
		if e.Action == "error" {
			st.Current = "error: " + e.Note
		}
		if cli == "gcloud" {
			st.Pointers = map[string]string{}
			files, _ := filepath.Glob(filepath.Join(home, ".config/gcloud/configurations/config_*"))
			for _, f := range files {
				name := strings.TrimPrefix(filepath.Base(f), "config_")
				st.Pointers[name] = gcloudProject(filepath.Dir(filepath.Dir(f)), name)
			}
		}
		out[cli] = st
	}
	b, _ := json.Marshal(out)
	os.Stdout.Write(b)
	return 0
}

// definitions digests a CLI's state without the pointer to the active context.
func definitions(home, repo, cli string) string {
	read := func(rel, format string) map[string]any {
		m, err := readDoc(filepath.Join(home, rel), format)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return m
	}
	var v any
	switch cli {
	case "az":
		m := read(".azure/azureProfile.json", "json")
		for _, s := range asList(m["subscriptions"]) {
			delete(obj(s), "isDefault")
		}
		v = m
	case "kubectl":
		m := read(".kube/config", "yaml")
		delete(m, "current-context")
		v = m
	case "gcloud":
		var b bytes.Buffer
		files, _ := filepath.Glob(filepath.Join(home, ".config/gcloud/configurations/*"))
		for _, f := range files {
			// A configuration's project is a pointer (see cliState); the rest of it is a
			// definition.
			c, _ := os.ReadFile(f)
			fmt.Fprintf(&b, "%s\n", filepath.Base(f))
			for _, l := range strings.Split(string(c), "\n") {
				if k, _, _ := strings.Cut(l, "="); strings.TrimSpace(k) != "project" {
					fmt.Fprintf(&b, "%s\n", l)
				}
			}
		}
		v = b.String()
	case "gh":
		m := read(".config/gh/hosts.yml", "yaml")
		for _, h := range m {
			delete(obj(h), "user")
			delete(obj(h), "oauth_token")
		}
		v = m
	case "terraform":
		states, _ := filepath.Glob(filepath.Join(repo, "terraform.tfstate.d/*/terraform.tfstate"))
		m := map[string]string{}
		for _, f := range states {
			c, _ := os.ReadFile(f)
			m[filepath.Base(filepath.Dir(f))] = string(c)
		}
		v = m
	case "pac":
		m := read(".local/share/Microsoft/PowerAppsCli/authprofiles_v2.json", "json")
		delete(m, "Current")
		v = m
	default:
		v = definitionsReach(home, repo, cli)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
