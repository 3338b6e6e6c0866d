//go:build unix

package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/llm"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

// The contexts of the test machine: az has two subscriptions and the active one (Prod) is not
// allowed, kubectl has two contexts and the current one (prod) is not allowed. An unbound call
// is therefore rewritten, bound to the allowed one.
const (
	devSub  = "11111111-1111-4111-8111-111111111111"
	prodSub = "22222222-2222-4222-8222-222222222222"
	policy  = `version: 1
contexts:
  az:
    allow: [` + devSub + `]
    default: ` + devSub + `
  kubectl:
    allow: [dev]
`
	azureProfile = `{"installationId": "x", "subscriptions": [` +
		`{"environmentName": "AzureCloud", "id": "` + devSub + `", "isDefault": false, "name": "Contoso-Dev", "state": "Enabled", "tenantId": "t", "user": {"name": "alice@contoso.example", "type": "user"}}, ` +
		`{"environmentName": "AzureCloud", "id": "` + prodSub + `", "isDefault": true, "name": "Contoso-Prod", "state": "Enabled", "tenantId": "t", "user": {"name": "alice@contoso.example", "type": "user"}}]}`
	kubeconfig = `{"apiVersion": "v1", "kind": "Config", "current-context": "prod",
"clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
"users": [{"name": "u", "user": {"token": "t"}}],
"contexts": [{"name": "dev", "context": {"cluster": "c", "user": "u"}}, {"name": "prod", "context": {"cluster": "c", "user": "u"}}]}
`
)

// runTimeout bounds one run of a client: a run takes a few seconds on an idle machine and, for
// opencode and Qwen Code, more than 90 s on a loaded 2-core one; a client that waits for
// something that never comes must fail the case, not hang the suite.
const runTimeout = 3 * time.Minute

func TestMain(m *testing.M) {
	// The test binary is also the az and kubectl of the throwaway machines (see shim).
	if name := filepath.Base(os.Args[0]); shims[name] != nil {
		os.Exit(shim(name, os.Args[1:]))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// client is one pinned client from .ci/clients.tsv.
type client struct {
	name, pkg, version string
	bin                string // the installed program
}

func (c client) String() string { return c.pkg + "@" + c.version }

// clientCache is where .ci/clients installs the clients.
func clientCache() string {
	if d := os.Getenv("CTXGUARD_CLIENTS"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "ctxguard", "clients")
}

// pinned reads the clients pinned in .ci/clients.tsv.
func pinned() ([]client, error) {
	data, err := os.ReadFile(filepath.Join("..", "..", ".ci", "clients.tsv"))
	if err != nil {
		return nil, err
	}
	var out []client
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		out = append(out, client{name: f[0], pkg: f[1], version: f[2]})
	}
	return out, nil
}

// dir is where .ci/clients installs the client.
func (c client) dir() string { return filepath.Join(clientCache(), c.String()) }

func (c client) installed() bool {
	_, err := os.Stat(filepath.Join(c.dir(), ".installed"))
	return err == nil
}

// need returns the pinned client called name, or skips the test (fails it under CI=true) when it
// is not installed. program is the client's command in the package's node_modules/.bin.
func need(t *testing.T, name, program string) client {
	t.Helper()
	clients, err := pinned()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(clients, func(c client) bool { return c.name == name })
	if i < 0 {
		t.Fatalf(".ci/clients.tsv pins no client %q", name)
	}
	c := clients[i]
	c.bin = filepath.Join(c.dir(), "node_modules", ".bin", program)
	if !c.installed() {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed in %s: .ci/run installs it with .ci/clients", c, c.dir())
		}
		t.Skipf("%s is not installed in %s: run .ci/clients to install it", c, c.dir())
	}
	return c
}

// built is the ctxguard binary of this module, built once for the whole suite, and a cache
// folder the clients share: Copilot CLI unpacks itself there on its first run (some 200 MB),
// which is not worth repeating for every throwaway home.
var built struct {
	once       sync.Once
	dir, bin   string
	cache, err string
}

func ctxguardBinary(t *testing.T) (bin, cache string) {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctxguard-client-")
		if err != nil {
			built.err = err.Error()
			return
		}
		built.dir, built.bin, built.cache = dir, filepath.Join(dir, "bin", "ctxguard"), filepath.Join(dir, "cache")
		cmd := exec.Command("go", "build", "-o", built.bin, "github.com/ctxguard/ctxguard/cmd/ctxguard")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Sprintf("build ctxguard: %v\n%s", err, out)
		}
	})
	if built.err != "" {
		t.Fatal(built.err)
	}
	return built.bin, built.cache
}

// machine is a throwaway home with the CLIs' state, a repository with the policy, and the
// shim CLIs on PATH.
type machine struct {
	root, home, work string
	env              []string
	ctxguard         string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	bin, cache := ctxguardBinary(t)
	r := testenv.TempDir(t)
	m := &machine{root: r, home: filepath.Join(r, "home"), work: filepath.Join(r, "work"), ctxguard: bin}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	shimDir := filepath.Join(r, "bin")
	for _, dir := range []string{shimDir, m.work, filepath.Join(m.home, ".azure"), filepath.Join(m.home, ".kube")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name := range shims {
		if err := os.Symlink(self, filepath.Join(shimDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(m.home, ".azure", "azureProfile.json"), azureProfile)
	write(t, filepath.Join(m.home, ".kube", "config"), kubeconfig)
	write(t, filepath.Join(m.work, ".ctxguard.yaml"), policy)
	path := []string{shimDir}
	for _, prog := range []string{"node", "git", "sh"} {
		if p, err := exec.LookPath(prog); err == nil && !slices.Contains(path, filepath.Dir(p)) {
			path = append(path, filepath.Dir(p))
		}
	}
	m.env = []string{
		"PATH=" + strings.Join(append(path, "/usr/bin", "/bin"), string(os.PathListSeparator)),
		"HOME=" + m.home,
		"USERPROFILE=" + m.home,
		"XDG_CONFIG_HOME=" + filepath.Join(m.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(m.home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(m.home, ".local", "share"),
		"XDG_CACHE_HOME=" + cache,
		"TMPDIR=" + r,
		"AZURE_CONFIG_DIR=" + filepath.Join(m.home, ".azure"),
		"KUBECONFIG=" + filepath.Join(m.home, ".kube", "config"),
		"CTXGUARD_MANAGED_POLICY=" + filepath.Join(r, "managed", "policy.yaml"),
		// The machine is shared and loaded while the suite runs clients in parallel; the hook's
		// budget is tested elsewhere.
		"CTXGUARD_BUDGET=2s",
		"CTXGUARD_SHIM_LOG=" + filepath.Join(r, "ran.jsonl"),
		"TERM=dumb",
		"NO_COLOR=1",
		"LANG=C.UTF-8",
	}
	m.run(t, "git", "init", "-q", ".")
	return m
}

func write(t *testing.T, file, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// run runs a program in the repository with the machine's environment.
func (m *machine) run(t *testing.T, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = m.work, m.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// install wires ctxguard into a harness with its own install command.
func (m *machine) install(t *testing.T, harness string) {
	t.Helper()
	m.run(t, m.ctxguard, "install", harness)
}

// doctorSays installs ctxguard for a harness and runs ctxguard doctor with the client's program
// first on PATH: its output must hold each of want (a problem it reports is for want to judge).
func doctorSays(t *testing.T, c client, harness string, want ...string) {
	t.Helper()
	m := newMachine(t)
	m.install(t, harness)
	cmd := exec.Command(m.ctxguard, "doctor")
	cmd.Dir = m.work
	for _, kv := range m.env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + filepath.Dir(c.bin) + string(os.PathListSeparator) + path
		}
		cmd.Env = append(cmd.Env, kv)
	}
	out, _ := cmd.CombinedOutput()
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("ctxguard doctor with %s on PATH does not say %q:\n%s", c, w, out)
		}
	}
}

// call is one command a shim CLI ran, and the context it acted in.
type call struct {
	CLI     string   `json:"cli"`
	Args    []string `json:"args"`
	Context string   `json:"context"`
}

func (c call) String() string { return c.line() + " [in " + c.Context + "]" }

// line is the call as a command line (its arguments hold no spaces).
func (c call) line() string { return c.CLI + " " + strings.Join(c.Args, " ") }

// ran returns what the shim CLIs ran, in order.
func (m *machine) ran(t *testing.T) []call {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(m.root, "ran.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []call
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var c call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("shim log: %v: %s", err, sc.Bytes())
		}
		out = append(out, c)
	}
	return out
}

// session is one headless run of a client against a scripted model.
type session struct {
	stdout, stderr string
	model          *llm.Server
	ran            []call
}

// start runs a client once, to its end or its timeout, with the arguments and environment that
// launch gives it for the scripted model at url. The client runs in a process group of its own,
// which is killed at the end, so that nothing it started (a shell, a monitor) outlives the case.
func (m *machine) start(t *testing.T, c client, launch func(url string) (args, env []string), script ...llm.Step) *session {
	t.Helper()
	srv, err := llm.Start(script...)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	args, env := launch(srv.URL)
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = m.work
	cmd.Env = append(slices.Clone(m.env), env...)
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	s := &session{stdout: stdout.String(), stderr: stderr.String(), model: srv, ran: m.ran(t)}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v\nstderr: %s\nstdout: %s", c, runTimeout, s.stderr, tail(s.stdout))
	}
	if err != nil {
		t.Fatalf("%s %s: %v\nstderr: %s\nstdout: %s", c, strings.Join(args, " "), err, s.stderr, tail(s.stdout))
	}
	return s
}

// result is what the client told the model about its n-th tool call.
func (s *session) result(t *testing.T, n int) llm.ToolResult {
	t.Helper()
	r, err := s.model.Result(n)
	if err != nil {
		t.Fatalf("%v\nstdout: %s", err, tail(s.stdout))
	}
	return r
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// bound is the az call of the cases, bound as ctxguard binds it.
var bound = call{CLI: "az", Args: []string{"group", "list", "--subscription", devSub}, Context: devSub}

// readMaybe reads a file that may not exist.
func readMaybe(file string) (string, error) {
	data, err := os.ReadFile(file)
	return string(data), err
}
