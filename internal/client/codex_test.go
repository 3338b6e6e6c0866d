//go:build unix

package client

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/llm"
)

// codex runs Codex CLI headless (codex exec) in a sandbox mode, on a model provider of its own
// that points at the scripted model. Hooks need the user's trust, given in Codex's /hooks
// screen; headless, --dangerously-bypass-hook-trust stands in for it (in both runs of a case).
func (m *machine) codex(t *testing.T, c client, sandbox string, script ...llm.Step) *session {
	t.Helper()
	launch := func(url string) ([]string, []string) {
		return []string{
			"exec", "--skip-git-repo-check", "--sandbox", sandbox, "--dangerously-bypass-hook-trust",
			"-c", `model="gpt-5"`,
			"-c", `model_provider="scripted"`,
			"-c", `model_providers.scripted.name="scripted"`,
			"-c", `model_providers.scripted.base_url="` + url + `/v1"`,
			"-c", `model_providers.scripted.wire_api="responses"`,
			"-c", `model_providers.scripted.env_key="CODEX_TEST_KEY"`,
			"go",
		}, []string{"CODEX_TEST_KEY=offline-test-key"}
	}
	return m.start(t, c, launch, script...)
}

// codexPair runs one case without ctxguard and with it (installed by ctxguard install codex),
// with execution policy rules (Starlark, "" for none) in the user's rules folder.
func codexPair(t *testing.T, c client, sandbox, rules string, script ...llm.Step) (without, with *session) {
	t.Helper()
	mWithout, mWith := newMachine(t), newMachine(t)
	if rules != "" {
		for _, m := range []*machine{mWithout, mWith} {
			write(t, filepath.Join(m.home, ".codex", "rules", "default.rules"), rules)
		}
	}
	mWith.install(t, "codex")
	return mWithout.codex(t, c, sandbox, script...), mWith.codex(t, c, sandbox, script...)
}

// execCommand is Codex's shell tool. A login shell would read /etc/profile, whose PATH hides the
// shims, so the calls ask for none.
func execCommand(command string) llm.Step {
	return llm.Call("exec_command", map[string]any{"cmd": command, "login": false})
}

func TestCodex(t *testing.T) {
	c := need(t, "codex", "codex")

	// Codex applies a rewrite only with allow, and still judges the rewritten command by its
	// own sandbox and rules: a rule that forbids az, or one that needs an approval headless
	// Codex cannot get, refuses the bound command as it refused the original.
	for _, tc := range []struct {
		name, sandbox, rules string
	}{
		{"workspace-write", "workspace-write", ""},
		{"danger-full-access", "danger-full-access", ""},
		{"rule-forbidden", "workspace-write", `prefix_rule(pattern=["az"], decision="forbidden")`},
		{"rule-prompt", "workspace-write", `prefix_rule(pattern=["az"], decision="prompt")`},
	} {
		t.Run("rewrite/"+tc.name, func(t *testing.T) {
			t.Parallel()
			without, with := codexPair(t, c, tc.sandbox, tc.rules, execCommand("az group list"))
			sameOutcome(t, without, with, []call{unboundList}, []call{bound})
		})
	}

	t.Run("deny-reason", func(t *testing.T) {
		t.Parallel()
		without, with := codexPair(t, c, "workspace-write", "", execCommand("az group list --subscription "+prodSub))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the call", without.ran)
		}
		refusedWithReason(t, with, "az.")
	})

	// Codex cannot ask: a destructive command is denied, with a reason that says a human must
	// run it.
	t.Run("destructive-ask", func(t *testing.T) {
		t.Parallel()
		without, with := codexPair(t, c, "workspace-write", "", execCommand("az vm delete -n web --yes"))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the delete", without.ran)
		}
		r := refusedWithReason(t, with, "az.destructive")
		if !strings.Contains(r.Content, "ask the user to run it themselves") {
			t.Errorf("the reason does not say a human must run it: %q", r.Content)
		}
	})
}
