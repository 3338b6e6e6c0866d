//go:build unix

package client

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/llm"
)

// claude runs Claude Code headless (-p) in a permission mode against the scripted model.
func (m *machine) claude(t *testing.T, c client, mode string, script ...llm.Step) *session {
	t.Helper()
	launch := func(url string) ([]string, []string) {
		return []string{"-p", "go", "--output-format", "stream-json", "--verbose", "--permission-mode", mode}, []string{
			"ANTHROPIC_BASE_URL=" + url,
			"ANTHROPIC_API_KEY=offline-test-key",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1",
			// bypassPermissions is refused to root unless the client is told it runs in a
			// sandbox, which this throwaway machine is.
			"IS_SANDBOX=1",
		}
	}
	return m.start(t, c, launch, script...)
}

// settings merges keys into the user's Claude Code settings file.
func (m *machine) settings(t *testing.T, keys string) {
	t.Helper()
	merge(t, filepath.Join(m.home, ".claude", "settings.json"), keys)
}

// merge merges the keys of a JSON object into a JSON settings file, which may not exist yet.
func merge(t *testing.T, file, keys string) {
	t.Helper()
	doc := map[string]any{}
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
	}
	var more map[string]any
	if err := json.Unmarshal([]byte(keys), &more); err != nil {
		t.Fatal(err)
	}
	for k, v := range more {
		doc[k] = v
	}
	data, _ := json.MarshalIndent(doc, "", "  ")
	write(t, file, string(data)+"\n")
}

// verdict is how Claude Code decided on a tool call, from stream-json's tool_result_meta:
// which layer decided (a mode, a rule, a hook, the headless "user") and what.
type verdict struct {
	Decision   string `json:"decision"`
	Source     string `json:"source"`
	ReasonType string `json:"reason_type"`
	Kind       string `json:"-"`
}

func (v verdict) refused() bool { return v.Decision == "reject" }

// claudeVerdicts reads every tool call's verdict from a stream-json transcript.
func claudeVerdicts(t *testing.T, stdout string) map[string]verdict {
	t.Helper()
	out := map[string]verdict{}
	for line := range strings.Lines(stdout) {
		var ev struct {
			Type string `json:"type"`
			Meta []struct {
				ID       string  `json:"id"`
				Kind     string  `json:"non_execution_kind"`
				Decision verdict `json:"permission_decision"`
			} `json:"tool_result_meta"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "user" {
			continue
		}
		for _, m := range ev.Meta {
			v := m.Decision
			v.Kind = m.Kind
			out[m.ID] = v
		}
	}
	return out
}

// claudePair runs one case without ctxguard and with it (installed by ctxguard install claude),
// each on a machine of its own prepared by prepare (nil: nothing more).
func claudePair(t *testing.T, c client, mode string, prepare func(*machine), script ...llm.Step) (without, with *session) {
	t.Helper()
	mWithout, mWith := newMachine(t), newMachine(t)
	if prepare != nil {
		prepare(mWithout)
		prepare(mWith)
	}
	mWith.install(t, "claude")
	without = mWithout.claude(t, c, mode, script...)
	with = mWith.claude(t, c, mode, script...)
	return without, with
}

// sameDecision checks the rule of a rewrite: the client decides on the bound command as it
// decided on the original (the same verdict from the same layer, where the client reports it),
// and where the original ran unbound, the bound command ran instead.
func sameDecision(t *testing.T, without, with *session, unbound, bound []call) {
	t.Helper()
	vo, vw := claudeVerdicts(t, without.stdout)["call_01"], claudeVerdicts(t, with.stdout)["call_01"]
	if diff := cmp.Diff(vo, vw); diff != "" {
		t.Errorf("the client decided otherwise with ctxguard (-without +with):\n%s", diff)
	}
	t.Logf("verdicts: without %+v, with %+v", vo, vw)
	sameOutcome(t, without, with, unbound, bound)
}

// claudeCase is a permission mode and the user's permissions list ("allow", "deny", "ask"; ""
// for none) that holds Bash(az:*).
type claudeCase struct{ mode, rule string }

// claudeRewrites runs `az group list`, which ctxguard rewrites, in each case: the client must
// decide on the bound command exactly as on the original.
func claudeRewrites(t *testing.T, c client, cases []claudeCase) {
	for _, tc := range cases {
		t.Run("rewrite/"+strings.TrimSuffix(tc.mode+"/"+tc.rule, "/"), func(t *testing.T) {
			t.Parallel()
			prepare := func(m *machine) {
				if tc.rule != "" {
					m.settings(t, `{"permissions": {"`+tc.rule+`": ["Bash(az:*)"]}}`)
				}
			}
			without, with := claudePair(t, c, tc.mode, prepare, bash("az group list"))
			sameDecision(t, without, with, []call{unboundList}, []call{bound})
		})
	}
}

var unboundList = call{CLI: "az", Args: []string{"group", "list"}, Context: prodSub}

func bash(command string) llm.Step {
	return llm.Call("Bash", map[string]any{"command": command, "description": "run " + command})
}

func TestClaude(t *testing.T) {
	c := need(t, "claude", "claude")

	// A rewrite under every permission mode, and with the user's own allow and deny rules: the
	// client must decide on the bound command exactly as on the original.
	claudeRewrites(t, c, []claudeCase{
		{"default", ""},
		{"acceptEdits", ""},
		{"plan", ""},
		{"dontAsk", ""},
		{"auto", ""},
		{"bypassPermissions", ""},
		{"default", "allow"},
		{"dontAsk", "allow"},
		{"acceptEdits", "allow"},
		{"bypassPermissions", "deny"},
		{"default", "ask"},
	})

	t.Run("allowed-unchanged", func(t *testing.T) {
		t.Parallel()
		line := "az group list --subscription " + devSub
		without, with := claudePair(t, c, "bypassPermissions", nil, bash(line))
		sameDecision(t, without, with, []call{bound}, []call{bound})
	})
	claudeRefusals(t, c)
	claudeTools(t, c)
}

// refusedWithReason checks a call ctxguard refused itself: nothing ran, and the model was told
// ctxguard's reason, with the rule that decided.
func refusedWithReason(t *testing.T, s *session, rule string) llm.ToolResult {
	t.Helper()
	if len(s.ran) != 0 {
		t.Errorf("with ctxguard, the shims saw %v; want nothing", s.ran)
	}
	r := s.result(t, 1)
	if !strings.Contains(r.Content, "[ctxguard/"+rule) {
		t.Errorf("the model was not told ctxguard's reason (%s); it was told: %q", rule, r.Content)
	}
	return r
}

// claudeRefusals are the cases where ctxguard itself refuses.
func claudeRefusals(t *testing.T, c client) {

	// A binding to a context the policy does not allow: ctxguard denies, and says why.
	t.Run("deny-reason", func(t *testing.T) {
		t.Parallel()
		line := "az group list --subscription " + prodSub
		without, with := claudePair(t, c, "bypassPermissions", nil, bash(line))
		if want := []call{{CLI: "az", Args: []string{"group", "list", "--subscription", prodSub}, Context: prodSub}}; !cmp.Equal(without.ran, want) {
			t.Errorf("without ctxguard, the shims saw %v; want %v", without.ran, want)
		}
		refusedWithReason(t, with, "az.")
	})

	// A destructive command: ctxguard asks, which a headless client never runs.
	t.Run("destructive-ask", func(t *testing.T) {
		t.Parallel()
		line := "az vm delete -n web --yes"
		without, with := claudePair(t, c, "bypassPermissions", nil, bash(line))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the delete", without.ran)
		}
		if len(with.ran) != 0 {
			t.Errorf("with ctxguard, the shims saw %v; want nothing", with.ran)
		}
		v := claudeVerdicts(t, with.stdout)["call_01"]
		if !v.refused() {
			t.Errorf("with ctxguard, the client's verdict is %+v; want a refusal", v)
		}
		t.Logf("the model was told: %q (%+v)", with.result(t, 1).Content, v)
	})

	// The agent cannot rewrite the policy: Write, and Edit after Read.
	for _, tc := range []struct {
		name   string
		script func(policy string) []llm.Step
	}{
		{"write-policy", func(p string) []llm.Step {
			return []llm.Step{llm.Call("Write", map[string]any{"file_path": p, "content": "version: 1\n"})}
		}},
		{"edit-policy", func(p string) []llm.Step {
			return []llm.Step{
				llm.Call("Read", map[string]any{"file_path": p}),
				llm.Call("Edit", map[string]any{"file_path": p, "old_string": "allow: [dev]", "new_string": "allow: ['*']"}),
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mWithout, mWith := newMachine(t), newMachine(t)
			mWith.install(t, "claude")
			policyFile := func(m *machine) string { return filepath.Join(m.work, ".ctxguard.yaml") }
			mWithout.claude(t, c, "bypassPermissions", tc.script(policyFile(mWithout))...)
			with := mWith.claude(t, c, "bypassPermissions", tc.script(policyFile(mWith))...)
			if read(t, policyFile(mWithout)) == policy {
				t.Errorf("without ctxguard, the client did not change the policy: the case proves nothing")
			}
			if got := read(t, policyFile(mWith)); got != policy {
				t.Errorf("with ctxguard, the policy changed:\n%s", got)
			}
			last := len(tc.script("")) // the write is the script's last call
			r := with.result(t, last)
			if !strings.Contains(r.Content, "[ctxguard/self.policy-write") {
				t.Errorf("the model was not told ctxguard's reason; it was told: %q", r.Content)
			}
		})
	}
}

// claudeTools are the cases of the other tools and fields.
func claudeTools(t *testing.T, c client) {
	t.Run("doctor", func(t *testing.T) {
		t.Parallel()
		doctorSays(t, c, "claude", "ok    claude   Claude Code "+c.version+" ("+c.bin+") runs ~/.claude/settings.json:", "the entry works with this version")
	})

	// A rewrite keeps the call's other fields: run_in_background is one whose effect shows.
	t.Run("fields-kept", func(t *testing.T) {
		t.Parallel()
		step := llm.Call("Bash", map[string]any{"command": "az group list", "description": "list", "run_in_background": true, "timeout": 600000})
		without, with := claudePair(t, c, "bypassPermissions", nil, step, llm.Call("Bash", map[string]any{"command": "sleep 1", "description": "wait"}))
		for name, s := range map[string]*session{"without": without, "with": with} {
			if r := s.result(t, 1).Content; !strings.Contains(r, "background") {
				t.Errorf("%s ctxguard, the call did not run in the background: %q", name, r)
			}
		}
		sameDecision(t, without, with, []call{unboundList}, []call{bound})
	})

	// Every guarded call of a line is bound, each to its own CLI's allowed context.
	t.Run("chain", func(t *testing.T) {
		t.Parallel()
		without, with := claudePair(t, c, "bypassPermissions", nil, bash("kubectl get pods && az group list"))
		sameDecision(t, without, with,
			[]call{{CLI: "kubectl", Args: []string{"get", "pods"}, Context: "prod"}, unboundList},
			[]call{{CLI: "kubectl", Args: []string{"get", "pods", "--context", "dev"}, Context: "dev"}, bound})
	})

	// Monitor runs a command too; Claude Code applies a rewrite of it when the hook's matcher
	// names Monitor, as ctxguard install's does.
	t.Run("monitor", func(t *testing.T) {
		t.Parallel()
		step := llm.Call("Monitor", map[string]any{"command": "az group list", "description": "watch the groups"})
		without, with := claudePair(t, c, "bypassPermissions", nil, step)
		sameDecision(t, without, with, []call{unboundList}, []call{bound})
	})

	// With a matcher that does not name Monitor (an entry written by hand, or by an older
	// ctxguard), a Monitor call reaches the hook as Bash with a payload like any Bash call's, and
	// Claude Code runs the original command whatever the hook's updatedInput says. This is the
	// limit the README states; ctxguard install's matcher names Monitor, and doctor flags an
	// entry whose matcher does not.
	t.Run("monitor-bash-matcher", func(t *testing.T) {
		t.Parallel()
		m := newMachine(t)
		m.settings(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash|PowerShell", "hooks": [{"type": "command", "command": "`+m.ctxguard+`", "args": ["hook"]}]}]}}`)
		s := m.claude(t, c, "bypassPermissions", llm.Call("Monitor", map[string]any{"command": "az group list", "description": "watch the groups"}))
		if want := []call{unboundList}; !cmp.Equal(s.ran, want) {
			t.Errorf("the shims saw %v; the README's limit says %v (update it if Claude Code now applies the rewrite)", s.ran, want)
		}
	})
}

// TestClaudeLegacy runs the entry ctxguard install writes (exec form: command and args) on the
// last Claude Code that predates the form, which runs the command alone: ctxguard, given no
// arguments and a payload on stdin, answers as the hook instead of blocking every call.
func TestClaudeLegacy(t *testing.T) {
	c := need(t, "claude-legacy", "claude")
	claudeRewrites(t, c, []claudeCase{{"bypassPermissions", ""}, {"dontAsk", ""}, {"dontAsk", "allow"}})
	t.Run("deny-reason", func(t *testing.T) {
		t.Parallel()
		_, with := claudePair(t, c, "bypassPermissions", nil, bash("az group list --subscription "+prodSub))
		refusedWithReason(t, with, "az.")
	})
	t.Run("doctor", func(t *testing.T) {
		t.Parallel()
		doctorSays(t, c, "claude", "ok    claude   Claude Code "+c.version+" ("+c.bin+") runs ~/.claude/settings.json:", "answers as the hook")
	})
}
