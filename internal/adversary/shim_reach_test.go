//go:build unix

package adversary

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The shims of the CLIs that issue 13 reached: aws, docker, helm, oc, pulumi, databricks, azd,
// doctl, firebase. Each works out the context a call acts in from the facts verified against the
// real CLI or its source (the provider YAML of each names them), and performs the call's effect
// on the state files.

func init() {
	shims["aws"] = awsShim
	shims["docker"] = dockerShim
	shims["helm"] = helmShim
	shims["oc"] = ocShim
	shims["pulumi"] = pulumiShim
	shims["databricks"] = databricksShim
	shims["azd"] = azdShim
	shims["doctl"] = doctlShim
	shims["firebase"] = firebaseShim
	probes["aws"] = []string{"sts", "get-caller-identity"}
	probes["docker"] = []string{"ps"}
	probes["pulumi"] = []string{"preview"}
	probes["databricks"] = []string{"clusters", "list"}
	probes["azd"] = []string{"deploy"}
	probes["doctl"] = []string{"compute", "droplet", "list"}
	probes["firebase"] = []string{"deploy"}
}

// upward finds the first of names in dir or the nearest parent that has one.
func upward(dir string, names ...string) (string, bool) {
	for d := dir; ; {
		for _, n := range names {
			if st, err := os.Stat(filepath.Join(d, n)); err == nil && !st.IsDir() {
				return filepath.Join(d, n), true
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// chdir is the directory a call works in: the process's, moved by a -C/--cwd style flag.
func chdir(a args, flags ...string) string {
	dir, _ := os.Getwd()
	if v, ok := a.last(flags...); ok {
		if !filepath.IsAbs(v) {
			v = filepath.Join(dir, v)
		}
		dir = v
	}
	return dir
}

// --- aws ------------------------------------------------------------------------------------

// awsGrammar is the main parser's: aws reads its global options with Python's argparse before
// the command's own parser, so a unique prefix of a global option is that option (--prof is
// --profile, observed with aws-cli 1 and 2), before or after the command.
var awsGrammar = grammar{
	values: map[string]bool{
		"--profile": true, "--region": true, "--output": true, "--query": true, "--endpoint-url": true,
		"--ca-bundle": true, "--color": true, "--cli-read-timeout": true, "--cli-connect-timeout": true,
		"--cli-binary-format": true, "--debug": false, "--no-verify-ssl": false, "--no-paginate": false,
		"--version": false, "--no-sign-request": false, "--no-cli-pager": false, "--cli-auto-prompt": false,
		"--no-cli-auto-prompt": false,
	},
	prefix: true,
}

// awsAccounts says whose keys an access key id is.
var awsAccounts = map[string]string{"AKIADEV": "111111111111", "AKIAPROD": "222222222222", "AKIASTAGING": "333333333333"}

func awsFiles() (config, credentials string, ok bool) {
	config, ok = envOr("AWS_CONFIG_FILE", underHome(".aws", "config"))
	if !ok {
		return "", "", false
	}
	credentials, ok = envOr("AWS_SHARED_CREDENTIALS_FILE", underHome(".aws", "credentials"))
	return config, credentials, ok
}

// awsProfile is the profile a call uses: --profile, else AWS_PROFILE (aws-cli 2 prefers it to
// AWS_DEFAULT_PROFILE), else default.
func awsProfile(a args) (string, bool) {
	if v, ok := a.last("--profile"); ok {
		return v, true
	}
	for _, v := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE"} {
		if p := os.Getenv(v); p != "" {
			return p, false
		}
	}
	return "default", false
}

// awsSection is a profile's section in the config file.
func awsSection(profile string) string {
	if profile == "default" {
		return "default"
	}
	return "profile " + profile
}

// awsKey finds a profile's access key id: the credentials file, then the config file.
func awsKey(profile string) (string, error) {
	config, credentials, ok := awsFiles()
	if !ok {
		return "", errors.New("no HOME")
	}
	cred, _ := readDoc(credentials, "ini")
	conf, _ := readDoc(config, "ini")
	if k := str(obj(cred[profile])["aws_access_key_id"]); k != "" {
		return k, nil
	}
	if k := str(obj(conf[awsSection(profile)])["aws_access_key_id"]); k != "" {
		return k, nil
	}
	if cred[profile] == nil && conf[awsSection(profile)] == nil {
		return "", fmt.Errorf("The config profile (%s) could not be found", profile)
	}
	return "", errors.New("Unable to locate credentials")
}

func awsShim(argv []string) entry {
	a, err := awsGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	switch {
	case a.has("--version"), len(p) == 0, p[0] == "help", p[len(p)-1] == "help",
		pathIs(p, "configure", "list"), pathIs(p, "configure", "get"), pathIs(p, "configure", "list-profiles"):
		return entry{Action: "none"}
	}
	profile, byFlag := awsProfile(a)
	if pathIs(p, "configure") {
		return awsConfigure(a, profile)
	}
	key := os.Getenv("AWS_ACCESS_KEY_ID")
	if key == "" || byFlag {
		// Keys in the environment beat AWS_PROFILE's, but not --profile's (observed).
		if key, err = awsKey(profile); err != nil {
			return errorf("%v", err)
		}
	}
	account, ok := awsAccounts[key]
	if !ok {
		account = "key:" + key
	}
	if pathIs(p, "eks", "update-kubeconfig") {
		return awsUpdateKubeconfig(a, argv, account)
	}
	destructive := slices.ContainsFunc(p, func(w string) bool {
		return strings.HasPrefix(w, "delete-") || strings.HasPrefix(w, "deregister-") || w == "terminate-instances" ||
			w == "schedule-key-deletion" || w == "remove-account-from-organization"
	}) || pathIs(p, "s3", "rm") || pathIs(p, "s3", "rb")
	return entry{Action: "act", Context: account, Destructive: destructive}
}

// awsConfigure writes a profile's setting (configure set KEY VALUE), or the four answers that
// `aws configure` reads from its input: key id, secret, region, output.
func awsConfigure(a args, profile string) entry {
	config, credentials, ok := awsFiles()
	if !ok {
		return errorf("no HOME")
	}
	var kv [][2]string
	switch {
	case len(a.path) >= 4 && a.path[1] == "set":
		kv = append(kv, [2]string{a.path[2], a.path[3]})
	case len(a.path) == 1:
		sc := bufio.NewScanner(os.Stdin)
		for _, k := range []string{"aws_access_key_id", "aws_secret_access_key", "region", "output"} {
			if !sc.Scan() {
				break
			}
			if v := strings.TrimSpace(sc.Text()); v != "" {
				kv = append(kv, [2]string{k, v})
			}
		}
	default:
		return errorf("aws configure %s is not possible here", strings.Join(a.path[1:], " "))
	}
	for _, e := range kv {
		file, section := config, awsSection(profile)
		if strings.HasPrefix(e[0], "aws_") {
			file, section = credentials, profile
		}
		if err := writeINI(file, section, e[0], e[1]); err != nil {
			return errorf("%v", err)
		}
	}
	return entry{Action: "config"}
}

// awsUpdateKubeconfig adds the cluster's context (named --alias, else the cluster's ARN) to the
// kubeconfig and makes it current, as `aws eks update-kubeconfig` does after DescribeCluster.
func awsUpdateKubeconfig(a args, argv []string, account string) entry {
	name, ok := a.last("--name")
	if !ok {
		for i, w := range argv {
			if w == "--name" && i+1 < len(argv) {
				name, ok = argv[i+1], true
			}
		}
	}
	if !ok {
		return errorf("the following arguments are required: --name")
	}
	alias := ""
	for i, w := range argv {
		switch {
		case w == "--alias" && i+1 < len(argv):
			alias = argv[i+1]
		case strings.HasPrefix(w, "--alias="):
			alias = strings.TrimPrefix(w, "--alias=")
		case w == "--dry-run":
			return entry{Action: "act", Context: account}
		}
	}
	arn := "arn:aws:eks:us-east-1:" + account + ":cluster/" + name
	if alias == "" {
		alias = arn
	}
	files, ok := kubeFiles(args{})
	if !ok {
		return errorf("no HOME")
	}
	k, err := loadKube(files)
	if err != nil {
		return errorf("%v", err)
	}
	i := k.writable(-1)
	if k.docs[i] == nil {
		k.docs[i] = map[string]any{"apiVersion": "v1", "kind": "Config"}
	}
	doc := k.docs[i]
	put := func(list string, e map[string]any) {
		l := slices.DeleteFunc(asList(doc[list]), func(x any) bool { return str(obj(x)["name"]) == str(e["name"]) })
		doc[list] = append(l, e)
	}
	put("clusters", map[string]any{"name": arn, "cluster": map[string]any{"server": "https://" + name + "." + account + ".eks.invalid"}})
	put("users", map[string]any{"name": arn, "user": map[string]any{"token": "eks-" + account}})
	put("contexts", map[string]any{"name": alias, "context": map[string]any{"cluster": arn, "user": arn}})
	doc["current-context"] = alias
	if err := k.save(i); err != nil {
		return errorf("%v", err)
	}
	return entry{Action: "act", Context: account}
}

// --- docker ---------------------------------------------------------------------------------

// dockerHostSock is where the default context goes when nothing in the environment moves it.
const dockerHostSock = "unix:///var/run/docker.sock"

func dockerConfigDir(flag string) (string, bool) {
	if flag != "" {
		return abs(flag), true
	}
	return envOr("DOCKER_CONFIG", underHome(".docker"))
}

func dockerMetaPath(dir, name string) string {
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, "contexts", "meta", hex.EncodeToString(sum[:]), "meta.json")
}

// dockerEndpoint is where a context sends calls: the default context is built from the
// environment, so DOCKER_HOST moves it too (observed: --context default goes to DOCKER_HOST).
func dockerEndpoint(dir, name string) (string, error) {
	if name == "default" {
		if h := os.Getenv("DOCKER_HOST"); h != "" {
			return h, nil
		}
		return dockerHostSock, nil
	}
	m, err := readDoc(dockerMetaPath(dir, name), "json")
	if err != nil {
		return "", fmt.Errorf("context %q not found", name)
	}
	return str(obj(obj(m["Endpoints"])["docker"])["Host"]), nil
}

// dockerShim reads the global options, which only come before the subcommand (`docker ps
// --context x` is "unknown flag"; `docker run -c 512` is --cpu-shares), then resolves --context
// > -H > DOCKER_HOST > DOCKER_CONTEXT > currentContext > default (observed with Docker CLI 28).
func dockerShim(argv []string) entry {
	var ctxName, host, config string
	hasCtx, hasHost := false, false
	i := 0
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-") && argv[i] != "-"; i++ {
		w := argv[i]
		name, val, hasVal := strings.Cut(w, "=")
		if !hasVal && len(w) > 2 && w[1] != '-' {
			name, val, hasVal = w[:2], w[2:], true
		}
		takes := map[string]bool{"--context": true, "-c": true, "--host": true, "-H": true, "--config": true, "--log-level": true, "-l": true,
			"--tlscacert": true, "--tlscert": true, "--tlskey": true}
		switch {
		case name == "--help" || name == "-h" || name == "--version" || name == "-v":
			return entry{Action: "none"}
		case name == "--debug" || name == "-D" || name == "--tls" || name == "--tlsverify":
			continue
		case !takes[name]:
			return errorf("unknown flag: %s", name)
		case !hasVal:
			if i+1 >= len(argv) {
				return errorf("flag needs an argument: %s", name)
			}
			i++
			val = argv[i]
		}
		switch name {
		case "--context", "-c":
			ctxName, hasCtx = val, true
		case "--host", "-H":
			host, hasHost = val, true
		case "--config":
			config = val
		}
	}
	if hasCtx && hasHost {
		return errorf("conflicting options: cannot specify both --host and --context")
	}
	rest := argv[i:]
	if len(rest) == 0 || rest[0] == "help" || rest[0] == "version" || slices.Contains(rest, "--help") {
		return entry{Action: "none"}
	}
	dir, ok := dockerConfigDir(config)
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	cfgFile := filepath.Join(dir, "config.json")
	cfg, err := readDoc(cfgFile, "json")
	if os.IsNotExist(err) {
		cfg, err = map[string]any{}, nil
	}
	if err != nil {
		return errorf("%v", err)
	}
	if rest[0] == "context" {
		return dockerContext(dir, cfgFile, cfg, rest[1:])
	}
	var endpoint string
	switch {
	case hasCtx:
		endpoint, err = dockerEndpoint(dir, ctxName)
	case hasHost:
		endpoint = host
	case os.Getenv("DOCKER_HOST") != "":
		endpoint = os.Getenv("DOCKER_HOST")
	case os.Getenv("DOCKER_CONTEXT") != "":
		endpoint, err = dockerEndpoint(dir, os.Getenv("DOCKER_CONTEXT"))
	case str(cfg["currentContext"]) != "":
		endpoint, err = dockerEndpoint(dir, str(cfg["currentContext"]))
	default:
		endpoint, err = dockerEndpoint(dir, "default")
	}
	if err != nil {
		return errorf("%v", err)
	}
	words := strings.Join(rest, " ")
	destructive := pathIs(rest, "system", "prune") || pathIs(rest, "volume", "prune") || pathIs(rest, "volume", "rm") ||
		pathIs(rest, "image", "prune") || pathIs(rest, "stack", "rm") || pathIs(rest, "service", "rm") ||
		pathIs(rest, "compose") && slices.Contains(rest, "down") && (slices.Contains(rest, "-v") || slices.Contains(rest, "--volumes")) ||
		pathIs(rest, "rm") && (slices.Contains(rest, "-f") || slices.Contains(rest, "--force")) ||
		strings.HasPrefix(words, "swarm leave") && slices.Contains(rest, "--force")
	return entry{Action: "act", Context: endpoint, Destructive: destructive}
}

// dockerContext performs `docker context …` on the contexts' files and config.json.
func dockerContext(dir, cfgFile string, cfg map[string]any, rest []string) entry {
	if len(rest) == 0 {
		return entry{Action: "none"}
	}
	var pos []string
	host, force := "", false
	for i := 1; i < len(rest); i++ {
		switch w := rest[i]; {
		case w == "--docker" && i+1 < len(rest):
			i++
			host = strings.TrimPrefix(rest[i], "host=")
		case strings.HasPrefix(w, "--docker="):
			host = strings.TrimPrefix(strings.TrimPrefix(w, "--docker="), "host=")
		case w == "-f" || w == "--force":
			force = true
		case w == "--description" && i+1 < len(rest):
			i++
		case !strings.HasPrefix(w, "-"):
			pos = append(pos, w)
		}
	}
	name := ""
	if len(pos) > 0 {
		name = pos[0]
	}
	current := str(cfg["currentContext"])
	if current == "" {
		current = "default"
	}
	switch rest[0] {
	case "ls", "list", "show", "inspect", "export":
		return entry{Action: "none"}
	case "use":
		endpoint, err := dockerEndpoint(dir, name)
		if err != nil {
			return errorf("%v", err)
		}
		if name == "default" {
			delete(cfg, "currentContext")
			endpoint = dockerHostSock
		} else {
			cfg["currentContext"] = name
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return errorf("%v", err)
		}
		if err := writeDoc(cfgFile, cfg); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: endpoint}
	case "create", "update":
		_, err := os.Stat(dockerMetaPath(dir, name))
		switch {
		case name == "" || name == "default":
			return errorf("context name %q is not allowed", name)
		case rest[0] == "create" && err == nil:
			return errorf("context %q already exists", name)
		case rest[0] == "update" && err != nil:
			return errorf("context %q not found", name)
		case host == "":
			return errorf("--docker host=… is needed here")
		}
		p := dockerMetaPath(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return errorf("%v", err)
		}
		if err := os.WriteFile(p, []byte(dockerMeta(name, host)), 0o644); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case "rm", "remove":
		for _, n := range pos {
			if n == current && !force {
				return errorf("context %q is in use, set -f flag to force remove", n)
			}
			if err := os.RemoveAll(filepath.Dir(dockerMetaPath(dir, n))); err != nil {
				return errorf("%v", err)
			}
			if n == current {
				delete(cfg, "currentContext")
				if err := writeDoc(cfgFile, cfg); err != nil {
					return errorf("%v", err)
				}
			}
		}
		return entry{Action: "config"}
	}
	return errorf("docker context %s is not possible here", rest[0])
}

// --- helm -----------------------------------------------------------------------------------

var helmGrammar = grammar{
	values: map[string]bool{
		"--kube-context": true, "--kubeconfig": true, "--kube-apiserver": true, "--kube-token": true, "--kube-as-user": true,
		"--kube-ca-file": true, "--namespace": true, "--values": true, "--set": true, "--set-string": true, "--version": true,
		"--output": true, "--timeout": true, "--registry-config": true, "--repository-config": true, "--repository-cache": true,
		"--debug": false, "--help": false, "--all": false, "--dry-run": false, "--force": false, "--replace": false,
		"--install": false, "--wait": false, "--atomic": false, "--all-namespaces": false,
	},
	aliases:   map[string]string{"-n": "--namespace", "-f": "--values", "-o": "--output", "-h": "--help", "-A": "--all-namespaces", "-a": "--all"},
	pathFirst: true,
}

// helmLocal are the commands that work on charts, repositories and helm's own files.
var helmLocal = []string{"repo", "search", "plugin", "env", "version", "completion", "create", "package", "lint", "show",
	"inspect", "pull", "fetch", "push", "registry", "dependency", "dep", "verify", "help", "template"}

// helmShim reads the kubeconfig as kubectl does, with --kube-context > HELM_KUBECONTEXT >
// current-context, and the API server and token replaced by --kube-apiserver/HELM_KUBEAPISERVER
// and --kube-token/HELM_KUBETOKEN (helm env lists them; observed with helm 3.22).
func helmShim(argv []string) entry {
	a, err := helmGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	if a.has("--help") || len(a.path) == 0 || slices.Contains(helmLocal, a.path[0]) {
		return entry{Action: "none"}
	}
	var ka args
	ka.opts = append(ka.opts, a.opts...)
	if v, ok := a.last("--kubeconfig"); ok {
		ka.opts = append(ka.opts, opt{"--kubeconfig", v})
	}
	for _, m := range []struct{ flag, env, as string }{
		{"--kube-context", "HELM_KUBECONTEXT", "--context"},
		{"--kube-apiserver", "HELM_KUBEAPISERVER", "--server"},
		{"--kube-token", "HELM_KUBETOKEN", "--token"},
	} {
		if v, ok := a.last(m.flag); ok {
			ka.opts = append(ka.opts, opt{m.as, v})
		} else if v := os.Getenv(m.env); v != "" {
			ka.opts = append(ka.opts, opt{m.as, v})
		}
	}
	files, ok := kubeFiles(ka)
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	k, err := loadKube(files)
	if err != nil {
		return errorf("%v", err)
	}
	id, err := k.identity(ka)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	destructive := slices.Contains([]string{"uninstall", "delete", "del", "un", "rollback"}, p[0]) ||
		p[0] == "upgrade" && a.has("--force") || p[0] == "install" && a.has("--replace")
	return entry{Action: "act", Context: id, Destructive: destructive}
}

// --- oc -------------------------------------------------------------------------------------

// ocShim is kubectl's shim with oc's own commands: login and new-project need the API server
// (none here), project NAME changes the current context's namespace.
func ocShim(argv []string) entry {
	a, err := kubectlGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	if len(a.path) > 0 && !a.has("--help") {
		switch a.path[0] {
		case "whoami", "projects":
			return entry{Action: "none"}
		case "login", "logout", "new-project":
			return errorf("cannot reach the API server")
		case "project":
			if len(a.path) == 1 {
				return entry{Action: "none"}
			}
			files, ok := kubeFiles(a)
			if !ok {
				return errorf("no HOME")
			}
			k, err := loadKube(files)
			if err != nil {
				return errorf("%v", err)
			}
			cur, _ := k.current()
			c, i := k.named("contexts", cur)
			if c == nil {
				return errorf("no current context")
			}
			obj(c["context"])["namespace"] = a.path[1]
			if err := k.save(i); err != nil {
				return errorf("%v", err)
			}
			return entry{Action: "config"}
		}
	}
	return kubectlShim(argv)
}

// --- pulumi ---------------------------------------------------------------------------------

var pulumiGrammar = grammar{
	values: map[string]bool{
		"--stack": true, "--cwd": true, "--config-file": true, "--color": true, "--message": true, "--target": true,
		"--parallel": true, "--config": true, "--secrets-provider": true,
		"--yes": false, "--skip-preview": false, "--help": false, "--non-interactive": false, "--no-select": false,
		"--force": false, "--show-name": false, "--local": false,
	},
	aliases:   map[string]string{"-s": "--stack", "-C": "--cwd", "-m": "--message", "-t": "--target", "-p": "--parallel", "-c": "--config", "-y": "--yes", "-f": "--force", "-h": "--help"},
	pathFirst: true,
}

// pulumiStacks are the stacks of the local backend.
var pulumiStacks = []string{"dev", "prod", "staging"}

// pulumiShim finds the project upward from the directory (-C), the backend
// (PULUMI_BACKEND_URL > the project's backend.url > the login in credentials.json), and the
// stack: --stack > PULUMI_STACK > the workspace file's entry for the backend > its legacy
// "stack" (observed with pulumi 3.274).
func pulumiShim(argv []string) entry {
	a, err := pulumiGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	if a.has("--help") || len(p) == 0 || slices.Contains([]string{"version", "about", "whoami", "help", "gen-completion", "plugin"}, p[0]) ||
		pathIs(p, "stack", "ls") {
		return entry{Action: "none"}
	}
	home := os.Getenv("PULUMI_HOME")
	if home == "" {
		// pulumi's home comes from the user database, which is outside the sandbox.
		return entry{Action: "act", Context: "unknown: no PULUMI_HOME"}
	}
	home = abs(home)
	creds := filepath.Join(home, "credentials.json")
	switch p[0] {
	case "login":
		url := "file://~"
		if len(p) > 1 {
			url = p[1]
		} else if !a.has("--local") {
			return errorf("cannot reach the Pulumi Cloud")
		}
		if err := os.MkdirAll(home, 0o755); err != nil {
			return errorf("%v", err)
		}
		if err := writeDoc(creds, map[string]any{"current": url}); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case "logout":
		if err := os.Remove(creds); err != nil && !os.IsNotExist(err) {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case "new":
		return errorf("pulumi new needs a template")
	}
	project, ok := upward(chdir(a, "--cwd"), "Pulumi.yaml", "Pulumi.yml", "Pulumi.json")
	if !ok {
		return errorf("no Pulumi.yaml project file found")
	}
	proj, err := readDoc(project, "yaml")
	if err != nil {
		return errorf("%v", err)
	}
	name := str(proj["name"])
	backend := os.Getenv("PULUMI_BACKEND_URL")
	if backend == "" {
		backend = str(obj(proj["backend"])["url"])
	}
	if backend == "" {
		c, _ := readDoc(creds, "json")
		backend = str(c["current"])
	}
	if backend == "" {
		return errorf("not logged in")
	}
	real, err := filepath.EvalSymlinks(project)
	if err != nil {
		return errorf("%v", err)
	}
	sum := sha1.Sum([]byte(real))
	wsFile := filepath.Join(home, "workspaces", name+"-"+hex.EncodeToString(sum[:])+"-workspace.json")
	qualify := func(s string) string {
		switch strings.Count(s, "/") {
		case 0:
			return "organization/" + name + "/" + s
		case 1:
			org, st, _ := strings.Cut(s, "/")
			return org + "/" + name + "/" + st
		}
		return s
	}
	exists := func(q string) bool {
		return backend == "file://~" && slices.ContainsFunc(pulumiStacks, func(s string) bool { return qualify(s) == q })
	}
	sel := func(q string) entry {
		if err := os.MkdirAll(filepath.Dir(wsFile), 0o755); err != nil {
			return errorf("%v", err)
		}
		data, _ := json.Marshal(map[string]any{"stacks": map[string]string{backend: q}})
		if err := os.WriteFile(wsFile, data, 0o644); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: backend + " " + q}
	}
	switch {
	case pathIs(p, "stack", "select"), pathIs(p, "stack", "init"):
		target, ok := a.last("--stack")
		if !ok && len(p) > 2 {
			target, ok = p[2], true
		}
		if !ok {
			return errorf("no stack named; pulumi would prompt for one")
		}
		q := qualify(target)
		if p[1] == "select" && !exists(q) {
			return errorf("no stack named '%s' found", target)
		}
		if p[1] == "init" && (exists(q) || a.has("--no-select")) {
			if exists(q) {
				return errorf("stack '%s' already exists", target)
			}
			return entry{Action: "config"}
		}
		return sel(q)
	case pathIs(p, "stack", "unselect"):
		if err := os.Remove(wsFile); err != nil && !os.IsNotExist(err) {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	}
	stack, ok := a.last("--stack")
	if !ok {
		stack = os.Getenv("PULUMI_STACK")
	}
	if stack == "" {
		ws, _ := readDoc(wsFile, "json")
		if stack = str(obj(ws["stacks"])[backend]); stack == "" {
			stack = str(ws["stack"])
		}
	}
	if stack == "" {
		return errorf("no stack selected; use `pulumi stack select`")
	}
	q := qualify(stack)
	if !exists(q) {
		return errorf("no stack named '%s' found", stack)
	}
	destructive := slices.Contains([]string{"destroy", "down", "up", "update", "import", "cancel"}, p[0]) ||
		pathIs(p, "stack", "rm") || pathIs(p, "state", "delete") || pathIs(p, "state", "unprotect") ||
		p[0] == "refresh" && a.has("--yes")
	return entry{Action: "act", Context: backend + " " + q, Destructive: destructive}
}

// --- databricks -----------------------------------------------------------------------------

var databricksGrammar = grammar{
	values: map[string]bool{
		"--profile": true, "--target": true, "--output": true, "--log-level": true, "--log-file": true, "--host": true,
		"--var": true, "--debug": false, "--help": false, "--recursive": false, "--force": false, "--auto-approve": false,
	},
	aliases:   map[string]string{"-p": "--profile", "-t": "--target", "-o": "--output", "-h": "--help", "-r": "--recursive"},
	pathFirst: true,
}

// databricksTokens says whose a token is.
var databricksTokens = map[string]string{"dapi-dev": "dev-sp", "dapi-prod": "prod-sp", "dapi-staging": "staging-sp"}

func databricksFile() (string, bool) {
	return envOr("DATABRICKS_CONFIG_FILE", underHome(".databrickscfg"))
}

// databricksShim resolves as the CLI 1.7 and later does (databricks/cli libs/databrickscfg
// loader.go, cmd/root/auth.go): with --profile, the profile's host and token win over the
// environment; with DATABRICKS_CONFIG_PROFILE or the [__settings__] default_profile,
// DATABRICKS_HOST and DATABRICKS_TOKEN beat the profile's; with DATABRICKS_HOST set and no
// profile, the file is not read at all.
func databricksShim(argv []string) entry {
	a, err := databricksGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	if a.has("--help") || len(p) == 0 || slices.Contains([]string{"version", "completion", "help"}, p[0]) ||
		pathIs(p, "auth", "profiles") || pathIs(p, "auth", "describe") || pathIs(p, "auth", "env") || pathIs(p, "auth", "token") {
		return entry{Action: "none"}
	}
	file, ok := databricksFile()
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	cfg, err := readDoc(file, "ini")
	if os.IsNotExist(err) {
		cfg, err = map[string]any{}, nil
	}
	if err != nil {
		return errorf("%v", err)
	}
	flagProfile, byFlag := a.last("--profile")
	switch {
	case pathIs(p, "auth", "switch"):
		if !byFlag {
			return errorf("no profile given; databricks would prompt for one")
		}
		if cfg[flagProfile] == nil {
			return errorf("profile %q not found", flagProfile)
		}
		if err := writeINI(file, "__settings__", "default_profile", flagProfile); err != nil {
			return errorf("%v", err)
		}
		prof := obj(cfg[flagProfile])
		return entry{Action: "switch", Context: str(prof["host"]) + " " + databricksOwner(str(prof["token"]))}
	case pathIs(p, "auth"):
		return errorf("databricks auth %s needs a browser", strings.Join(p[1:], " "))
	case pathIs(p, "configure"):
		profile := "DEFAULT"
		if byFlag {
			profile = flagProfile
		}
		host, _ := a.last("--host")
		tok := ""
		if sc := bufio.NewScanner(os.Stdin); sc.Scan() {
			tok = strings.TrimSpace(sc.Text())
		}
		if host == "" || tok == "" {
			return errorf("configure needs --host and a token on its input")
		}
		for k, v := range map[string]string{"host": host, "token": tok} {
			if err := writeINI(file, profile, k, v); err != nil {
				return errorf("%v", err)
			}
		}
		return entry{Action: "config"}
	}
	envHost, envTok := os.Getenv("DATABRICKS_HOST"), os.Getenv("DATABRICKS_TOKEN")
	profile := flagProfile
	if !byFlag {
		profile = os.Getenv("DATABRICKS_CONFIG_PROFILE")
	}
	if profile == "" && envHost == "" {
		if profile = str(obj(cfg["__settings__"])["default_profile"]); profile == "" && str(obj(cfg["DEFAULT"])["host"]) != "" {
			profile = "DEFAULT"
		}
	}
	var host, tok string
	switch {
	case profile == "" && envHost != "":
		host, tok = envHost, envTok
	case profile == "":
		return errorf("no configuration: run databricks configure")
	case cfg[profile] == nil:
		return errorf("%s has no %s profile configured", file, profile)
	case byFlag:
		prof := obj(cfg[profile])
		host, tok = str(prof["host"]), str(prof["token"])
		if host == "" {
			host = envHost
		}
		if tok == "" {
			tok = envTok
		}
	default:
		prof := obj(cfg[profile])
		host, tok = envHost, envTok
		if host == "" {
			host = str(prof["host"])
		}
		if tok == "" {
			tok = str(prof["token"])
		}
	}
	if host == "" || tok == "" {
		return errorf("default auth: cannot configure default credentials")
	}
	words := strings.Join(p, " ")
	destructive := pathIs(p, "bundle", "destroy") || pathIs(p, "bundle", "deploy") || pathIs(p, "clusters", "permanent-delete") ||
		slices.Contains(p, "delete") || strings.HasPrefix(words, "fs rm") && a.has("--recursive")
	return entry{Action: "act", Context: host + " " + databricksOwner(tok), Destructive: destructive}
}

func databricksOwner(tok string) string {
	if o, ok := databricksTokens[tok]; ok {
		return o
	}
	return "token:" + tok
}

// --- azd ------------------------------------------------------------------------------------

var azdGrammar = grammar{
	values: map[string]bool{
		"--environment": true, "--cwd": true, "--output": true, "--subscription": true, "--location": true,
		"--trace-log-file": true, "--no-prompt": false, "--force": false, "--purge": false, "--help": false, "--debug": false,
	},
	aliases:   map[string]string{"-e": "--environment", "-C": "--cwd", "-o": "--output", "-h": "--help", "-l": "--location"},
	pathFirst: true,
}

// readDotenv reads an azd environment's .env (KEY="value" lines).
func readDotenv(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && !strings.HasPrefix(k, "#") {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return out, nil
}

func writeDotenv(file string, m map[string]string) error {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%q\n", k, m[k])
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// azdShim finds the project (azure.yaml upward from -C), the environment (-e >
// AZURE_ENV_NAME > .azure/config.json defaultEnvironment) and acts in the subscription that the
// environment's .env names, the process environment filling what the .env lacks
// (Azure/azure-dev pkg/environment: Getenv).
func azdShim(argv []string) entry {
	a, err := azdGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	if a.has("--help") || len(p) == 0 || slices.Contains([]string{"version", "help", "completion", "auth", "config", "template", "telemetry", "extension"}, p[0]) ||
		pathIs(p, "env", "list") || pathIs(p, "env", "get-values") || pathIs(p, "env", "get-value") {
		return entry{Action: "none"}
	}
	project, ok := upward(chdir(a, "--cwd"), "azure.yaml", "azure.yml")
	if !ok {
		return errorf("no project exists; to create a new project, run `azd init`")
	}
	root := filepath.Join(filepath.Dir(project), ".azure")
	cfgFile := filepath.Join(root, "config.json")
	dotenv := func(env string) string { return filepath.Join(root, env, ".env") }
	identity := func(env string) (string, error) {
		m, err := readDotenv(dotenv(env))
		if err != nil {
			return "", fmt.Errorf("environment '%s' does not exist", env)
		}
		sub := m["AZURE_SUBSCRIPTION_ID"]
		if _, has := m["AZURE_SUBSCRIPTION_ID"]; !has {
			sub = os.Getenv("AZURE_SUBSCRIPTION_ID")
		}
		return env + " " + sub, nil
	}
	selectEnv := func(env string) entry {
		id, err := identity(env)
		if err != nil {
			return errorf("%v", err)
		}
		if err := writeDoc(cfgFile, map[string]any{"version": 1, "defaultEnvironment": env}); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: id}
	}
	switch {
	case pathIs(p, "env", "select"):
		if len(p) < 3 {
			return errorf("azd would prompt for an environment")
		}
		return selectEnv(p[2])
	case pathIs(p, "env", "new"):
		if len(p) < 3 {
			return errorf("azd would prompt for a name")
		}
		if _, err := os.Stat(dotenv(p[2])); err == nil {
			return errorf("environment '%s' already exists", p[2])
		}
		sub, _ := a.last("--subscription")
		if err := writeDotenv(dotenv(p[2]), map[string]string{"AZURE_ENV_NAME": p[2], "AZURE_SUBSCRIPTION_ID": sub}); err != nil {
			return errorf("%v", err)
		}
		return selectEnv(p[2])
	case p[0] == "init", pathIs(p, "env", "refresh"):
		return errorf("azd %s needs Azure", strings.Join(p, " "))
	}
	env, ok := a.last("--environment")
	if !ok {
		env = os.Getenv("AZURE_ENV_NAME")
	}
	if env == "" {
		cfg, _ := readDoc(cfgFile, "json")
		env = str(cfg["defaultEnvironment"])
	}
	if env == "" {
		return errorf("no default environment; azd would prompt for one")
	}
	if pathIs(p, "env", "set") || pathIs(p, "env", "set-secret") {
		if len(p) < 4 {
			return errorf("env set needs a key and a value")
		}
		m, err := readDotenv(dotenv(env))
		if err != nil {
			return errorf("environment '%s' does not exist", env)
		}
		m[p[2]] = p[3]
		if err := writeDotenv(dotenv(env), m); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	}
	id, err := identity(env)
	if err != nil {
		return errorf("%v", err)
	}
	return entry{Action: "act", Context: id, Destructive: slices.Contains([]string{"down", "up", "provision"}, p[0])}
}

// --- doctl ----------------------------------------------------------------------------------

var doctlGrammar = grammar{
	values: map[string]bool{
		"--context": true, "--config": true, "--access-token": true, "--api-url": true, "--output": true, "--format": true,
		"--help": false, "--verbose": false, "--trace": false, "--force": false, "--dangerous": false,
	},
	aliases:   map[string]string{"-c": "--config", "-t": "--access-token", "-u": "--api-url", "-o": "--output", "-h": "--help", "-v": "--verbose", "-f": "--force"},
	pathFirst: true,
}

// doctlTokens says whose a token is.
var doctlTokens = map[string]string{"dop_dev": "do:dev", "dop_prod": "do:prod", "dop_staging": "do:staging", "dop_personal": "do:personal"}

// doctlShim resolves the context as doctl does (commands/doit.go initConfig,
// command_config.go getContextAccessToken): --context (lower-cased) > DIGITALOCEAN_CONTEXT >
// config.yaml context > "default"; the default context's token is --access-token >
// DIGITALOCEAN_ACCESS_TOKEN > access-token, any other context's is its auth-contexts entry,
// whatever --access-token says.
func doctlShim(argv []string) entry {
	a, err := doctlGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	if a.has("--help") || len(p) == 0 || slices.Contains([]string{"version", "completion", "help"}, p[0]) || pathIs(p, "auth", "list") {
		return entry{Action: "none"}
	}
	file, ok := a.last("--config")
	if ok {
		file = abs(file)
	} else if file, ok = envOr("XDG_CONFIG_HOME", underHome(".config")); ok {
		file = filepath.Join(file, "doctl", "config.yaml")
	}
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	cfg, err := readDoc(file, "yaml")
	if os.IsNotExist(err) {
		cfg, err = map[string]any{}, nil
	}
	if err != nil {
		return errorf("%v", err)
	}
	ctx, byFlag := a.last("--context")
	ctx = strings.ToLower(ctx)
	if !byFlag {
		if ctx = os.Getenv("DIGITALOCEAN_CONTEXT"); ctx == "" {
			if ctx = str(cfg["context"]); ctx == "" {
				ctx = "default"
			}
		}
	}
	token := func(ctx string) string {
		if ctx != "default" {
			return str(obj(cfg["auth-contexts"])[ctx])
		}
		if t, ok := a.last("--access-token"); ok {
			return t
		}
		if t := os.Getenv("DIGITALOCEAN_ACCESS_TOKEN"); t != "" {
			return t
		}
		return str(cfg["access-token"])
	}
	owner := func(t string) string {
		if o, ok := doctlTokens[t]; ok {
			return o
		}
		return "token:" + t
	}
	switch {
	case pathIs(p, "auth", "switch"):
		if ctx != "default" && obj(cfg["auth-contexts"])[ctx] == nil {
			return errorf("context %q does not exist", ctx)
		}
		cfg["context"] = ctx
		if err := writeDoc(file, cfg); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: owner(token(ctx))}
	case pathIs(p, "auth", "init"):
		return errorf("cannot validate the token: the API is not reachable")
	case pathIs(p, "auth", "remove"):
		delete(obj(cfg["auth-contexts"]), ctx)
		if err := writeDoc(file, cfg); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case (pathIs(p, "kubernetes", "cluster", "kubeconfig", "save") || pathIs(p, "k8s", "cluster", "kubeconfig", "save")) && len(p) > 4:
		// The context is do-<region>-<name>, the region the cluster's, which only the API knows.
		keep, _ := a.last("--set-current-context")
		return kubeAdd("do-nyc1-"+p[4], keep == "false")
	}
	t := token(ctx)
	if t == "" {
		return errorf("unable to initialize DigitalOcean API client: access token is required")
	}
	destructive := slices.Contains(p, "delete") || slices.Contains(p, "rm") || pathIs(p, "compute", "droplet-action") && len(p) > 2 &&
		slices.Contains([]string{"power-off", "rebuild", "restore"}, p[2])
	return entry{Action: "act", Context: owner(t), Destructive: destructive}
}

// --- firebase -------------------------------------------------------------------------------

var firebaseGrammar = grammar{
	values: map[string]bool{
		"--project": true, "--config": true, "--account": true, "--token": true, "--only": true, "--except": true,
		"--message": true, "--alias": true, "--unalias": true,
		"--add": false, "--clear": false, "--force": false, "--help": false, "--non-interactive": false, "--json": false,
		"--recursive": false, "--all-collections": false, "--version": false,
	},
	aliases:   map[string]string{"-P": "--project", "-c": "--config", "-m": "--message", "-f": "--force", "-h": "--help", "-j": "--json", "-r": "--recursive", "-V": "--version"},
	pathFirst: true,
}

// firebaseProjects are the projects that exist.
var firebaseProjects = []string{"acme-dev", "acme-prod", "acme-staging"}

// firebaseShim resolves the project as firebase-tools 15 does (lib/command.js applyRC,
// configstoreProject): --project, else the configstore's activeProjects entry for the project
// root or its nearest ancestor; an alias in .firebaserc is turned into its project; else the
// only alias, else the "default" one.
func firebaseShim(argv []string) entry {
	a, err := firebaseGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	p := a.path
	if a.has("--help") || a.has("--version") || len(p) == 0 || slices.Contains([]string{"help", "login", "logout", "projects:list", "open"}, p[0]) {
		return entry{Action: "none"}
	}
	cwd, _ := os.Getwd()
	root := cwd
	if c, ok := a.last("--config"); ok {
		root = filepath.Dir(abs(c))
	} else if f, ok := upward(cwd, "firebase.json"); ok {
		root = filepath.Dir(f)
	}
	dir, ok := envOr("XDG_CONFIG_HOME", underHome(".config"))
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	storeFile := filepath.Join(dir, "configstore", "firebase-tools.json")
	store, _ := readDoc(storeFile, "json")
	if store == nil {
		store = map[string]any{}
	}
	rcFile := filepath.Join(root, ".firebaserc")
	rc, _ := readDoc(rcFile, "json")
	if rc == nil {
		rc = map[string]any{}
	}
	aliases := obj(rc["projects"])
	resolve := func(v string) string {
		if id := str(aliases[v]); id != "" {
			return id
		}
		return v
	}
	active := func() string {
		m := obj(store["activeProjects"])
		for d := root; ; d = filepath.Dir(d) {
			if v := str(m[d]); v != "" {
				return v
			}
			if filepath.Dir(d) == d {
				return ""
			}
		}
	}
	setActive := func(v string) error {
		m := obj(store["activeProjects"])
		if m == nil {
			m = map[string]any{}
			store["activeProjects"] = m
		}
		if v == "" {
			delete(m, root)
		} else {
			m[root] = v
		}
		if err := os.MkdirAll(filepath.Dir(storeFile), 0o755); err != nil {
			return err
		}
		return writeDoc(storeFile, store)
	}
	if p[0] == "use" {
		switch {
		case a.has("--clear"):
			if err := setActive(""); err != nil {
				return errorf("%v", err)
			}
			return entry{Action: "config"}
		case a.has("--unalias"):
			u, _ := a.last("--unalias")
			delete(aliases, u)
			if err := writeDoc(rcFile, rc); err != nil {
				return errorf("%v", err)
			}
			return entry{Action: "config"}
		case a.has("--add"):
			return errorf("firebase use --add prompts")
		case len(p) < 2:
			return entry{Action: "none"}
		}
		target := p[1]
		if !slices.Contains(firebaseProjects, resolve(target)) {
			return errorf("Invalid project selection, please verify project %s exists and you have access.", target)
		}
		if al, ok := a.last("--alias"); ok {
			if aliases == nil {
				aliases = map[string]any{}
				rc["projects"] = aliases
			}
			aliases[al] = target
			if err := writeDoc(rcFile, rc); err != nil {
				return errorf("%v", err)
			}
		}
		if err := setActive(target); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: resolve(target)}
	}
	project, ok := a.last("--project")
	if !ok {
		project = active()
	}
	switch {
	case project != "":
		project = resolve(project)
	case len(aliases) == 1:
		for _, v := range aliases {
			project = str(v)
		}
	default:
		project = str(aliases["default"])
	}
	if project == "" {
		return errorf("No currently active project.")
	}
	if !slices.Contains(firebaseProjects, project) {
		return errorf("Failed to get Firebase project %s", project)
	}
	destructive := slices.Contains([]string{"firestore:delete", "database:remove", "database:set", "functions:delete", "hosting:disable",
		"hosting:channel:delete", "auth:import"}, p[0]) || p[0] == "deploy" && a.has("--force")
	return entry{Action: "act", Context: project, Destructive: destructive}
}

// definitionsReach digests the state of the CLIs above without the pointer to the active
// context; see definitions.
func definitionsReach(home, repo, cli string) any {
	ini := func(file string, drop ...string) any {
		m, err := readDoc(file, "ini")
		if err != nil {
			return err.Error()
		}
		for _, d := range drop {
			delete(m, d)
		}
		return m
	}
	switch cli {
	case "aws":
		return []any{ini(filepath.Join(home, ".aws/config"), "default"), ini(filepath.Join(home, ".aws/credentials"), "default")}
	case "docker":
		files, _ := filepath.Glob(filepath.Join(home, ".docker/contexts/meta/*/meta.json"))
		var out []string
		for _, f := range files {
			b, _ := os.ReadFile(f)
			out = append(out, string(b))
		}
		return out
	case "pulumi":
		c, _ := os.ReadFile(filepath.Join(home, ".pulumi/credentials.json"))
		return string(c)
	case "databricks":
		return ini(filepath.Join(home, ".databrickscfg"), "__settings__")
	case "azd":
		files, _ := filepath.Glob(filepath.Join(repo, ".azure/*/.env"))
		out := map[string]string{}
		for _, f := range files {
			b, _ := os.ReadFile(f)
			out[f] = string(b)
		}
		return out
	case "doctl":
		m, _ := readDoc(filepath.Join(home, ".config/doctl/config.yaml"), "yaml")
		return []any{m["auth-contexts"], m["access-token"]}
	case "firebase":
		m, _ := readDoc(filepath.Join(repo, ".firebaserc"), "json")
		return m["projects"]
	}
	return nil
}
