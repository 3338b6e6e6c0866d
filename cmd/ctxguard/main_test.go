package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ctxguard/ctxguard/internal/cli"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the scripts' expected output with what the commands print")

func TestMain(m *testing.M) {
	testscript.Main(binDirRemover{m}, map[string]func(){
		"ctxguard": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// binDirRemover removes the directory testscript.Main copies the commands into (it puts its bin
// folder first on PATH) with testenv.RemoveAll after the tests, because testscript's own
// os.RemoveAll fails under Wine and exits 1 after tests that passed.
type binDirRemover struct{ m *testing.M }

func (r binDirRemover) Run() int {
	code := r.m.Run()
	bin, _, _ := strings.Cut(os.Getenv("PATH"), string(filepath.ListSeparator))
	if err := testenv.RemoveAll(filepath.Dir(bin)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}

// stateVars are the variables that point CLIs at their state; every script starts with none of
// them, so the real user's state never leaks in.
var stateVars = []string{
	"KUBECONFIG", "AZURE_CONFIG_DIR", "CLOUDSDK_CONFIG", "CLOUDSDK_ACTIVE_CONFIG_NAME", "CLOUDSDK_CORE_PROJECT",
	"GH_CONFIG_DIR", "GH_HOST", "GH_TOKEN", "GITHUB_TOKEN", "TF_WORKSPACE", "TF_DATA_DIR", "DOCKER_CONFIG",
	"DOCKER_CONTEXT", "DOCKER_HOST", "AWS_PROFILE", "LOCALAPPDATA", "APPDATA", "TF_CLI_CONFIG_FILE",
	"AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_ACCESS_KEY_ID",
	"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "HELM_KUBECONTEXT", "HELM_NAMESPACE",
	"DIGITALOCEAN_CONTEXT", "DIGITALOCEAN_ACCESS_TOKEN", "DATABRICKS_CONFIG_PROFILE",
	"DATABRICKS_CONFIG_FILE", "AZURE_ENV_NAME", "PULUMI_HOME", "PULUMI_STACK", "PULUMI_BACKEND_URL",
}

// quietVars keep the real CLIs (cli_*.txtar) offline and from prompting: no telemetry, update
// checks or surveys, which would also leave processes behind writing into $WORK.
var quietVars = map[string]string{
	"AZURE_CORE_COLLECT_TELEMETRY":                    "false",
	"AZURE_CORE_SURVEY_MESSAGE":                       "false",
	"AZURE_CORE_NO_COLOR":                             "true",
	"CLOUDSDK_CORE_DISABLE_PROMPTS":                   "1",
	"CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "1",
	"CLOUDSDK_CORE_DISABLE_USAGE_REPORTING":           "true",
	"CHECKPOINT_DISABLE":                              "1",
	"TF_IN_AUTOMATION":                                "1",
	"GH_NO_UPDATE_NOTIFIER":                           "1",
	"GH_PROMPT_DISABLED":                              "1",
	"NO_COLOR":                                        "1",
	"AWS_EC2_METADATA_DISABLED":                       "true",
	"AWS_MAX_ATTEMPTS":                                "1",
	"AWS_RETRY_MODE":                                  "standard",
	"AWS_PAGER":                                       "",
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Condition:           condition,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("CTXGUARD_MANAGED_POLICY", filepath.Join(env.WorkDir, "managed", "policy.yaml"))
			// The hook's 150 ms budget is for a machine doing nothing else; the suite runs beside
			// other packages' tests on two cores. Scripts about the budget set it back.
			env.Setenv("CTXGUARD_BUDGET", "2s")
			// testscript passes on only PATH from the test's environment; the state variables are
			// removed all the same, in case a version passes more. Unset, not empty: gcloud takes
			// CLOUDSDK_CORE_PROJECT= for an empty, invalid project.
			env.Vars = slices.DeleteFunc(env.Vars, func(kv string) bool {
				name, _, _ := strings.Cut(kv, "=")
				return slices.Contains(stateVars, name)
			})
			for k, v := range quietVars {
				env.Setenv(k, v)
			}
			// The scripts lay out a Linux home; on Windows these name it where the CLIs look
			// (windows_*.txtar lay out a Windows home instead).
			for k, v := range testenv.HomeVars(home) {
				env.Setenv(k, v)
			}
			// The state files the real CLIs wrote (providers/testdata), for scripts that copy
			// them into the home instead of spelling them out.
			fixtures, err := filepath.Abs(filepath.Join("..", "..", "providers", "testdata"))
			if err != nil {
				return err
			}
			env.Setenv("FIXTURES", fixtures)
			// A drive of its own for the scripts that walk up to a drive's root: .ci/wine maps
			// one in its Wine prefix ([testdrive]).
			if d := os.Getenv("CTXGUARD_TEST_DRIVE"); d != "" {
				env.Setenv("TESTDRIVE", d)
			}
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       exits,
			"payload":     payload,
			"runanswer":   runanswer,
			"genpayload":  genpayload,
			"timed":       timed,
			"openstdin":   openstdin,
			"lastline":    lastline,
			"trailcheck":  trailcheck,
			"encode":      encode,
			"gitbash":     gitbash,
			"installself": installself,
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

// sessions numbers the payloads that name no session.
var sessions atomic.Int64

// payload FILE HARNESS COMMAND [key=value…] writes a hook payload for COMMAND as HARNESS sends
// it (claude, copilot, gemini, cursor: beforeShellExecution, cursor-tool: Cursor's preToolUse,
// codex), with cwd $WORK unless cwd=DIR is given; session=, agent= (claude's
// agent_id), mode= and tool= set the other fields; file=PATH makes a payload a file tool's
// (tool=Write …; Copilot's create, Gemini's write_file), whose content is COMMAND, and with
// old=TEXT an edit that replaces TEXT with COMMAND (Claude's Edit, Copilot's edit, Gemini's
// replace); for codex, patch=FILE makes it Codex's apply_patch with that file's patch (COMMAND is
// unused). A payload without session= is a session of its own, so that session memory links
// only the payloads a script means to link.
func payload(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: payload FILE HARNESS|cursor-tool COMMAND [cwd=DIR] [session=ID] [agent=ID] [mode=MODE] [tool=NAME] [file=PATH] [old=TEXT] [patch=FILE]")
	}
	opt := map[string]string{"cwd": ts.Getenv("WORK"), "session": fmt.Sprintf("s-%d", sessions.Add(1)), "mode": "default"}
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
		if opt["agent"] != "" {
			p.(map[string]any)["agent_id"] = opt["agent"]
		}
		if f, ok := opt["file"]; ok {
			// A file tool (Write, Edit …): COMMAND is the content, file= the path (relative to cwd).
			if !filepath.IsAbs(f) {
				f = filepath.Join(opt["cwd"], f)
			}
			p.(map[string]any)["tool_input"] = map[string]any{"file_path": f, "content": args[2]}
			if old, ok := opt["old"]; ok {
				p.(map[string]any)["tool_input"] = map[string]any{"file_path": f, "old_string": old, "new_string": args[2]}
			}
		}
	case "copilot":
		tool := opt["tool"]
		if tool == "" {
			tool = "bash"
		}
		in := map[string]any{"command": args[2], "description": "test"}
		if f, ok := opt["file"]; ok {
			// A file tool (create, edit): COMMAND is the content, file= the path (relative to cwd).
			if !filepath.IsAbs(f) {
				f = filepath.Join(opt["cwd"], f)
			}
			in = map[string]any{"path": f, "file_text": args[2]}
			if old, ok := opt["old"]; ok {
				in = map[string]any{"path": f, "old_str": old, "new_str": args[2]}
			}
		}
		targs, _ := json.Marshal(in)
		p = map[string]any{"sessionId": opt["session"], "timestamp": 1787400000000, "cwd": opt["cwd"], "toolName": tool, "toolArgs": string(targs)}
	case "gemini":
		tool, in := "run_shell_command", map[string]any{"command": args[2], "description": "test"}
		if f, ok := opt["file"]; ok {
			tool, in = "write_file", map[string]any{"file_path": filepath.Join(opt["cwd"], f), "content": args[2]}
			if old, ok := opt["old"]; ok {
				tool, in = "replace", map[string]any{"file_path": filepath.Join(opt["cwd"], f), "old_string": old, "new_string": args[2]}
			}
		}
		p = map[string]any{
			"session_id": opt["session"], "transcript_path": "/tmp/t.json", "cwd": opt["cwd"], "hook_event_name": "BeforeTool",
			"timestamp": "2026-08-22T10:15:00.000Z", "tool_name": tool, "tool_input": in,
		}
	case "cursor": // beforeShellExecution, which cannot rewrite
		p = map[string]any{
			"conversation_id": opt["session"], "generation_id": "g-1", "model": "default", "hook_event_name": "beforeShellExecution",
			"cursor_version": "3.21.16", "workspace_roots": []string{opt["cwd"]}, "command": args[2], "cwd": opt["cwd"], "sandbox": false,
		}
	case "cursor-tool": // preToolUse on the Shell tool, which cannot ask
		p = map[string]any{
			"conversation_id": opt["session"], "generation_id": "g-1", "model": "default", "hook_event_name": "preToolUse",
			"cursor_version": "3.21.16", "workspace_roots": []string{opt["cwd"]}, "tool_name": "Shell",
			"tool_input": map[string]any{"command": args[2], "working_directory": opt["cwd"]},
		}
	case "codex":
		// tool=apply_patch sends Codex's file tool, whose command is the patch: the content of
		// the file patch= names.
		tool, command := "Bash", args[2]
		if f, ok := opt["patch"]; ok {
			data, err := os.ReadFile(ts.MkAbs(f))
			ts.Check(err)
			tool, command = "apply_patch", string(data)
		}
		p = map[string]any{
			"session_id": opt["session"], "turn_id": "t-1", "transcript_path": nil, "cwd": opt["cwd"], "hook_event_name": "PreToolUse",
			"model": "gpt-5", "permission_mode": opt["mode"], "tool_name": tool, "tool_use_id": "c-1",
			"tool_input": map[string]any{"command": command},
		}
	default:
		// Every other harness: the payload its doctor self-test sends.
		s, ok := harness.SetupFor(args[1])
		if !ok {
			ts.Fatalf("unknown harness %q", args[1])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), s.Probe("", args[2], opt["cwd"]), 0o644))
		return
	}
	data, err := json.Marshal(p)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// condition answers the scripts' own conditions: [realcli:NAME]; [symlinks], true where the
// system makes symbolic links (testscript's [symlink] is true under Wine, which makes none); and
// [testdrive], true where a throwaway drive is mapped for the scripts ($TESTDRIVE).
func condition(cond string) (bool, error) {
	switch cond {
	case "symlinks":
		return testenv.Symlinks(), nil
	case "testdrive":
		return os.Getenv("CTXGUARD_TEST_DRIVE") != "", nil
	}
	return realCLI(cond)
}

// realCLI is the condition [realcli:NAME]: true when the real CLI NAME is on PATH. A missing one
// makes the script skip itself with one line that names the CLI, so that a first run on a
// machine without it is green and says what it did not run; under CI=true (.ci/run sets it) a
// missing one is an error that fails the script instead, so that CI cannot pass by not running
// them. Every script words its skip the same way (TestRealCLIScripts), so that ./test.sh can
// report one line per missing CLI:
//
//	[!realcli:az] skip 'az is not on PATH (CI=true requires it)'
func realCLI(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "realcli:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath(name); err == nil {
		return true, nil
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		return false, fmt.Errorf("%s is not on PATH, and CI=true requires the real CLIs (.ci/run installs azure-cli, gh, awscli, docker.io and kubectx from Debian and helm from the Go module proxy; kubectl, gcloud and terraform come with the image)", name)
	}
	return false, nil
}

// runanswer PAYLOAD runs what the harness would run after the hook's answer, which is the last
// command's stdout: the payload's own command when the answer is silence (allow), the command in
// the answer when it carries one (a rewrite, which carries no decision, or an ask, which the
// human is taken to approve). A deny fails. The command runs with bash in the payload's cwd, and its output becomes stdout and
// stderr for the next assertions; `! runanswer` expects it to fail.
func runanswer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: runanswer PAYLOAD")
	}
	var p struct {
		Cwd       string          `json:"cwd"`
		ToolInput json.RawMessage `json:"tool_input"`
		ToolArgs  string          `json:"toolArgs"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &p))
	var in struct{ Command string }
	if p.ToolInput != nil {
		ts.Check(json.Unmarshal(p.ToolInput, &in))
	} else {
		ts.Check(json.Unmarshal([]byte(p.ToolArgs), &in))
	}
	command := in.Command
	if answer := strings.TrimSpace(ts.ReadFile("stdout")); answer != "" {
		var a struct {
			Hook struct {
				Decision string                    `json:"permissionDecision"`
				Reason   string                    `json:"permissionDecisionReason"`
				Input    *struct{ Command string } `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
			Decision string                    `json:"permissionDecision"`
			Reason   string                    `json:"permissionDecisionReason"`
			Modified *struct{ Command string } `json:"modifiedArgs"`
		}
		ts.Check(json.Unmarshal([]byte(answer), &a))
		decision, reason, next := a.Decision, a.Reason, a.Modified
		if a.Hook.Decision != "" || a.Hook.Input != nil {
			decision, reason, next = a.Hook.Decision, a.Hook.Reason, a.Hook.Input
		}
		if decision == "deny" {
			ts.Fatalf("the hook denied the command: %s", reason)
		}
		if next != nil {
			command = next.Command
		}
	}
	ts.Logf("running: %s", command)
	err := ts.Exec("bash", "-c", `cd -- "$0" && eval "$1"`, p.Cwd, command)
	if err != nil && !neg {
		ts.Fatalf("%v", err)
	}
	if err == nil && neg {
		ts.Fatalf("the command succeeded, want a failure")
	}
}

// lastline FILE FIELD VAR sets VAR to the string FIELD of the JSON object on FILE's last line
// (the id of the decision the hook recorded last, for `ctxguard explain --id`).
func lastline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: lastline FILE FIELD VAR")
	}
	lines := strings.Split(strings.TrimSpace(ts.ReadFile(args[0])), "\n")
	var m map[string]any
	ts.Check(json.Unmarshal([]byte(lines[len(lines)-1]), &m))
	v, ok := m[args[1]].(string)
	if !ok {
		ts.Fatalf("%s: the last line has no string %q", args[0], args[1])
	}
	ts.Setenv(args[2], v)
}

// TestRealCLICondition checks that a missing real CLI skips a script, and fails it under CI=true.
func TestRealCLICondition(t *testing.T) {
	const missing = "realcli:ctxguard-no-such-cli"
	t.Setenv("CI", "")
	if ok, err := realCLI(missing); ok || err != nil {
		t.Errorf("missing CLI outside CI: %v, %v; want false, so that the script skips", ok, err)
	}
	t.Setenv("CI", "true")
	if ok, err := realCLI(missing); ok || err == nil || !strings.Contains(err.Error(), "ctxguard-no-such-cli is not on PATH") {
		t.Errorf("missing CLI with CI=true: %v, %v; want an error naming the CLI", ok, err)
	}
	present := "sh" // a program on PATH on every system the tests run on
	if runtime.GOOS == "windows" {
		present = "cmd"
	}
	if ok, err := realCLI("realcli:" + present); !ok || err != nil {
		t.Errorf("%s: %v, %v; want true", present, ok, err)
	}
}

// TestRealCLIScripts checks that every script that runs a real CLI skips with the one wording
// that ./test.sh folds into a single line per CLI.
func TestRealCLIScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	cond := regexp.MustCompile(`\[!?realcli:([a-z0-9-]+)\]`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cond.FindAllStringSubmatch(string(data), -1) {
			want := fmt.Sprintf("[!realcli:%s] skip '%s is not on PATH (CI=true requires it)'\n", m[1], m[1])
			if !strings.Contains(string(data), want) {
				t.Errorf("%s uses realcli:%s but does not skip with %q", filepath.Base(f), m[1], strings.TrimSpace(want))
			}
		}
	}
}
