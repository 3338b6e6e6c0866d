package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// genpayload FILE claude|copilot KIND[=N] writes a payload too big or too odd to keep in a
// script: the generated lines are what the hook must answer in time without crashing.
//
//	size=N         a well-formed payload of N MiB (its command padded with a comment)
//	long=N         a command of N KiB: one long argument, then a destructive call
//	many=N         N chained az calls
//	dollar=N       az group delete nested N deep in $( … )
//	paren=N        … in N subshells ( … )
//	brace=N        … in N groups { …; }
//	arith=N        N nested (( … )) around an arithmetic expression
//	bashc=N        bash -c "$(bash -c "$( … )")" N deep
//	eval=N         eval "$(eval "$( … )")" N deep
//	badutf8        a command with bytes that are not UTF-8, sent raw
//	nul            a command with a NUL byte, sent raw (invalid JSON)
//	nulescaped     a command with a NUL byte, sent as \u0000
//	jsondeep=N     a destructive command, and beside it a field of N nested JSON arrays
func genpayload(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: genpayload FILE claude|copilot KIND[=N]")
	}
	kind, num, _ := strings.Cut(args[2], "=")
	n := 0
	if num != "" {
		var err error
		n, err = strconv.Atoi(num)
		ts.Check(err)
	}
	const target = "az group delete -n rg --yes"
	nest := func(open, close string) string {
		return strings.Repeat(open, n) + target + strings.Repeat(close, n)
	}
	var cmd string
	raw := ""
	switch kind {
	case "size":
		cmd = "az group list # " + strings.Repeat("a", n<<20)
	case "long":
		cmd = "echo " + strings.Repeat("x", n<<10) + " && " + target
	case "many":
		cmd = strings.Repeat("az group list && ", n) + target
	case "dollar":
		cmd = "echo " + nest("$(", ")")
	case "paren":
		cmd = nest("(", ")")
	case "brace":
		cmd = nest("{ ", "; }")
	case "arith":
		cmd = strings.Repeat("((", n) + "1" + strings.Repeat("))", n) + " && " + target
	case "bashc":
		cmd = nest(`bash -c "$(`, `)"`)
	case "eval":
		cmd = nest(`eval "$(`, `)"`)
	case "badutf8":
		raw = "az group \xff\xfedelete -n rg && a\xc0z vm delete"
	case "nul":
		raw = "az group list\x00; az group delete -n rg"
	case "nulescaped":
		cmd = "az group list\x00; az group delete -n rg"
	case "jsondeep":
		cmd = target
	default:
		ts.Fatalf("unknown payload kind %q", kind)
	}
	placeholder := "\x01CMD\x01"
	if raw == "" {
		placeholder = cmd
	}
	var p any
	switch args[1] {
	case "claude":
		p = map[string]any{"session_id": "s-gen", "transcript_path": "/tmp/t.jsonl", "cwd": ts.Getenv("WORK"),
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]any{"command": placeholder}, "tool_use_id": "toolu_1"}
	case "copilot":
		targs, err := json.Marshal(map[string]any{"command": placeholder})
		ts.Check(err)
		p = map[string]any{"sessionId": "s-gen", "timestamp": 1787400000000, "cwd": ts.Getenv("WORK"), "toolName": "bash", "toolArgs": string(targs)}
	default:
		ts.Fatalf("unknown harness %q", args[1])
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	ts.Check(enc.Encode(p))
	data := buf.Bytes()
	if raw != "" {
		// The encoder would replace the bad bytes; put them in after it, as a careless sender would.
		// Copilot's command sits in a JSON string inside a JSON string, escaped twice.
		n := len(data)
		data = bytes.Replace(data, []byte(`\u0001CMD\u0001`), []byte(raw), 1)
		data = bytes.Replace(data, []byte(`\\u0001CMD\\u0001`), []byte(raw), 1)
		if len(data) == n {
			ts.Fatalf("genpayload: no place for the raw command")
		}
	}
	if kind == "jsondeep" {
		deep := `{"deep":` + strings.Repeat("[", n) + strings.Repeat("]", n) + ","
		data = append([]byte(deep), data[1:]...)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// timed DURATION N cmd args… is `exits N cmd args…` that also fails when the command takes longer
// than DURATION, and logs how long it took (go test -v shows it). DURATION is a bound for
// catching hangs, not a benchmark: the hook's own budget is far below it.
func timed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: timed DURATION N command [args...]")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	if testenv.Wine() {
		// Wine starts a process, and moves a pipe's bytes, several times slower than Linux
		// (measured: a 100 MB payload answered in 2.3 s on a loaded machine). The bound is for
		// hangs, and the Linux run keeps it tight.
		limit *= 3
	}
	start := time.Now()
	exits(ts, false, args[1:])
	took := time.Since(start)
	ts.Logf("answered in %v", took.Round(time.Millisecond))
	if took > limit {
		ts.Fatalf("took %v, want at most %v", took, limit)
	}
}

// openstdin FILE cmd args… runs cmd with FILE on a stdin that is never closed, as a harness that
// forgets to close the pipe would send it, and checks that the hook still answers in time: exit 0
// with a deny, or exit 2 with a reason. A hook that waited for EOF would wait until the harness's
// own timeout, and the harness would then run the command.
func openstdin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: openstdin FILE command [args...]")
	}
	path, err := exec.LookPath(args[1])
	ts.Check(err)
	r, w, err := os.Pipe()
	ts.Check(err)
	defer w.Close()
	cmd := exec.Command(path, args[2:]...)
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "CTXGUARD_MANAGED_POLICY"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Dir = ts.Getenv("WORK")
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &stdout, &stderr
	start := time.Now()
	ts.Check(cmd.Start())
	r.Close()
	go w.Write([]byte(ts.ReadFile(args[0])))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("no answer after 10s with stdin left open")
	}
	ts.Logf("answered in %v with stdin left open: %s%s", time.Since(start).Round(time.Millisecond), stdout.String(), stderr.String())
	code := cmd.ProcessState.ExitCode()
	switch {
	case code == 0 && strings.Contains(stdout.String(), `"deny"`):
	case code == 2 && stderr.Len() > 0:
	default:
		ts.Fatalf("exit %d (%v), stdout %q, stderr %q: want a deny", code, err, stdout.String(), stderr.String())
	}
}

// TestHookStdinKeptOpen checks that a harness that sends its payload but keeps stdin open has
// the call blocked, exit 2 with the reason, once the hook has waited two seconds for the end of
// it: every harness lets the call through when the hook outlasts its own timeout instead.
func TestHookStdinKeptOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("waits two seconds for a stdin that is never closed")
	}
	m := newMachine(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	payload, _ := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": m.repo, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "echo ok"}, "tool_use_id": "t1",
	})
	if _, err := w.Write(payload); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(m.bin, "hook", "--harness", "claude")
	cmd.Stdin = r
	out, code, err := m.output(cmd)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code != 2 || !strings.Contains(out, "stdin was not closed within 2s") {
		t.Errorf("hook with stdin kept open: exit %d, want 2 with the reason:\n%s", code, out)
	}
}
