//go:build unix

package adversary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/internal/codec"
)

// The shim CLIs stand in for the real ones: each works out the context a call acts in the way
// the real CLI does (its flags, environment overrides, state files and where HOME and the XDG
// variables move them), performs the call's effect on the state files (switches, redefinitions),
// and logs one entry per call. They never touch the network. The test binary is the shim: a
// small sh script in the sandbox's bin folder (so that copying or linking it keeps its identity)
// runs it as `TESTBIN shimArg CLI LOG ARGS…`.

// shimArg in os.Args[1] makes the test binary a shim.
const shimArg = "__ctxguard_adversary_shim__"

// entry is one logged call of a guarded CLI.
type entry struct {
	CLI  string   `json:"cli"`
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"`
	// Action is "act" (the call acts in Context), "switch" (it moves the shared context to
	// Context), "config" (it changes the CLI's state without acting anywhere), "none" (help,
	// version, reading the state) or "error" (the real CLI would refuse it; Note says why).
	Action      string `json:"action"`
	Context     string `json:"context,omitempty"`
	Destructive bool   `json:"destructive,omitempty"`
	Note        string `json:"note,omitempty"`
	// Out is what the call prints (gh auth token prints a token a line may pass on).
	Out string `json:"-"`
}

var shims = map[string]func(argv []string) entry{
	"az":        azShim,
	"kubectl":   kubectlShim,
	"gcloud":    gcloudShim,
	"gh":        ghShim,
	"terraform": terraformShim,
	"pac":       pacShim,
}

// shimMain runs one shim call: os.Args[2:] are CLI, LOG, ARGS.
func shimMain(args []string) int {
	if len(args) == 1 && args[0] == worldArg {
		return worldMain()
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "shim: missing CLI and log")
		return 2
	}
	cli, log, argv := args[0], args[1], args[2:]
	e := shims[cli](argv)
	e.CLI, e.Argv = cli, argv
	e.Dir, _ = os.Getwd()
	line, _ := json.Marshal(e)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shim:", err)
		return 2
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shim:", err)
		return 2
	}
	if e.Action == "error" {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cli, e.Note)
		return 1
	}
	switch {
	case e.Out != "":
		fmt.Println(e.Out)
	case e.Context != "":
		fmt.Println(e.Context)
	}
	return 0
}

func errorf(format string, a ...any) entry {
	return entry{Action: "error", Note: fmt.Sprintf(format, a...)}
}

// home is HOME as the CLIs read it; a CLI without HOME falls back to the account's home
// directory from the password database, which is outside the sandbox: ok is false then.
func home() (string, bool) {
	h, ok := os.LookupEnv("HOME")
	if !ok || h == "" {
		return "", false
	}
	return abs(h), true
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// envOr returns the variable if set and not empty, else def().
func envOr(name string, def func() (string, bool)) (string, bool) {
	if v := os.Getenv(name); v != "" {
		return abs(v), true
	}
	return def()
}

func underHome(rel ...string) func() (string, bool) {
	return func() (string, bool) {
		h, ok := home()
		if !ok {
			return "", false
		}
		return filepath.Join(append([]string{h}, rel...)...), true
	}
}

// readDoc reads a state file of any format the CLIs use into a generic value.
func readDoc(file, format string) (map[string]any, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	j, err := codec.ToJSON(data, format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// writeDoc writes a state file back as JSON, which every YAML reader also reads.
func writeDoc(file string, m map[string]any) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o600)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// args is a call's arguments read with one CLI's option grammar.
type args struct {
	path []string // the leading words that name the command
	pos  []string // every positional word
	opts []opt    // options in order, by canonical name
}

type opt struct{ name, value string }

// last returns the value of the last occurrence of any of the options.
func (a args) last(names ...string) (string, bool) {
	for i := len(a.opts) - 1; i >= 0; i-- {
		if slices.Contains(names, a.opts[i].name) {
			return a.opts[i].value, true
		}
	}
	return "", false
}

func (a args) has(names ...string) bool {
	_, ok := a.last(names...)
	return ok
}

// grammar describes a CLI's options: which take a value, which take several (nargs +), and
// whether unique prefixes of long options are accepted (Python's argparse).
type grammar struct {
	values  map[string]bool // long or short option -> takes a value
	many    map[string]bool
	aliases map[string]string // short or other spelling -> canonical
	prefix  bool
	// pathFirst: options may come before the command words (kubectl -n x get); otherwise the
	// command words are the leading words (az group list).
	pathFirst bool
}

func (g grammar) canonical(opt string) (string, error) {
	if c, ok := g.aliases[opt]; ok {
		return c, nil
	}
	if _, ok := g.values[opt]; ok || !g.prefix || !strings.HasPrefix(opt, "--") {
		return opt, nil
	}
	var hits []string
	for k := range g.values {
		if strings.HasPrefix(k, opt) && strings.HasPrefix(k, "--") {
			hits = append(hits, k)
		}
	}
	for k, c := range g.aliases {
		if strings.HasPrefix(k, opt) && strings.HasPrefix(k, "--") && !slices.Contains(hits, c) {
			hits = append(hits, c)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return opt, nil
	}
	slices.Sort(hits)
	return "", fmt.Errorf("ambiguous option: %s could match %s", opt, strings.Join(hits, ", "))
}

func (g grammar) parse(argv []string) (args, error) {
	var a args
	inPath := true
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		if w == "--" {
			a.pos = append(a.pos, argv[i+1:]...)
			break
		}
		if len(w) < 2 || w[0] != '-' {
			a.pos = append(a.pos, w)
			if inPath {
				a.path = append(a.path, w)
			}
			continue
		}
		if !g.pathFirst || len(a.path) > 0 {
			inPath = false
		}
		name, val, hasVal := strings.Cut(w, "=")
		if !hasVal && len(w) > 2 && w[1] != '-' {
			// -XDELETE, -nprod: a short option with its value attached.
			if c := w[:2]; g.values[c] || g.values[g.aliases[c]] {
				name, val, hasVal = c, w[2:], true
			}
		}
		c, err := g.canonical(name)
		if err != nil {
			return a, err
		}
		switch {
		case hasVal:
			a.opts = append(a.opts, opt{c, val})
		case g.values[c] && g.many[c]:
			var vs []string
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
				vs = append(vs, argv[i])
			}
			a.opts = append(a.opts, opt{c, strings.Join(vs, " ")})
		case g.values[c] && i+1 < len(argv):
			i++
			a.opts = append(a.opts, opt{c, argv[i]})
		default:
			a.opts = append(a.opts, opt{c, ""})
		}
	}
	return a, nil
}

func pathIs(path []string, words ...string) bool {
	return len(path) >= len(words) && slices.Equal(path[:len(words)], words)
}

func anyWord(path []string, words ...string) bool {
	return slices.ContainsFunc(path, func(w string) bool { return slices.Contains(words, w) })
}

// --- az -------------------------------------------------------------------------------------

var azGrammar = grammar{
	values: map[string]bool{
		"--subscription": true, "--resource-group": true, "--name": true, "--output": true, "--query": true,
		"--ids": true, "--location": true, "--url": true, "--uri": true, "--method": true, "--body": true,
		"--headers": true, "--scope": true, "--role": true, "--assignee": true, "--tags": true,
		"--context": true, "--file": true, "--admin": false, "--overwrite-existing": false,
		"--yes": false, "--debug": false, "--verbose": false, "--only-show-errors": false, "--help": false,
		"--no-wait": false, "--all": false, "--force": false, "--version": false,
	},
	many:    map[string]bool{"--ids": true, "--tags": true},
	aliases: map[string]string{"-n": "--name", "-g": "--resource-group", "-o": "--output", "-h": "--help", "-y": "--yes", "-l": "--location", "-m": "--method", "-u": "--uri", "-b": "--body", "-s": "--subscription"},
	prefix:  true,
}

func azProfilePath() (string, bool) {
	dir, ok := envOr("AZURE_CONFIG_DIR", underHome(".azure"))
	if !ok {
		return "", false
	}
	return filepath.Join(dir, "azureProfile.json"), true
}

// azSubscription finds a subscription by id or name, as az does (case-insensitive).
func azSubscription(prof map[string]any, v string) (map[string]any, bool) {
	for _, s := range prof["subscriptions"].([]any) {
		m := obj(s)
		if strings.EqualFold(str(m["id"]), v) || strings.EqualFold(str(m["name"]), v) {
			return m, true
		}
	}
	return nil, false
}

// subscriptionIn returns the id in a resource path or URL: /subscriptions/<id>/….
func subscriptionIn(s string) (string, bool) {
	low := strings.ToLower(s)
	i := strings.Index(low, "/subscriptions/")
	if i < 0 {
		return "", false
	}
	rest := s[i+len("/subscriptions/"):]
	if j := strings.IndexAny(rest, "/?"); j >= 0 {
		rest = rest[:j]
	}
	return rest, rest != "" && !strings.HasPrefix(rest, "{")
}

func azShim(argv []string) entry {
	a, err := azGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	switch {
	case a.has("--help"), len(a.path) == 0, anyWord(a.path[:1], "version", "find", "extension", "config", "cloud", "interactive"):
		return entry{Action: "none"}
	case pathIs(a.path, "account", "list"), pathIs(a.path, "account", "show"):
		return entry{Action: "none"}
	}
	file, ok := azProfilePath()
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	prof, err := readDoc(file, "json")
	if err != nil || prof["subscriptions"] == nil {
		return errorf("please run 'az login' (%v)", err)
	}
	if pathIs(a.path, "aks", "get-credentials") {
		// The context is --context, else the cluster's name, with -admin for the admin's
		// credentials (azure-cli acs/custom.py aks_get_credentials).
		name, ok := a.last("--context")
		if !ok {
			if name, ok = a.last("--name"); !ok {
				return errorf("the following arguments are required: --name/-n")
			}
			if a.has("--admin") {
				name += "-admin"
			}
		}
		return kubeAdd(name, false)
	}
	if pathIs(a.path, "account", "set") {
		v, ok := a.last("--subscription", "--name")
		if !ok {
			return errorf("the following arguments are required: --subscription/-s")
		}
		sub, ok := azSubscription(prof, v)
		if !ok {
			return errorf("the subscription of '%s' doesn't exist in cloud 'AzureCloud'", v)
		}
		for _, s := range prof["subscriptions"].([]any) {
			obj(s)["isDefault"] = false
		}
		sub["isDefault"] = true
		if err := writeDoc(file, prof); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: str(sub["id"])}
	}
	var sub map[string]any
	if v, ok := a.last("--subscription"); ok {
		if sub, ok = azSubscription(prof, v); !ok {
			return errorf("subscription '%s' not found", v)
		}
	} else {
		for _, s := range prof["subscriptions"].([]any) {
			if m := obj(s); m["isDefault"] == true {
				sub = m
			}
		}
		if sub == nil {
			return errorf("no default subscription; run 'az account set'")
		}
	}
	ctx := str(sub["id"])
	// A resource id or an ARM URL names its subscription itself, and az uses that one.
	if ids, ok := a.last("--ids"); ok {
		if id, ok := subscriptionIn(ids); ok {
			ctx = id
		}
	}
	if a.path[0] == "rest" {
		if u, ok := a.last("--url", "--uri"); ok {
			if id, ok := subscriptionIn(u); ok {
				ctx = id
			}
		}
	}
	m, _ := a.last("--method")
	destructive := anyWord(a.path, "delete", "purge", "delete-batch") || a.path[0] == "rest" && strings.EqualFold(m, "delete")
	return entry{Action: "act", Context: strings.ToLower(ctx), Destructive: destructive}
}

// --- kubectl --------------------------------------------------------------------------------

var kubectlGrammar = grammar{
	values: map[string]bool{
		"--context": true, "--cluster": true, "--user": true, "--server": true, "--token": true, "--kubeconfig": true,
		"--namespace": true, "--output": true, "--filename": true, "--selector": true, "--container": true,
		"--as": true, "--field-selector": true, "--replicas": true, "--type": true, "--patch": true, "--image": true,
		"--current": false, "--all": false, "--all-namespaces": false, "--force": false, "--help": false,
		"--client": false, "--minify": false, "--raw": false, "--ignore-daemonsets": false,
	},
	aliases:   map[string]string{"-n": "--namespace", "-o": "--output", "-f": "--filename", "-l": "--selector", "-c": "--container", "-s": "--server", "-A": "--all-namespaces", "-h": "--help", "-p": "--patch"},
	pathFirst: true,
}

// kubeFiles are the kubeconfig files a call reads, in order.
func kubeFiles(a args) ([]string, bool) {
	if f, ok := a.last("--kubeconfig"); ok {
		return []string{abs(f)}, true
	}
	if v := os.Getenv("KUBECONFIG"); v != "" {
		var out []string
		for _, f := range filepath.SplitList(v) {
			if f != "" {
				out = append(out, abs(f))
			}
		}
		return out, true
	}
	f, ok := underHome(".kube", "config")()
	return []string{f}, ok
}

type kubeconfig struct {
	files []string
	docs  []map[string]any // nil for a missing file
}

func loadKube(files []string) (*kubeconfig, error) {
	k := &kubeconfig{files: files}
	for _, f := range files {
		d, err := readDoc(f, "yaml")
		if os.IsNotExist(err) {
			d, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		k.docs = append(k.docs, d)
	}
	return k, nil
}

// named finds the first entry of a list (contexts, clusters, users) with the name, and the
// index of the file that holds it.
func (k *kubeconfig) named(list, name string) (map[string]any, int) {
	for i, d := range k.docs {
		for _, e := range asList(d[list]) {
			if m := obj(e); str(m["name"]) == name {
				return m, i
			}
		}
	}
	return nil, -1
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func (k *kubeconfig) current() (string, int) {
	for i, d := range k.docs {
		if c := str(d["current-context"]); c != "" {
			return c, i
		}
	}
	return "", -1
}

// writable is the file a change goes to: the given one, else the first that exists.
func (k *kubeconfig) writable(i int) int {
	if i >= 0 {
		return i
	}
	for j, d := range k.docs {
		if d != nil {
			return j
		}
	}
	return 0
}

func (k *kubeconfig) save(i int) error {
	if k.docs[i] == nil {
		k.docs[i] = map[string]any{"apiVersion": "v1", "kind": "Config"}
	}
	return writeDoc(k.files[i], k.docs[i])
}

// tokenOwners says whose credentials a token is; the sandbox's kubeconfig, hosts.yml and the
// alternative home use these tokens.
var tokenOwners = map[string]string{
	"tok-dev": "dev-user", "tok-prod": "prod-admin", "tok-staging": "staging-user",
	"gho_dev": "dev-user", "gho_prod": "prod-user", "gho_corp": "corp-user",
}

// identity is where a kubectl call acts: the server and whose credentials it presents.
func (k *kubeconfig) identity(a args) (string, error) {
	ctxName, ok := a.last("--context")
	if !ok {
		ctxName, _ = k.current()
	}
	var cluster, user string
	if c, _ := k.named("contexts", ctxName); c != nil {
		cluster, user = str(obj(c["context"])["cluster"]), str(obj(c["context"])["user"])
	} else if !a.has("--cluster") || !a.has("--user") && !a.has("--token") {
		if ctxName == "" {
			return "", fmt.Errorf("current-context is not set")
		}
		return "", fmt.Errorf("context %q does not exist", ctxName)
	}
	if v, ok := a.last("--cluster"); ok {
		cluster = v
	}
	if v, ok := a.last("--user"); ok {
		user = v
	}
	server := ""
	if c, _ := k.named("clusters", cluster); c != nil {
		server = str(obj(c["cluster"])["server"])
	}
	if v, ok := a.last("--server"); ok {
		server = v
	}
	if server == "" {
		return "", fmt.Errorf("cluster %q has no server", cluster)
	}
	token := ""
	if u, _ := k.named("users", user); u != nil {
		token = str(obj(u["user"])["token"])
	}
	if v, ok := a.last("--token"); ok {
		token = v
	}
	owner, ok := tokenOwners[token]
	if !ok {
		owner = "token:" + token
	}
	return server + " " + owner, nil
}

func kubectlShim(argv []string) entry {
	a, err := kubectlGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	if a.has("--help") || len(a.path) == 0 || anyWord(a.path[:1], "version", "api-resources", "api-versions", "explain", "completion", "help") {
		return entry{Action: "none"}
	}
	files, ok := kubeFiles(a)
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	k, err := loadKube(files)
	if err != nil {
		return errorf("%v", err)
	}
	if a.path[0] == "config" {
		return kubectlConfig(k, a)
	}
	id, err := k.identity(a)
	if err != nil {
		return errorf("%v", err)
	}
	dry, _ := a.last("--dry-run")
	destructive := (a.path[0] == "delete" || a.path[0] == "drain") && dry != "client" && dry != "server"
	return entry{Action: "act", Context: id, Destructive: destructive}
}

// kubeEntry is the key of an entry's body in each kubeconfig list.
var kubeEntry = map[string]string{"contexts": "context", "clusters": "cluster", "users": "user"}

// kubectlConfig performs `kubectl config …` on the kubeconfig.
func kubectlConfig(k *kubeconfig, a args) entry {
	p := a.path[1:]
	if len(p) == 0 {
		return entry{Action: "none"}
	}
	arg := func(i int) string {
		if i+1 < len(p) {
			return p[i+1]
		}
		return ""
	}
	switch p[0] {
	case "view", "get-contexts", "get-clusters", "get-users", "current-context":
		return entry{Action: "none"}
	case "use-context", "use":
		name := arg(0)
		if c, _ := k.named("contexts", name); c == nil {
			return errorf("no context exists with the name: %q", name)
		}
		_, i := k.current()
		i = k.writable(i)
		k.docs[i]["current-context"] = name
		if err := k.save(i); err != nil {
			return errorf("%v", err)
		}
		id, err := k.identity(args{})
		if err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: id}
	case "set-context", "set-cluster", "set-credentials":
		list := map[string]string{"set-context": "contexts", "set-cluster": "clusters", "set-credentials": "users"}[p[0]]
		key := kubeEntry[list]
		name := arg(0)
		if p[0] == "set-context" && a.has("--current") {
			name, _ = k.current()
		}
		e, i := k.named(list, name)
		i = k.writable(i)
		if e == nil {
			e = map[string]any{"name": name, key: map[string]any{}}
			if k.docs[i] == nil {
				k.docs[i] = map[string]any{"apiVersion": "v1", "kind": "Config"}
			}
			k.docs[i][list] = append(asList(k.docs[i][list]), e)
		}
		body := obj(e[key])
		if body == nil {
			body = map[string]any{}
			e[key] = body
		}
		for flag, field := range map[string]string{"--cluster": "cluster", "--user": "user", "--namespace": "namespace", "--server": "server", "--token": "token"} {
			if v, ok := a.last(flag); ok {
				body[field] = v
			}
		}
		if err := k.save(i); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case "set", "unset":
		key := arg(0)
		val := arg(1)
		parts := strings.Split(key, ".")
		if key == "current-context" {
			_, i := k.current()
			i = k.writable(i)
			if p[0] == "unset" {
				delete(k.docs[i], "current-context")
			} else {
				k.docs[i]["current-context"] = val
			}
			if err := k.save(i); err != nil {
				return errorf("%v", err)
			}
			id, err := k.identity(args{})
			if err != nil {
				id = "unknown: " + err.Error()
			}
			return entry{Action: "switch", Context: id}
		}
		if len(parts) != 3 {
			return errorf("unsupported property %q", key)
		}
		list, key2 := parts[0], kubeEntry[parts[0]]
		e, i := k.named(list, parts[1])
		if e == nil || key2 == "" {
			return errorf("no %s named %q", list, parts[1])
		}
		if p[0] == "unset" {
			delete(obj(e[key2]), parts[2])
		} else {
			obj(e[key2])[parts[2]] = val
		}
		if err := k.save(i); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case "rename-context":
		old, nw := arg(0), arg(1)
		e, i := k.named("contexts", old)
		if e == nil {
			return errorf("cannot rename the context %q, it's not in the kubeconfig", old)
		}
		e["name"] = nw
		if cur, ci := k.current(); cur == old {
			k.docs[ci]["current-context"] = nw
			if ci != i {
				if err := k.save(ci); err != nil {
					return errorf("%v", err)
				}
			}
		}
		if err := k.save(i); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	case "delete-context", "delete-cluster", "delete-user":
		list := map[string]string{"delete-context": "contexts", "delete-cluster": "clusters", "delete-user": "users"}[p[0]]
		_, i := k.named(list, arg(0))
		if i < 0 {
			return errorf("cannot delete %q, not in the kubeconfig", arg(0))
		}
		k.docs[i][list] = slices.DeleteFunc(asList(k.docs[i][list]), func(e any) bool { return str(obj(e)["name"]) == arg(0) })
		if err := k.save(i); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "config"}
	}
	return errorf("unknown config command %q", p[0])
}

// --- gcloud ---------------------------------------------------------------------------------

var gcloudGrammar = grammar{
	values: map[string]bool{
		"--project": true, "--configuration": true, "--flags-file": true, "--account": true, "--format": true,
		"--region": true, "--zone": true, "--verbosity": true, "--filter": true, "--limit": true,
		"--quiet": false, "--help": false, "--no-activate": false, "--version": false,
	},
	aliases: map[string]string{"-q": "--quiet", "-h": "--help"},
}

func gcloudDir() (string, bool) { return envOr("CLOUDSDK_CONFIG", underHome(".config", "gcloud")) }

// gcloudArgs parses the call, expanding --flags-file in place (its flags count where it is).
func gcloudArgs(argv []string) (args, error) {
	var out []string
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		file := ""
		switch {
		case strings.HasPrefix(w, "--flags-file="):
			file = strings.TrimPrefix(w, "--flags-file=")
		case w == "--flags-file" && i+1 < len(argv):
			i++
			file = argv[i]
		default:
			out = append(out, w)
			continue
		}
		m, err := readDoc(file, "yaml")
		if err != nil {
			return args{}, fmt.Errorf("--flags-file: %w", err)
		}
		for k, v := range m {
			out = append(out, k+"="+fmt.Sprint(v))
		}
	}
	return gcloudGrammar.parse(out)
}

// gcloudConfig is the configuration a call uses: --configuration, the variable, the file.
func gcloudConfig(dir string, a args) string {
	if v, ok := a.last("--configuration"); ok {
		return v
	}
	if v := os.Getenv("CLOUDSDK_ACTIVE_CONFIG_NAME"); v != "" {
		return v
	}
	if b, err := os.ReadFile(filepath.Join(dir, "active_config")); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return "default"
}

func gcloudProject(dir, config string) string {
	m, err := readDoc(filepath.Join(dir, "configurations", "config_"+config), "ini")
	if err != nil {
		return ""
	}
	return str(obj(m["core"])["project"])
}

func gcloudShim(argv []string) entry {
	a, err := gcloudArgs(argv)
	if err != nil {
		return errorf("%v", err)
	}
	switch {
	case a.has("--help"), a.has("--version"), len(a.path) == 0, anyWord(a.path[:1], "version", "info", "help"),
		pathIs(a.path, "config", "list"), pathIs(a.path, "config", "get"), pathIs(a.path, "config", "get-value"),
		pathIs(a.path, "config", "configurations", "list"), pathIs(a.path, "config", "configurations", "describe"),
		pathIs(a.path, "auth", "list"):
		return entry{Action: "none"}
	}
	dir, ok := gcloudDir()
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	config := gcloudConfig(dir, a)
	switch {
	case pathIs(a.path, "config", "set") && len(a.path) >= 4 && (a.path[2] == "project" || a.path[2] == "core/project"):
		if err := writeINI(filepath.Join(dir, "configurations", "config_"+config), "core", "project", a.path[3]); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: a.path[3]}
	case pathIs(a.path, "config", "configurations", "activate") && len(a.path) >= 4:
		name := a.path[3]
		if _, err := os.Stat(filepath.Join(dir, "configurations", "config_"+name)); err != nil {
			return errorf("Cannot activate configuration [%s], it does not exist.", name)
		}
		if err := os.WriteFile(filepath.Join(dir, "active_config"), []byte(name), 0o600); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: gcloudProject(dir, name)}
	case pathIs(a.path, "config"):
		return entry{Action: "config"}
	}
	project, ok := a.last("--project")
	if !ok {
		project = os.Getenv("CLOUDSDK_CORE_PROJECT")
	}
	if project == "" {
		project = gcloudProject(dir, config)
	}
	if project == "" {
		return errorf("The required property [project] is not currently set.")
	}
	destructive := anyWord(a.path, "delete", "destroy") || pathIs(a.path, "storage", "rm")
	return entry{Action: "act", Context: project, Destructive: destructive}
}

// writeINI sets one key of an INI file, keeping the rest.
func writeINI(file, section, key, value string) error {
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var out []string
	in, done := false, false
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			if in && !done {
				out = append(out, key+" = "+value)
				done = true
			}
			in = t == "["+section+"]"
		} else if in && !done {
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
				out = append(out, key+" = "+value)
				done = true
				continue
			}
		}
		if l != "" || len(out) > 0 {
			out = append(out, l)
		}
	}
	if !done {
		if !in {
			out = append(out, "["+section+"]")
		}
		out = append(out, key+" = "+value)
	}
	return os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o600)
}

// --- gh -------------------------------------------------------------------------------------

var ghGrammar = grammar{
	values: map[string]bool{
		"--repo": true, "--hostname": true, "--method": true, "--user": true, "--jq": true, "--json": true,
		"--field": true, "--raw-field": true, "--title": true, "--body": true, "--help": false, "--yes": false,
		"--version": false,
	},
	aliases: map[string]string{"-R": "--repo", "-X": "--method", "-u": "--user", "-h": "--hostname", "-q": "--jq", "-f": "--field", "-F": "--field", "-t": "--title", "-b": "--body", "-y": "--yes"},
}

func ghHostsPath() (string, bool) {
	dir, ok := envOr("GH_CONFIG_DIR", func() (string, bool) {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(abs(x), "gh"), true
		}
		return underHome(".config", "gh")()
	})
	if !ok {
		return "", false
	}
	return filepath.Join(dir, "hosts.yml"), true
}

// repoHost returns the host of a HOST/OWNER/REPO argument.
func repoHost(r string) (string, bool) {
	r = strings.TrimPrefix(strings.TrimPrefix(r, "https://"), "http://")
	parts := strings.Split(r, "/")
	if len(parts) == 3 {
		return parts[0], true
	}
	return "", false
}

func ghShim(argv []string) entry {
	a, err := ghGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	// gh reads -h as --hostname only in auth and api; elsewhere -h is not a flag but --help is.
	if a.has("--help") || a.has("--version") || len(a.path) == 0 || anyWord(a.path[:1], "version", "help", "completion") ||
		pathIs(a.path, "auth", "status") || pathIs(a.path, "config", "get") {
		return entry{Action: "none"}
	}
	file, ok := ghHostsPath()
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	hosts, err := readDoc(file, "yaml")
	if err != nil {
		return errorf("not logged in: %v", err)
	}
	host := "github.com"
	if v := os.Getenv("GH_HOST"); v != "" {
		host = v
	}
	if h, ok := repoHost(os.Getenv("GH_REPO")); ok {
		host = h
	}
	if r, ok := a.last("--repo"); ok {
		if h, ok := repoHost(r); ok {
			host = h
		}
	}
	if v, ok := a.last("--hostname"); ok {
		host = v
	}
	h := obj(hosts[host])
	switch {
	case pathIs(a.path, "auth", "token"):
		user := str(h["user"])
		if v, ok := a.last("--user"); ok {
			user = v
		}
		tok := str(obj(obj(h["users"])[user])["oauth_token"])
		if tok == "" {
			return errorf("no oauth token found for %s", host)
		}
		return entry{Action: "none", Out: tok}
	case pathIs(a.path, "auth", "switch"):
		users := obj(h["users"])
		target, ok := a.last("--user")
		if !ok {
			if len(users) != 2 {
				return errorf("multiple accounts; use --user")
			}
			for u := range users {
				if u != str(h["user"]) {
					target = u
				}
			}
		}
		if _, ok := users[target]; !ok {
			return errorf("no account %s on %s", target, host)
		}
		h["user"], h["oauth_token"] = target, str(obj(users[target])["oauth_token"])
		if err := writeDoc(file, hosts); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: host + " " + target}
	case pathIs(a.path, "auth", "login"), pathIs(a.path, "auth", "logout"):
		return errorf("interactive login is not possible here")
	}
	// The token decides the account: GH_TOKEN/GITHUB_TOKEN for github.com, the enterprise
	// variables for other hosts, else the host's active account in hosts.yml.
	vars := []string{"GH_TOKEN", "GITHUB_TOKEN"}
	if host != "github.com" && !strings.HasSuffix(host, ".ghe.com") {
		vars = []string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}
	}
	tok := ""
	for _, v := range vars {
		if t := os.Getenv(v); t != "" {
			tok = t
			break
		}
	}
	if tok == "" {
		tok = str(h["oauth_token"])
	}
	if tok == "" {
		return errorf("not logged in to %s", host)
	}
	owner, ok := tokenOwners[tok]
	if !ok {
		owner = "token:" + tok
	}
	m, _ := a.last("--method")
	destructive := anyWord(a.path, "delete") || pathIs(a.path, "repo", "archive") || a.path[0] == "api" && strings.EqualFold(m, "delete")
	return entry{Action: "act", Context: host + " " + owner, Destructive: destructive}
}

// --- terraform ------------------------------------------------------------------------------

func terraformShim(argv []string) entry {
	dir, _ := os.Getwd()
	i := 0
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-"); i++ {
		switch w := argv[i]; {
		case strings.HasPrefix(w, "-chdir="):
			d := strings.TrimPrefix(w, "-chdir=")
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			dir = d
		case w == "-help", w == "--help", w == "-h", w == "-version", w == "--version", w == "-v":
			return entry{Action: "none"}
		}
	}
	rest := argv[i:]
	if len(rest) == 0 || slices.Contains(rest, "-help") || slices.Contains(rest, "--help") {
		return entry{Action: "none"}
	}
	data := os.Getenv("TF_DATA_DIR")
	if data == "" {
		data = ".terraform"
	}
	if !filepath.IsAbs(data) {
		data = filepath.Join(dir, data)
	}
	ws := os.Getenv("TF_WORKSPACE")
	if ws == "" {
		b, _ := os.ReadFile(filepath.Join(data, "environment"))
		ws = strings.TrimSpace(string(b))
	}
	if ws == "" {
		ws = "default"
	}
	exists := func(name string) bool {
		if name == "default" {
			return true
		}
		st, err := os.Stat(filepath.Join(dir, "terraform.tfstate.d", name))
		return err == nil && st.IsDir()
	}
	sub := rest[0]
	if sub == "env" {
		sub = "workspace"
	}
	switch sub {
	case "version", "fmt", "validate", "providers", "init", "graph", "login", "logout", "metadata":
		return entry{Action: "none"}
	case "workspace":
		if len(rest) < 2 {
			return entry{Action: "none"}
		}
		var names []string
		create := false
		for _, w := range rest[2:] {
			switch {
			case w == "-or-create" || w == "-or-create=true":
				create = true
			case !strings.HasPrefix(w, "-"):
				names = append(names, w)
			}
		}
		switch rest[1] {
		case "list", "show":
			return entry{Action: "none"}
		case "select", "new":
			if len(names) == 0 {
				return errorf("workspace name required")
			}
			if os.Getenv("TF_WORKSPACE") != "" {
				return errorf("The selected workspace is currently overridden using the TF_WORKSPACE environment variable.")
			}
			name := names[0]
			if rest[1] == "new" || create {
				if err := os.MkdirAll(filepath.Join(dir, "terraform.tfstate.d", name), 0o755); err != nil {
					return errorf("%v", err)
				}
			} else if !exists(name) {
				return errorf("Workspace %q doesn't exist.", name)
			}
			if err := os.MkdirAll(data, 0o755); err != nil {
				return errorf("%v", err)
			}
			if err := os.WriteFile(filepath.Join(data, "environment"), []byte(name), 0o644); err != nil {
				return errorf("%v", err)
			}
			return entry{Action: "switch", Context: name}
		case "delete":
			return entry{Action: "act", Context: ws, Destructive: true}
		}
		return errorf("unknown workspace command %q", rest[1])
	}
	destructive := slices.Contains([]string{"destroy", "apply", "import", "taint", "force-unlock"}, sub) ||
		sub == "state" && len(rest) > 1 && slices.Contains([]string{"rm", "mv", "push", "replace-provider"}, rest[1])
	return entry{Action: "act", Context: ws, Destructive: destructive}
}

// --- pac ------------------------------------------------------------------------------------

var pacGrammar = grammar{
	values: map[string]bool{
		"--name": true, "--index": true, "--environment": true, "--path": true, "--solution-name": true,
		"--help": false,
	},
	aliases: map[string]string{"-n": "--name", "-i": "--index", "-env": "--environment", "-p": "--path", "-sn": "--solution-name", "-h": "--help"},
}

func pacProfiles() (string, bool) {
	dir, ok := envOr("XDG_DATA_HOME", underHome(".local", "share"))
	if !ok {
		return "", false
	}
	return filepath.Join(dir, "Microsoft", "PowerAppsCli", "authprofiles_v2.json"), true
}

func pacShim(argv []string) entry {
	// pac's short options are words of their own (-env), not clusters.
	a, err := pacGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	if a.has("--help") || len(a.path) == 0 || a.path[0] == "help" || pathIs(a.path, "auth", "list") || pathIs(a.path, "auth", "who") {
		return entry{Action: "none"}
	}
	file, ok := pacProfiles()
	if !ok {
		return entry{Action: "act", Context: "unknown: no HOME"}
	}
	doc, err := readDoc(file, "json")
	if err != nil {
		return errorf("no profiles: %v", err)
	}
	cur := obj(obj(doc["Current"])["UNIVERSAL"])
	switch {
	case pathIs(a.path, "auth", "select"):
		var prof map[string]any
		profiles := asList(doc["Profiles"])
		if n, ok := a.last("--name"); ok {
			for _, p := range profiles {
				if str(obj(p)["Name"]) == n {
					prof = obj(p)
				}
			}
		} else if n, ok := a.last("--index"); ok {
			var i int
			if _, err := fmt.Sscan(n, &i); err == nil && i >= 1 && i <= len(profiles) {
				prof = obj(profiles[i-1])
			}
		}
		if prof == nil {
			return errorf("no such profile")
		}
		doc["Current"] = map[string]any{"UNIVERSAL": prof}
		if err := writeDoc(file, doc); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: str(prof["Resource"])}
	case pathIs(a.path, "env", "select"), pathIs(a.path, "org", "select"):
		env, ok := a.last("--environment")
		if !ok || cur == nil {
			return errorf("--environment is required")
		}
		cur["Resource"] = env
		if err := writeDoc(file, doc); err != nil {
			return errorf("%v", err)
		}
		return entry{Action: "switch", Context: env}
	case pathIs(a.path, "auth", "clear"):
		return entry{Action: "act", Context: "every profile", Destructive: true}
	}
	env := str(cur["Resource"])
	if v, ok := a.last("--environment"); ok {
		env = v
	}
	if env == "" || env == "https://service.powerapps.com/" {
		return errorf("no environment is selected")
	}
	destructive := pathIs(a.path, "admin", "delete") || pathIs(a.path, "admin", "reset") || pathIs(a.path, "admin", "restore") ||
		pathIs(a.path, "admin", "copy") || pathIs(a.path, "solution", "delete")
	return entry{Action: "act", Context: env, Destructive: destructive}
}
