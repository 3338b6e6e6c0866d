//go:build unix

package client

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/llm"
)

// The harnesses beyond the first five whose clients run offline: each is run headless against the
// scripted model, once without ctxguard and once with it (installed by ctxguard install, in the
// user scope and in the project's), and judged by what the shims ran and what the model was
// told. Where a harness cannot rewrite, ctxguard's deny carries the fixed command, and the
// script's next step runs it, as a model would.

// reachClient is how one of these clients is run headless: its pinned name and program, the
// tool it calls a shell, its arguments, and its environment for the model at url, which may
// write the client's config into the machine first.
type reachClient struct {
	name, program string
	shell         func(command string) llm.Step
	args          []string
	env           func(t *testing.T, m *machine, url string) []string
}

var reachClients = []reachClient{
	{
		name: "qwen", program: "qwen",
		shell: func(c string) llm.Step {
			return llm.Call("run_shell_command", map[string]any{"command": c, "description": "run " + c})
		},
		args: []string{"-p", "go", "--approval-mode", "yolo", "--auth-type", "openai"},
		env: func(t *testing.T, m *machine, url string) []string {
			// Beside the hooks ctxguard install may have put in the same file.
			merge(t, filepath.Join(m.home, ".qwen", "settings.json"), `{"model":{"name":"test-model"},"security":{"folderTrust":{"enabled":false}}}`)
			return []string{"OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=offline-test-key", "OPENAI_MODEL=test-model"}
		},
	},
	{name: "opencode", program: "opencode", shell: opencodeShell, args: []string{"run", "go"}, env: opencodeEnv("opencode", "opencode.json")},
	// Kilo Code's CLI is a fork of opencode: the same plugin, config and tool.
	{name: "kilo", program: "../@kilocode/cli-linux-x64/bin/kilo", shell: opencodeShell, args: []string{"run", "go"}, env: opencodeEnv("kilo", "kilo.json")},
	{
		name: "pi", program: "pi",
		shell: func(c string) llm.Step { return llm.Call("bash", map[string]any{"command": c}) },
		args:  []string{"-p", "go", "--provider", "local", "--model", "test-model"},
		env: func(t *testing.T, m *machine, url string) []string {
			write(t, filepath.Join(m.home, ".pi", "agent", "models.json"), `{"providers":{"local":{"baseUrl":"`+url+`/v1","api":"openai-completions","apiKey":"offline-test-key",`+
				`"compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},"models":[{"id":"test-model"}]}}}`)
			return nil
		},
	},
	{
		name: "droid", program: "../@factory/cli-linux-x64/bin/droid",
		shell: func(c string) llm.Step {
			return llm.Call("Execute", map[string]any{"command": c, "riskLevelReason": "reads only", "riskLevel": "low"})
		},
		args: []string{"exec", "--auto", "high", "-m", "custom:test-model", "go"},
		env: func(t *testing.T, m *machine, url string) []string {
			write(t, filepath.Join(m.home, ".factory", "settings.json"), `{"customModels":[{"model":"test-model","displayName":"Local","baseUrl":"`+url+
				`/v1","apiKey":"offline-test-key","provider":"generic-chat-completion-api","maxOutputTokens":4096}]}`)
			return nil
		},
	},
}

func opencodeShell(c string) llm.Step {
	return llm.Call("bash", map[string]any{"command": c, "description": "run " + c})
}

// opencodeEnv is for opencode and its fork Kilo Code: the model as an OpenAI-compatible provider
// in its config folder, and its own permission check off for bash.
func opencodeEnv(name, config string) func(t *testing.T, m *machine, url string) []string {
	return func(t *testing.T, m *machine, url string) []string {
		write(t, filepath.Join(m.home, ".config", name, config), `{"provider":{"local":{"npm":"@ai-sdk/openai-compatible","name":"local",`+
			`"options":{"baseURL":"`+url+`/v1","apiKey":"offline-test-key"},"models":{"test-model":{"name":"test-model"}}}},`+
			`"model":"local/test-model","permission":{"bash":"allow"},"autoupdate":false,"share":"disabled"}`)
		prefix := strings.ToUpper(name) // OPENCODE_, KILO_
		return []string{prefix + "_DISABLE_MODELS_FETCH=1", prefix + "_DISABLE_AUTOUPDATE=1"}
	}
}

// session runs the client once on m.
func (rc reachClient) session(t *testing.T, c client, m *machine, script ...llm.Step) *session {
	t.Helper()
	return m.start(t, c, func(url string) ([]string, []string) { return rc.args, rc.env(t, m, url) }, script...)
}

// reachPair runs a case without ctxguard and with it, installed in scope.
func reachPair(t *testing.T, rc reachClient, c client, scope string, script ...llm.Step) (without, with *session) {
	t.Helper()
	mWithout, mWith := newMachine(t), newMachine(t)
	mWith.run(t, mWith.ctxguard, "install", rc.name, "--scope", scope)
	return rc.session(t, c, mWithout, script...), rc.session(t, c, mWith, script...)
}

// canRewrite are the harnesses that run the bound command in place of the one sent.
var canRewrite = map[string]bool{"opencode": true, "kilo": true, "pi": true, "droid": true}

func TestReachClients(t *testing.T) {
	for _, rc := range reachClients {
		t.Run(rc.name, func(t *testing.T) {
			c := need(t, rc.name, rc.program)
			for _, scope := range []string{"user", "project"} {
				// An unbound call: bound in place, or denied with the fixed command, which the
				// model then runs.
				t.Run("rewrite/"+scope, func(t *testing.T) {
					t.Parallel()
					fixed := "az group list --subscription " + devSub
					without, with := reachPair(t, rc, c, scope, rc.shell("az group list"), rc.shell(fixed))
					if diff := cmp.Diff([]call{unboundList, bound}, without.ran); diff != "" {
						t.Errorf("without ctxguard, the shims saw (-want +got):\n%s", diff)
					}
					if canRewrite[rc.name] {
						if diff := cmp.Diff([]call{bound, bound}, with.ran); diff != "" {
							t.Errorf("with ctxguard, the shims saw (-want +got):\n%s", diff)
						}
						return
					}
					if diff := cmp.Diff([]call{bound}, with.ran); diff != "" {
						t.Errorf("with ctxguard, the shims saw (-want +got):\n%s", diff)
					}
					if r := with.result(t, 1).Content; !strings.Contains(r, "[ctxguard/az.rebind]") || !strings.Contains(r, "run exactly this instead: "+fixed) {
						t.Errorf("the model was not told the fixed command: %q", r)
					}
				})
			}
			t.Run("deny-reason", func(t *testing.T) {
				t.Parallel()
				without, with := reachPair(t, rc, c, "user", rc.shell("az group list --subscription "+prodSub))
				if len(without.ran) != 1 {
					t.Errorf("without ctxguard, the shims saw %v; want the call", without.ran)
				}
				refusedWithReason(t, with, "az.")
			})
			// A destructive command is an ask; headless, no one can answer it, so it is refused.
			t.Run("destructive-ask", func(t *testing.T) {
				t.Parallel()
				without, with := reachPair(t, rc, c, "user", rc.shell("az vm delete -n web --yes --subscription "+devSub))
				if len(without.ran) != 1 {
					t.Errorf("without ctxguard, the shims saw %v; want the delete", without.ran)
				}
				refusedWithReason(t, with, "az.destructive")
			})
		})
	}
}

// TestReachCline runs Cline's CLI, whose hook answers only by cancelling: a refusal stops the
// whole task (Cline's "cancel"), with ctxguard's reason in Cline's log rather than told to the
// model, so the case is judged by what ran and by the log.
func TestReachCline(t *testing.T) {
	c := need(t, "cline", "cline")
	shell := func(command string) llm.Step {
		return llm.Call("run_commands", map[string]any{"commands": []string{command}})
	}
	run := func(t *testing.T, m *machine, script ...llm.Step) *session {
		t.Helper()
		run := func(url string) ([]string, []string) {
			m.run(t, c.bin, "auth", "-p", "openai", "-k", "offline-test-key", "-m", "test-model", "-b", url+"/v1")
			return []string{"--json", "list the resource groups"}, nil
		}
		return m.start(t, c, run, script...)
	}
	for _, scope := range []string{"user", "project"} {
		t.Run("rewrite/"+scope, func(t *testing.T) {
			t.Parallel()
			mWithout, mWith := newMachine(t), newMachine(t)
			mWith.run(t, mWith.ctxguard, "install", "cline", "--scope", scope)
			without, with := run(t, mWithout, shell("az group list")), run(t, mWith, shell("az group list"))
			if diff := cmp.Diff([]call{unboundList}, without.ran); diff != "" {
				t.Errorf("without ctxguard, the shims saw (-want +got):\n%s", diff)
			}
			if len(with.ran) != 0 {
				t.Errorf("with ctxguard, the shims saw %v; want nothing", with.ran)
			}
			log := read(t, filepath.Join(mWith.home, ".cline", "data", "logs", "cline.log"))
			if !strings.Contains(log, "[ctxguard/az.rebind]") || !strings.Contains(log, "run exactly this instead: az group list --subscription "+devSub) {
				t.Errorf("Cline's log does not have ctxguard's reason with the fixed command:\n%s", tail(log))
			}
		})
	}
	// A command the policy allows runs as it is.
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		m := newMachine(t)
		m.run(t, m.ctxguard, "install", "cline")
		s := run(t, m, shell("az group list --subscription "+devSub))
		if diff := cmp.Diff([]call{bound}, s.ran); diff != "" {
			t.Errorf("with ctxguard, the shims saw (-want +got):\n%s", diff)
		}
	})
}
