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
// The model's name picks the tools Codex offers: gpt-5 gets none to edit files (patches go
// through the shell), patchModel gets apply_patch as a freeform tool.
func (m *machine) codex(t *testing.T, c client, sandbox, model string, script ...llm.Step) *session {
	t.Helper()
	launch := func(url string) ([]string, []string) {
		return []string{
			"exec", "--skip-git-repo-check", "--sandbox", sandbox, "--dangerously-bypass-hook-trust",
			"-c", `model="` + model + `"`,
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

// patchModel is a model of Codex's catalog for which Codex 0.169 offers apply_patch as a tool of
// its own (a freeform one), with the shell tool beside it.
const patchModel = "gpt-5.5"

// codexPair runs one case without ctxguard and with it (installed by ctxguard install codex),
// with execution policy rules (Starlark, "" for none) in the user's rules folder.
func codexPair(t *testing.T, c client, sandbox, rules string, script ...llm.Step) (without, with *session) {
	t.Helper()
	mWithout, mWith := codexMachines(t, rules)
	return mWithout.codex(t, c, sandbox, "gpt-5", script...), mWith.codex(t, c, sandbox, "gpt-5", script...)
}

// codexMachines are the two machines of a case: without ctxguard, and with it.
func codexMachines(t *testing.T, rules string) (without, with *machine) {
	t.Helper()
	without, with = newMachine(t), newMachine(t)
	if rules != "" {
		for _, m := range []*machine{without, with} {
			write(t, filepath.Join(m.home, ".codex", "rules", "default.rules"), rules)
		}
	}
	with.install(t, "codex")
	return without, with
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

	// apply_patch is Codex's own file tool, which the hook sees as a file write: a patch that
	// changes the policy, alone or after an ordinary file, is refused whole, and one that
	// writes only an ordinary file is applied. Judged by the files: without ctxguard each patch
	// applies, so the hook is what keeps the policy as it was.
	for _, tc := range []struct {
		name, patch  string
		policyKept   bool
		notes        string // what notes.txt holds afterwards with ctxguard; "" for none
		notesWithout string
	}{
		{"apply-patch-policy", "*** Begin Patch\n*** Update File: .ctxguard.yaml\n@@\n version: 1\n+destructive: allow\n*** End Patch\n", true, "", ""},
		{"apply-patch-notes-then-policy", "*** Begin Patch\n*** Add File: notes.txt\n+az group list is the command\n*** Update File: .ctxguard.yaml\n@@\n version: 1\n+destructive: allow\n*** End Patch\n",
			true, "", "az group list is the command\n"},
		{"apply-patch-notes", "*** Begin Patch\n*** Add File: notes.txt\n+az group list is the command\n*** End Patch\n", false, "az group list is the command\n", "az group list is the command\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mWithout, mWith := codexMachines(t, "")
			step := llm.FreeformCall("apply_patch", tc.patch)
			without := mWithout.codex(t, c, "workspace-write", patchModel, step)
			with := mWith.codex(t, c, "workspace-write", patchModel, step)
			policyFile := ".ctxguard.yaml"
			if got := read(t, filepath.Join(mWithout.work, policyFile)); got == policy && tc.policyKept {
				t.Fatalf("without ctxguard the patch did not change the policy (the model was told %q): the case shows nothing", without.result(t, 1).Content)
			}
			got := read(t, filepath.Join(mWith.work, policyFile))
			switch {
			case tc.policyKept && got != policy:
				t.Errorf("with ctxguard the patch changed the policy to:\n%s", got)
			case tc.policyKept:
				refusedWithReason(t, with, "self.policy-write")
			}
			for _, m := range []struct {
				m    *machine
				want string
			}{{mWithout, tc.notesWithout}, {mWith, tc.notes}} {
				notes, err := readMaybe(filepath.Join(m.m.work, "notes.txt"))
				if tc.notesWithout != "" && m.want == "" && err == nil {
					t.Errorf("notes.txt was written by a patch that was refused: %q", notes)
				}
				if m.want != "" && notes != m.want {
					t.Errorf("notes.txt holds %q (%v), want %q", notes, err, m.want)
				}
			}
			t.Logf("with ctxguard the model was told %q", with.result(t, 1).Content)
		})
	}
}
