//go:build unix

package client

import (
	"path/filepath"
	"testing"

	"github.com/ctxguard/ctxguard/internal/llm"
)

// geminiSettings is a user settings file for Gemini CLI on a machine with no Google account:
// an API key (any) to a custom endpoint, and nothing that phones home.
const geminiSettings = `{"security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}}
`

// gemini runs Gemini CLI headless (-p) in an approval mode against the scripted model.
func (m *machine) gemini(t *testing.T, c client, mode string, script ...llm.Step) *session {
	t.Helper()
	launch := func(url string) ([]string, []string) {
		return []string{"-p", "go", "--output-format", "stream-json", "-m", "gemini-2.5-flash", "--approval-mode", mode}, []string{
			"GOOGLE_GEMINI_BASE_URL=" + url,
			"GEMINI_API_KEY=offline-test-key",
			// Headless, an untrusted folder is refused outright.
			"GEMINI_CLI_TRUST_WORKSPACE=true",
			// Gemini CLI starts itself again with a larger heap, which costs seconds.
			"GEMINI_CLI_NO_RELAUNCH=true",
		}
	}
	// A named model skips the router, which first asks another model which one to use.
	return m.start(t, c, launch, script...)
}

// geminiPair runs one case without ctxguard and with it (installed by ctxguard install gemini),
// with more user settings merged in (a JSON object, "" for none) and policy rules (TOML, "" for
// none).
func geminiPair(t *testing.T, c client, mode, settings, rules string, script ...llm.Step) (without, with *session) {
	t.Helper()
	mWithout, mWith := newMachine(t), newMachine(t)
	for _, m := range []*machine{mWithout, mWith} {
		file := filepath.Join(m.home, ".gemini", "settings.json")
		write(t, file, geminiSettings)
		if settings != "" {
			merge(t, file, settings)
		}
		if rules != "" {
			write(t, filepath.Join(m.home, ".gemini", "policies", "test.toml"), rules)
		}
	}
	mWith.install(t, "gemini")
	return mWithout.gemini(t, c, mode, script...), mWith.gemini(t, c, mode, script...)
}

func runShell(command string) llm.Step {
	return llm.Call("run_shell_command", map[string]any{"command": command, "description": "run " + command})
}

func TestGemini(t *testing.T) {
	c := need(t, "gemini", "gemini")

	// Headless, Gemini CLI offers its shell tool only where it needs no confirmation: in yolo
	// mode, or for the commands the user allowed; its policy rules can deny them.
	for _, tc := range []struct {
		name, mode, settings, rules string
	}{
		{"default", "default", "", ""},
		{"yolo", "yolo", "", ""},
		{"default/allowed", "default", `{"tools": {"allowed": ["run_shell_command(az)"]}}`, ""},
		{"yolo/policy-deny", "yolo", "", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"az\"\ndecision = \"deny\"\npriority = 100\n"},
	} {
		t.Run("rewrite/"+tc.name, func(t *testing.T) {
			t.Parallel()
			without, with := geminiPair(t, c, tc.mode, tc.settings, tc.rules, runShell("az group list"))
			sameOutcome(t, without, with, []call{unboundList}, []call{bound})
		})
	}

	t.Run("deny-reason", func(t *testing.T) {
		t.Parallel()
		without, with := geminiPair(t, c, "yolo", "", "", runShell("az group list --subscription "+prodSub))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the call", without.ran)
		}
		refusedWithReason(t, with, "az.")
	})

	t.Run("destructive-ask", func(t *testing.T) {
		t.Parallel()
		without, with := geminiPair(t, c, "yolo", "", "", runShell("az vm delete -n web --yes"))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the delete", without.ran)
		}
		if len(with.ran) != 0 {
			t.Errorf("with ctxguard, the shims saw %v; want nothing", with.ran)
		}
		// Gemini CLI 0.61 ends a headless session at an ask: the call neither runs nor reaches
		// the model as a result.
		if r, err := with.model.Result(1); err == nil {
			t.Logf("the model was told: %q", r.Content)
		} else {
			t.Logf("the session ended at the ask: %v", err)
		}
	})
}
