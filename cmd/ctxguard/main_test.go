package main

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the scripts' expected output with what the commands print")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ctxguard": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// stateVars are the variables that point CLIs at their state; every script starts with none of
// them, so the real user's state never leaks in.
var stateVars = []string{
	"KUBECONFIG", "AZURE_CONFIG_DIR", "CLOUDSDK_CONFIG", "CLOUDSDK_ACTIVE_CONFIG_NAME", "CLOUDSDK_CORE_PROJECT",
	"GH_CONFIG_DIR", "GH_HOST", "GH_TOKEN", "GITHUB_TOKEN", "TF_WORKSPACE", "TF_DATA_DIR", "DOCKER_CONFIG",
	"DOCKER_CONTEXT", "DOCKER_HOST", "AWS_PROFILE", "LOCALAPPDATA", "APPDATA",
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("CTXGUARD_MANAGED_POLICY", filepath.Join(env.WorkDir, "managed", "policy.yaml"))
			for _, v := range stateVars {
				env.Setenv(v, "")
			}
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   exits,
			"payload": payload,
		},
	})
}

// exits N cmd args… runs cmd and checks that it exits with exactly N (testscript's `! exec`
// only checks for non-zero, and the hook's contract is 0 or 2, never 1).
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// payload FILE HARNESS COMMAND [key=value…] writes a hook payload for COMMAND as HARNESS sends
// it (claude, copilot), with cwd $WORK unless cwd=DIR is given; session=, mode= and tool= set
// the other fields.
func payload(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: payload FILE claude|copilot COMMAND [cwd=DIR] [session=ID] [mode=MODE] [tool=NAME]")
	}
	opt := map[string]string{"cwd": ts.Getenv("WORK"), "session": "s-1", "mode": "default"}
	for _, kv := range args[3:] {
		k, v, _ := strings.Cut(kv, "=")
		opt[k] = v
	}
	if !filepath.IsAbs(opt["cwd"]) {
		opt["cwd"] = filepath.Join(ts.Getenv("WORK"), opt["cwd"])
	}
	var p any
	switch args[1] {
	case "claude":
		tool := opt["tool"]
		if tool == "" {
			tool = "Bash"
		}
		p = map[string]any{
			"session_id": opt["session"], "transcript_path": "/tmp/t.jsonl", "cwd": opt["cwd"],
			"permission_mode": opt["mode"], "hook_event_name": "PreToolUse", "tool_name": tool,
			"tool_input":  map[string]any{"command": args[2], "description": "test", "timeout": 600000, "run_in_background": false},
			"tool_use_id": "toolu_1",
		}
	case "copilot":
		tool := opt["tool"]
		if tool == "" {
			tool = "bash"
		}
		targs, _ := json.Marshal(map[string]any{"command": args[2], "description": "test"})
		p = map[string]any{"sessionId": opt["session"], "timestamp": 1787400000000, "cwd": opt["cwd"], "toolName": tool, "toolArgs": string(targs)}
	default:
		ts.Fatalf("unknown harness %q", args[1])
	}
	data, err := json.Marshal(p)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}
