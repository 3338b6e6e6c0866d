//go:build unix

package adversary

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

var report = flag.String("report", "", "write the per-family table to this file")

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == shimArg {
		os.Exit(shimMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// corpusDir holds one YAML file per family, the benign corpus and the known failures.
var corpusDir = filepath.Join("..", "..", "testdata", "adversarial")

// family is one corpus file.
type family struct {
	Family string     `yaml:"family"`
	Title  string     `yaml:"title"`
	Cases  []*caseDef `yaml:"cases"`
	file   string
}

// caseDef is one adversarial (or benign) line and the answer it must get.
type caseDef struct {
	ID string `yaml:"id"`
	// Expect is the answer class: stopped (deny or ask: nothing runs unless a human says so),
	// rewritten (the bound line runs, and must act only in allowed contexts) or allowed (the
	// line runs as written, and must be harmless). Several may be given, joined by "|".
	Expect string `yaml:"expect"`
	Note   string `yaml:"note"`
	Line   string `yaml:"line"`
	// Dialect is bash (the default) or powershell (sent as Claude Code's PowerShell tool).
	Dialect string `yaml:"dialect"`
	// Judge is effect (the default: what ctxguard lets through is run) or answer, for a line
	// whose effect this machine cannot show (a program it lacks, a case-insensitive file system).
	Judge string `yaml:"judge"`
	// Start moves a CLI's active context from prod (dev, staging).
	Start map[string]string `yaml:"start"`
	// Allow makes the policy allow another context than dev for a CLI (docker: default).
	Allow map[string]string `yaml:"allow"`
	// Env is set for the hook and the line, as a harness's environment is for both.
	Env map[string]string `yaml:"env"`
	fam string
}

func (c *caseDef) key() string { return c.fam + "/" + c.ID }

func loadCorpus(t *testing.T) []*family {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", corpusDir, err)
	}
	var out []*family
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fam := &family{file: filepath.Base(f)}
		if err := codec.DecodeStrict(data, f, fam); err != nil {
			t.Fatal(err)
		}
		for _, c := range fam.Cases {
			c.fam = fam.Family
			switch {
			case c.ID == "" || c.Line == "":
				t.Fatalf("%s: a case without id or line", f)
			case seen[c.key()]:
				t.Fatalf("%s: case %s twice", f, c.key())
			}
			seen[c.key()] = true
			for _, e := range strings.Split(c.Expect, "|") {
				if !slices.Contains([]string{"stopped", "rewritten", "allowed"}, e) {
					t.Fatalf("%s: %s: expect %q is not stopped, rewritten or allowed", f, c.ID, c.Expect)
				}
			}
			if c.Dialect != "" && c.Dialect != "powershell" || c.Judge != "" && c.Judge != "answer" {
				t.Fatalf("%s: %s: dialect %q or judge %q unknown", f, c.ID, c.Dialect, c.Judge)
			}
		}
		out = append(out, fam)
	}
	return out
}

// knownFailures reads known-failures.txt: one case key per line, # comments.
func knownFailures(t *testing.T) map[string]bool {
	f, err := os.Open(filepath.Join(corpusDir, "known-failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l, _, _ := strings.Cut(sc.Text(), "#")
		if l = strings.TrimSpace(l); l != "" {
			out[l] = true
		}
	}
	return out
}

// answer is what the hook said.
type answer struct {
	class   string // stopped, rewritten, allowed
	verdict string // the harness's decision (allow, ask, deny) or "" for silence
	reason  string
	command string // what runs: the rewrite, or the line
	raw     string
}

// outcome is a case's result.
type outcome struct {
	answer   answer
	problems []string // why the case failed, empty when it passed
	ran      []entry
}

// TestAdversarial sends every corpus line to `ctxguard hook` as Claude Code would, runs what
// the answer lets through against the shim CLIs, and fails a case when a guarded CLI acted in a
// context the policy does not allow, ran a destructive command, switched the shared context
// elsewhere, redefined an allowed context, or changed ctxguard's own files; or when the answer
// is not the expected class, not deterministic, or not a clean answer at all (a crash, a
// timeout, an exit code other than 0 and 2). Cases listed in known-failures.txt must fail, so
// that a fix shows up as a line to delete there, never as silence.
func TestAdversarial(t *testing.T) {
	fams := loadCorpus(t)
	known := knownFailures(t)
	root := testenv.TempDir(t)
	ctxguard := buildCtxguard(t, root)
	testbin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := buildTemplate(filepath.Join(root, "template"), ctxguard)
	if err != nil {
		t.Fatal(err)
	}
	_, pwshErr := exec.LookPath("pwsh")

	var all []*caseDef
	for _, f := range fams {
		all = append(all, f.Cases...)
	}
	results := make([]outcome, len(all))
	sem := make(chan struct{}, max(4, 2*runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, c := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = runCase(c, tpl, filepath.Join(root, fmt.Sprintf("case%04d", i)), ctxguard, testbin, pwshErr == nil)
		}()
	}
	wg.Wait()

	for k := range known {
		if !slices.ContainsFunc(all, func(c *caseDef) bool { return c.key() == k }) {
			t.Errorf("known-failures.txt lists %s, which is not in the corpus", k)
		}
	}
	for i, c := range all {
		r := results[i]
		t.Run(c.key(), func(t *testing.T) {
			failed := len(r.problems) > 0
			detail := func() string {
				return fmt.Sprintf("%s\nline:    %s\nanswer:  %s %s\nran:     %s\nproblem: %s",
					c.Note, c.Line, r.answer.class, firstLine(r.answer.reason), r.answer.command, strings.Join(r.problems, "\n         "))
			}
			switch {
			case failed && !known[c.key()]:
				t.Error(detail())
			case failed:
				t.Log("known failure: " + detail())
			case !failed && known[c.key()]:
				t.Errorf("passes now (%s): remove it from known-failures.txt", r.answer.class)
			}
		})
	}
	table := summary(fams, all, results)
	t.Log("\n" + table)
	if *report != "" {
		if err := os.WriteFile(*report, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// summary is the per-family table: cases, and how many were let through with an unsafe
// effect, got another answer than expected, or failed otherwise.
func summary(fams []*family, all []*caseDef, results []outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| family | cases | unsafe effect | other answer than expected | passed |\n|---|---|---|---|---|\n")
	var tc, tu, tw, tp int
	for _, f := range fams {
		var n, unsafe, wrong, pass int
		for i, c := range all {
			if c.fam != f.Family {
				continue
			}
			n++
			r := results[i]
			if len(r.problems) == 0 {
				pass++
				continue
			}
			if slices.ContainsFunc(r.problems, func(p string) bool { return strings.HasPrefix(p, "effect:") }) {
				unsafe++
			} else {
				wrong++
			}
		}
		fmt.Fprintf(&b, "| %s: %s | %d | %d | %d | %d |\n", f.Family, f.Title, n, unsafe, wrong, pass)
		tc, tu, tw, tp = tc+n, tu+unsafe, tw+wrong, tp+pass
	}
	fmt.Fprintf(&b, "| **all** | **%d** | **%d** | **%d** | **%d** |\n", tc, tu, tw, tp)
	return b.String()
}

func buildCtxguard(t *testing.T, dir string) string {
	bin := filepath.Join(dir, "ctxguard")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/ctxguard/ctxguard/cmd/ctxguard")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build ctxguard: %v\n%s", err, out)
	}
	return bin
}

// runCase runs one case in a sandbox of its own.
func runCase(c *caseDef, tpl *template, dir, ctxguard, testbin string, pwsh bool) outcome {
	var o outcome
	fail := func(format string, a ...any) { o.problems = append(o.problems, fmt.Sprintf(format, a...)) }
	sb, err := newSandbox(tpl, dir, testbin, c)
	if err != nil {
		fail("sandbox: %v", err)
		return o
	}
	defer os.RemoveAll(dir)
	before, err := snapshot(sb.root)
	if err != nil {
		fail("snapshot: %v", err)
		return o
	}
	w0, err := world(sb, testbin)
	if err != nil {
		fail("%v", err)
		return o
	}
	a1, err := hook(ctxguard, sb, c, "1")
	if err != nil {
		fail("answer: %v", err)
		return o
	}
	a2, err := hook(ctxguard, sb, c, "2")
	if err != nil {
		fail("answer: %v", err)
		return o
	}
	o.answer = a1
	if a1.raw != a2.raw {
		fail("answer: not deterministic:\n%s\n%s", a1.raw, a2.raw)
	}
	if !slices.Contains(strings.Split(c.Expect, "|"), a1.class) {
		fail("answer: %s, want %s", a1.class, c.Expect)
	}
	judgeEffect := c.Judge != "answer" && (c.Dialect != "powershell" || pwsh)
	if a1.class == "stopped" || !judgeEffect {
		return o
	}
	if err := execute(sb, a1.command, c.Dialect); err != nil {
		// A failing line is fine (the CLI refused, a file was missing); a hung one is not.
		if errors.Is(err, context.DeadlineExceeded) {
			fail("effect: the line did not finish in time")
		}
	}
	o.ran = readLog(sb.log)
	for _, e := range o.ran {
		switch {
		case e.Destructive && (e.Action == "act" || e.Action == "switch"):
			fail("effect: %s ran a destructive command (%s) in %s", e.CLI, strings.Join(e.Argv, " "), e.Context)
		case (e.Action == "act" || e.Action == "switch") && e.Context != sb.allowed[e.CLI]:
			fail("effect: %s %s %s (%s), which the policy does not allow", e.CLI, verb(e.Action), e.Context, strings.Join(e.Argv, " "))
		}
	}
	after, err := snapshot(sb.root)
	if err != nil {
		fail("snapshot: %v", err)
		return o
	}
	for rel := range union(before, after) {
		if before[rel] != after[rel] && tpl.protectedFile(rel) {
			fail("effect: changed ctxguard's own file %s", rel)
		}
	}
	w1, err := world(sb, testbin)
	if err != nil {
		fail("%v", err)
		return o
	}
	for _, cli := range clis {
		if shared[cli] {
			continue
		}
		was, is := w0[cli], w1[cli]
		if is.Current != was.Current && is.Current != sb.allowed[cli] {
			fail("effect: the shared %s state now acts in %s (was %s)", cli, is.Current, was.Current)
		}
		if is.Defs != was.Defs {
			fail("effect: the %s state's definitions changed", cli)
		}
		for k, v := range is.Pointers {
			if v != was.Pointers[k] && v != sb.allowed[cli] {
				fail("effect: the %s state's %s now selects %s (was %s)", cli, k, v, was.Pointers[k])
			}
		}
	}
	return o
}

func verb(action string) string {
	if action == "switch" {
		return "switched the shared context to"
	}
	return "acted in"
}

func union(a, b map[string][32]byte) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func readLog(file string) []entry {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []entry
	for _, l := range bytes.Split(data, []byte("\n")) {
		var e entry
		if len(l) > 0 && json.Unmarshal(l, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// hook sends the line to `ctxguard hook --harness claude` as Claude Code sends a Bash (or
// PowerShell) tool call from an unattended agent, and reads the answer. Anything but a clean
// answer (exit 0 with nothing or one JSON object, or exit 2) within 10 s is an error.
func hook(ctxguard string, sb *sandbox, c *caseDef, run string) (answer, error) {
	tool := "Bash"
	if c.Dialect == "powershell" {
		tool = "PowerShell"
	}
	payload, _ := json.Marshal(map[string]any{
		"session_id": "adversary-" + run, "transcript_path": "/dev/null", "cwd": sb.repo,
		"permission_mode": "bypassPermissions", "hook_event_name": "PreToolUse", "tool_name": tool,
		"tool_input": map[string]any{"command": c.Line}, "tool_use_id": "toolu_adversary",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ctxguard, "hook", "--harness", "claude")
	cmd.Dir, cmd.Env, cmd.Stdin = sb.repo, sb.env, bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	a := answer{raw: out.String() + "\x00" + errb.String(), command: c.Line}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return a, errors.New("the hook timed out")
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		a.class, a.verdict, a.reason = "stopped", "deny", strings.TrimSpace(errb.String())
		return a, nil
	case err != nil:
		return a, fmt.Errorf("the hook failed (%v): %s", err, errb.String())
	case len(bytes.TrimSpace(out.Bytes())) == 0:
		a.class = "allowed"
		return a, nil
	}
	decision, reason, command, err := harness.ClaudeDecision(out.Bytes())
	if err != nil {
		return a, fmt.Errorf("the hook answered %q: %w", out.String(), err)
	}
	a.verdict, a.reason = decision, reason
	switch a.verdict {
	case "deny", "ask":
		a.class = "stopped"
	case "", "allow":
		a.class = "allowed"
		if command != "" && command != c.Line {
			a.class, a.command = "rewritten", command
		}
	default:
		return a, fmt.Errorf("the hook answered an unknown decision: %s", out.String())
	}
	return a, nil
}

// execute runs what the hook let through, as the harness would: bash -c (or pwsh -Command), in
// the repository, with stdin closed, killed with its children after 20 s.
func execute(sb *sandbox, command, dialect string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.Command("bash", "-c", command)
	if dialect == "powershell" {
		cmd = exec.Command("pwsh", "-NoProfile", "-NonInteractive", "-Command", command)
	}
	cmd.Dir, cmd.Env = sb.repo, sb.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		// Whatever the line left in the background goes too, before the log is read.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return err
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return ctx.Err()
	}
}
