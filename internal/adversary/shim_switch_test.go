//go:build unix

package adversary

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The shims of the CLIs that move kubectl's current-context as a side effect (issue 13): kind,
// minikube, kubectx and kubens. They keep no context of their own, so their world is kubectl's:
// each writes the kubeconfig as the real CLI does (from its source: kind's kind-<name>,
// minikube's profile, kubectx's use-context, kubens's set-context --current --namespace), and a
// cluster it creates has a server and a token no other context has, so that a line that lets one
// through shows as the shared kubectl state acting somewhere else.

func init() {
	shims["kind"] = kindShim
	shims["minikube"] = minikubeShim
	shims["kubectx"] = kubectxShim
	shims["kubens"] = kubensShim
	for _, cli := range []string{"kind", "minikube", "kubectx", "kubens"} {
		clis = append(clis, cli)
		shared[cli] = true
		allowed[cli] = allowed["kubectl"]
	}
}

// kubeAdd adds a cluster's context to the kubeconfig, named name, with a server and a token of
// its own, and makes it current unless keep; it returns where the context then acts.
func kubeAdd(name string, keep bool) entry {
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
		l := asList(doc[list])
		for j, x := range l {
			if str(obj(x)["name"]) == str(e["name"]) {
				l[j] = e
				doc[list] = l
				return
			}
		}
		doc[list] = append(l, e)
	}
	put("clusters", map[string]any{"name": name, "cluster": map[string]any{"server": "https://" + name + ".k8s.invalid"}})
	put("users", map[string]any{"name": name, "user": map[string]any{"token": "tok-" + name}})
	put("contexts", map[string]any{"name": name, "context": map[string]any{"cluster": name, "user": name}})
	if !keep {
		doc["current-context"] = name
	}
	if err := k.save(i); err != nil {
		return errorf("%v", err)
	}
	if keep {
		return entry{Action: "config"}
	}
	id, err := k.identity(args{})
	if err != nil {
		return errorf("%v", err)
	}
	return entry{Action: "switch", Context: id}
}

var kindGrammar = grammar{
	values: map[string]bool{
		"--name": true, "--config": true, "--image": true, "--kubeconfig": true, "--wait": true, "--verbosity": true,
		"--retain": false, "--quiet": false, "--help": false,
	},
	aliases:   map[string]string{"-n": "--name", "-v": "--verbosity", "-q": "--quiet", "-h": "--help"},
	pathFirst: true,
}

// kindShim creates, exports and deletes clusters: the context is kind-<name>, the name being
// --name, else KIND_CLUSTER_NAME, else the config file's name:, else kind
// (pkg/cluster/internal/kubeconfig, pkg/internal/cli/override.go).
func kindShim(argv []string) entry {
	a, err := kindGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	name, ok := a.last("--name")
	if !ok || name == "" {
		name = os.Getenv("KIND_CLUSTER_NAME")
	}
	if cfg, ok := a.last("--config"); ok && name == "" {
		if data, err := os.ReadFile(cfg); err == nil {
			for _, l := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(l), "name:"); ok {
					name = strings.TrimSpace(v)
				}
			}
		}
	}
	if name == "" {
		name = "kind"
	}
	switch {
	case a.has("--help"):
		return entry{Action: "none"}
	case pathIs(a.path, "create", "cluster"), pathIs(a.path, "export", "kubeconfig"):
		return kubeAdd("kind-"+name, false)
	case pathIs(a.path, "delete", "cluster"):
		files, ok := kubeFiles(args{})
		if !ok {
			return errorf("no HOME")
		}
		k, err := loadKube(files)
		if err != nil {
			return errorf("%v", err)
		}
		if cur, i := k.current(); cur == "kind-"+name {
			delete(k.docs[i], "current-context")
			if err := k.save(i); err != nil {
				return errorf("%v", err)
			}
		}
		return entry{Action: "config"}
	}
	return entry{Action: "none"}
}

var minikubeGrammar = grammar{
	values: map[string]bool{
		"--profile": true, "--driver": true, "--memory": true, "--cpus": true, "--kubernetes-version": true, "--v": true,
		"--keep-context": false, "--help": false, "--all": false, "--purge": false,
	},
	aliases:   map[string]string{"-p": "--profile", "-v": "--v", "-h": "--help"},
	pathFirst: true,
}

// minikubeConfig is minikube's config file (pkg/minikube/localpath: MINIKUBE_HOME/.minikube, or
// MINIKUBE_HOME itself when it ends in .minikube, else ~/.minikube).
func minikubeConfig() (string, bool) {
	dir := os.Getenv("MINIKUBE_HOME")
	switch {
	case dir == "":
		h, ok := home()
		if !ok {
			return "", false
		}
		dir = filepath.Join(h, ".minikube")
	case filepath.Base(dir) != ".minikube":
		dir = filepath.Join(dir, ".minikube")
	}
	return filepath.Join(dir, "config", "config.json"), true
}

// minikubeShim starts clusters and selects profiles; the context is the profile: -p/--profile,
// else MINIKUBE_PROFILE, else the config file's profile, else minikube.
func minikubeShim(argv []string) entry {
	a, err := minikubeGrammar.parse(argv)
	if err != nil {
		return errorf("%v", err)
	}
	cfgFile, ok := minikubeConfig()
	if !ok {
		return errorf("no HOME")
	}
	cfg, _ := readDoc(cfgFile, "json")
	profile, ok := a.last("--profile")
	if !ok || profile == "" {
		if profile = os.Getenv("MINIKUBE_PROFILE"); profile == "" {
			if profile = str(cfg["profile"]); profile == "" {
				profile = "minikube"
			}
		}
	}
	switch {
	case a.has("--help"):
		return entry{Action: "none"}
	case pathIs(a.path, "start"):
		return kubeAdd(profile, a.has("--keep-context"))
	case pathIs(a.path, "update-context"):
		return kubeAdd(profile, false)
	case pathIs(a.path, "profile", "list"), pathIs(a.path, "profile") && len(a.path) == 1:
		return entry{Action: "none"}
	case pathIs(a.path, "profile"):
		name := a.path[1]
		if name == "default" {
			name = "minikube"
		}
		if cfg == nil {
			cfg = map[string]any{}
		}
		cfg["profile"] = name
		if err := os.MkdirAll(filepath.Dir(cfgFile), 0o755); err != nil {
			return errorf("%v", err)
		}
		data, _ := json.Marshal(cfg)
		if err := os.WriteFile(cfgFile, data, 0o644); err != nil {
			return errorf("%v", err)
		}
		// It selects the profile's context, which `minikube start -p NAME` made.
		return kubectlShim([]string{"config", "set", "current-context", name})
	}
	return entry{Action: "none"}
}

// kubectxShim is kubectx NAME, which runs `kubectl config use-context NAME`; -c and no
// argument only print.
func kubectxShim(argv []string) entry {
	if len(argv) == 0 || strings.HasPrefix(argv[0], "-") {
		return entry{Action: "none"}
	}
	return kubectlShim([]string{"config", "use-context", argv[0]})
}

// kubensShim is kubens NAME, which runs `kubectl config set-context --current
// --namespace=NAME`; -c and no argument only print.
func kubensShim(argv []string) entry {
	if len(argv) == 0 || strings.HasPrefix(argv[0], "-") && argv[0] != "-" {
		return entry{Action: "none"}
	}
	if argv[0] == "-" {
		return errorf("no previous namespace")
	}
	e := kubectlShim([]string{"config", "set-context", "--current", "--namespace=" + argv[0]})
	if e.Action == "error" {
		return e
	}
	return entry{Action: "config", Note: fmt.Sprintf("namespace %s", argv[0])}
}
