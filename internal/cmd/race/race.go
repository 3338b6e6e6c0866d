package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctxguard/ctxguard/internal/harness"
)

// tool is one CLI under test: how to switch it, how to ask it which context a command runs in,
// and the throwaway state it starts from.
type tool struct {
	name string
	// a and b are the contexts threads A and B switch to; want is what show prints in a.
	a, b, want string
	switchTo   func(ctx string) string
	show       string
	// setup writes the CLI's state and returns the variables that point the CLI at it.
	setup func(dir string) ([]string, error)
}

var tools = map[string]tool{
	"az": {
		name: "az", a: "Race-A", b: "Race-B", want: "Race-A",
		switchTo: func(s string) string { return "az account set -s " + s },
		show:     "az account show --query name -o tsv",
		setup: func(dir string) ([]string, error) {
			cfg := filepath.Join(dir, "azure")
			if err := os.MkdirAll(cfg, 0o700); err != nil {
				return nil, err
			}
			return []string{"AZURE_CONFIG_DIR=" + cfg, "AZURE_CORE_COLLECT_TELEMETRY=false", "AZURE_CORE_SURVEY_MESSAGE=false", "AZURE_CORE_NO_COLOR=true"},
				os.WriteFile(filepath.Join(cfg, "azureProfile.json"), []byte(azureProfile), 0o600)
		},
	},
	"kubectl": {
		name: "kubectl", a: "race-a", b: "race-b", want: "race-a",
		switchTo: func(s string) string { return "kubectl config use-context " + s },
		show:     "kubectl config view --minify -o jsonpath='{.contexts[0].name}'",
		setup: func(dir string) ([]string, error) {
			f := filepath.Join(dir, "kubeconfig")
			return []string{"KUBECONFIG=" + f}, os.WriteFile(f, []byte(kubeconfig), 0o600)
		},
	},
}

// azureProfile is what `az login` would leave with two subscriptions (made-up ids), B active.
const azureProfile = `{"installationId": "00000000-0000-4000-8000-000000000000", "subscriptions": [
{"environmentName": "AzureCloud", "id": "aaaaaaaa-0000-4000-8000-00000000000a", "isDefault": false, "name": "Race-A", "state": "Enabled", "tenantId": "t0000000-0000-4000-8000-000000000000", "user": {"name": "race@example.invalid", "type": "user"}},
{"environmentName": "AzureCloud", "id": "bbbbbbbb-0000-4000-8000-00000000000b", "isDefault": true, "name": "Race-B", "state": "Enabled", "tenantId": "t0000000-0000-4000-8000-000000000000", "user": {"name": "race@example.invalid", "type": "user"}}]}
`

// kubeconfig has two contexts on clusters that are never contacted.
const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:1"}
  name: cluster-a
- cluster: {server: "https://127.0.0.1:2"}
  name: cluster-b
users:
- name: race
  user: {token: fake}
contexts:
- context: {cluster: cluster-a, user: race}
  name: race-a
- context: {cluster: cluster-b, user: race}
  name: race-b
current-context: race-b
`

// policy allows both contexts: the race is between two allowed ones, which binding to the active
// context alone cannot tell apart.
const policy = `version: 1
contexts:
  az:
    allow: [Race-A, Race-B]
  kubectl:
    allow: [race-a, race-b]
`

// form is how thread A issues its switch and its command.
type form int

const (
	oneCall  form = iota // one tool call: switch && sleep && show
	twoCalls             // two tool calls of one session, with the pause between them
)

func (f form) String() string { return [...]string{"one call", "two calls"}[f] }

// config is one experiment.
type config struct {
	ctxguard string        // the ctxguard binary
	rounds   int           // A's rounds per run
	pause    time.Duration // A's pause between its switch and its command
	bPause   time.Duration // the longest pause B takes between its switches
	seed     uint64
}

// result counts A's rounds: wrong ran in another context than A selected; denied and asked are
// ctxguard's answers other than allow and rewrite; failed are rounds whose command failed.
type result struct {
	tool               string
	form               form
	guarded            bool
	wrong, total       int
	denied, asked      int
	failed             int
	elapsed            time.Duration
	firstWrong, reason string
	firstFailed        string
}

// run runs one CLI, form and mode in a fresh throwaway directory.
func run(cfg config, t tool, f form, guarded bool) (result, error) {
	res := result{tool: t.name, form: f, guarded: guarded}
	dir, err := os.MkdirTemp("", "ctxguard-race-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	env, repo, err := sandbox(dir, t)
	if err != nil {
		return res, err
	}
	tag := fmt.Sprintf("%s-%d-%t-%d", t.name, f, guarded, os.Getpid())
	a := &thread{cfg: cfg, env: env, repo: repo, session: "race-A-" + tag, guarded: guarded}
	b := &thread{cfg: cfg, env: env, repo: repo, session: "race-B-" + tag, guarded: guarded}

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(cfg.seed, 2))
		for ctx.Err() == nil {
			b.call(t.switchTo(t.b))
			sleep(ctx, time.Duration(rng.Int64N(int64(cfg.bPause)+1)))
		}
	}()
	start := time.Now()
	for range cfg.rounds {
		var out string
		var c callResult
		switch f {
		case oneCall:
			c = a.call(fmt.Sprintf("%s && sleep %.3f && %s", t.switchTo(t.a), cfg.pause.Seconds(), t.show))
			out = c.stdout
		case twoCalls:
			c = a.call(t.switchTo(t.a))
			if c.verdict != "deny" && c.err == nil {
				time.Sleep(cfg.pause)
				c = a.call(t.show)
				out = c.stdout
			}
		}
		res.total++
		switch {
		case c.verdict == "deny":
			res.denied++
			res.reason = c.reason
			continue
		case c.verdict == "ask":
			res.asked++
			res.reason = c.reason
		}
		if c.err != nil {
			res.failed++
			if res.firstFailed == "" {
				res.firstFailed = c.err.Error()
			}
			continue
		}
		if got := lastLine(out); got != t.want {
			res.wrong++
			if res.firstWrong == "" {
				res.firstWrong = fmt.Sprintf("%q printed %q", c.ran, got)
			}
		}
	}
	res.elapsed = time.Since(start)
	stop()
	wg.Wait()
	return res, nil
}

// sandbox writes the throwaway state: the CLI's, a repository with the policy, and a home,
// config and state folder for ctxguard. It returns the environment that points everything there.
func sandbox(dir string, t tool) ([]string, string, error) {
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	for _, d := range []string{home, repo} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, "", err
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".ctxguard.yaml"), []byte(policy), 0o600); err != nil {
		return nil, "", err
	}
	vars, err := t.setup(dir)
	if err != nil {
		return nil, "", err
	}
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"CTXGUARD_MANAGED_POLICY=" + filepath.Join(dir, "no-managed-policy.yaml"),
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if keep(name) {
			env = append(env, kv)
		}
	}
	return append(env, vars...), repo, nil
}

// keep says which of the caller's variables the CLIs get: what they need to run (PATH, the
// locale, a temporary folder), never one that points at the caller's own CLI state.
func keep(name string) bool {
	switch name {
	case "PATH", "LANG", "LC_ALL", "TMPDIR", "TERM", "USER", "LOGNAME", "SHELL":
		return true
	}
	return false
}

// thread is one agent session: its tool calls go through the hook (when guarded) and then bash.
type thread struct {
	cfg     config
	env     []string
	repo    string
	session string
	guarded bool
}

type callResult struct {
	ran             string // the command bash ran
	verdict, reason string // ctxguard's answer ("" unguarded or allow)
	stdout          string
	err             error
}

// call makes one tool call.
func (th *thread) call(command string) callResult {
	r := callResult{ran: command}
	if th.guarded {
		var err error
		r.verdict, r.reason, r.ran, err = th.hook(command)
		if err != nil {
			r.err = err
			return r
		}
		if r.verdict == "deny" {
			return r
		}
	}
	cmd := exec.Command("bash", "-c", r.ran)
	cmd.Dir, cmd.Env = th.repo, th.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.err = fmt.Errorf("%s: %w: %s", r.ran, err, strings.TrimSpace(errb.String()))
	}
	r.stdout = out.String()
	return r
}

// hook sends the command to `ctxguard hook` as Claude Code sends a Bash tool call, in the
// permission mode of an unattended agent, and returns the answer and the command to run.
func (th *thread) hook(command string) (verdict, reason, run string, err error) {
	payload, err := json.Marshal(map[string]any{
		"session_id": th.session, "transcript_path": "/dev/null", "cwd": th.repo,
		"permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input":  map[string]any{"command": command, "description": "race"},
		"tool_use_id": "toolu_race",
	})
	if err != nil {
		return "", "", "", err
	}
	cmd := exec.Command(th.cfg.ctxguard, "hook", "--harness", "claude")
	cmd.Dir, cmd.Env = th.repo, th.env
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", "", "", fmt.Errorf("ctxguard hook: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	if len(bytes.TrimSpace(out.Bytes())) == 0 {
		return "allow", "", command, nil
	}
	decision, reason, replaced, err := harness.ClaudeDecision(out.Bytes())
	if err != nil {
		return "", "", "", fmt.Errorf("ctxguard hook answered %q: %w", out.String(), err)
	}
	run = command
	if replaced != "" {
		run = replaced
	}
	return decision, reason, run, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// build compiles ctxguard into dir, from the module this program is part of.
func build(dir string) (string, error) {
	bin := filepath.Join(dir, "ctxguard")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/ctxguard/ctxguard/cmd/ctxguard")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build ctxguard: %w\n%s", err, out)
	}
	return bin, nil
}
