//go:build unix

package client

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/llm"
)

// copilot runs Copilot CLI headless (-p) with flags (--allow-all-tools, --deny-tool, …), on a
// provider of its own: the scripted model, no GitHub account.
func (m *machine) copilot(t *testing.T, c client, flags []string, script ...llm.Step) *session {
	t.Helper()
	launch := func(url string) ([]string, []string) {
		return append([]string{"-p", "go", "--output-format", "json"}, flags...), []string{
			"COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_BASE_URL=" + url + "/v1",
			// Copilot masks every occurrence of the key's text in its output; a short key would
			// mask parts of paths and commands.
			"COPILOT_PROVIDER_API_KEY=offline-test-key-0000",
			"COPILOT_MODEL=gpt-4.1",
		}
	}
	return m.start(t, c, launch, script...)
}

// copilotPair runs one case without ctxguard and with it (installed by ctxguard install copilot).
func copilotPair(t *testing.T, c client, flags []string, script ...llm.Step) (without, with *session) {
	t.Helper()
	mWithout, mWith := newMachine(t), newMachine(t)
	mWith.install(t, "copilot")
	return mWithout.copilot(t, c, flags, script...), mWith.copilot(t, c, flags, script...)
}

// sameOutcome is sameDecision for a client whose output does not say which layer decided: the
// call ran in both runs (the bound command with ctxguard), or was refused in both with the same
// words (where a refusal quotes the command, the bound one counts as the original).
func sameOutcome(t *testing.T, without, with *session, unbound, bound []call) {
	t.Helper()
	ro, rw := without.result(t, 1), with.result(t, 1)
	if len(without.ran) == 0 {
		if len(with.ran) != 0 {
			t.Errorf("without ctxguard the call was refused (%q), with it the shims saw %v", ro.Content, with.ran)
		}
		if strings.ReplaceAll(rw.Content, bound[0].line(), unbound[0].line()) != ro.Content {
			t.Errorf("the client refused otherwise with ctxguard:\nwithout: %q\nwith:    %q", ro.Content, rw.Content)
		}
	} else {
		if diff := cmp.Diff(unbound, without.ran); diff != "" {
			t.Errorf("without ctxguard, the shims saw (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(bound, with.ran); diff != "" {
			t.Errorf("with ctxguard, the shims saw (-want +got):\n%s (the model was told %q)", diff, rw.Content)
		}
	}
	t.Logf("without: ran=%v told %q; with: ran=%v told %q", without.ran, ro.Content, with.ran, rw.Content)
}

func shell(command string) llm.Step {
	return llm.Call("bash", map[string]any{"command": command, "description": "run " + command})
}

func TestCopilot(t *testing.T) {
	c := need(t, "copilot", "copilot")

	// A rewrite with and without --allow-all-tools and with the user's allow and deny rules:
	// Copilot must decide on the bound command as it did on the original.
	for _, flags := range [][]string{
		nil,
		{"--allow-all-tools"},
		{"--allow-tool=shell(az)"},
		{"--allow-all-tools", "--deny-tool=shell(az)"},
	} {
		t.Run("rewrite/"+strings.Join(append([]string{"prompt"}, flags...), " "), func(t *testing.T) {
			t.Parallel()
			without, with := copilotPair(t, c, flags, shell("az group list"))
			sameOutcome(t, without, with, []call{unboundList}, []call{bound})
		})
	}

	t.Run("doctor", func(t *testing.T) {
		t.Parallel()
		doctorSays(t, c, "copilot", "ok    copilot  GitHub Copilot CLI "+c.version+" ("+c.bin+") runs ~/.copilot/hooks/ctxguard.json:", "the entry works with this version")
	})

	t.Run("allowed-unchanged", func(t *testing.T) {
		t.Parallel()
		without, with := copilotPair(t, c, []string{"--allow-all-tools"}, shell("az group list --subscription "+devSub))
		sameOutcome(t, without, with, []call{bound}, []call{bound})
	})

	// A rewrite keeps the other arguments: mode async is one whose effect shows.
	t.Run("fields-kept", func(t *testing.T) {
		t.Parallel()
		step := llm.Call("bash", map[string]any{"command": "az group list", "description": "list", "mode": "async", "shellId": "groups"})
		without, with := copilotPair(t, c, []string{"--allow-all-tools"}, step, shell("sleep 1"))
		for name, s := range map[string]*session{"without": without, "with": with} {
			if r := s.result(t, 1).Content; !strings.Contains(r, "groups") {
				t.Errorf("%s ctxguard, the call did not run as the async shell it named: %q", name, r)
			}
		}
		sameOutcome(t, without, with, []call{unboundList}, []call{bound})
	})

	t.Run("deny-reason", func(t *testing.T) {
		t.Parallel()
		without, with := copilotPair(t, c, []string{"--allow-all-tools"}, shell("az group list --subscription "+prodSub))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the call", without.ran)
		}
		refusedWithReason(t, with, "az.")
	})

	t.Run("destructive-ask", func(t *testing.T) {
		t.Parallel()
		without, with := copilotPair(t, c, []string{"--allow-all-tools"}, shell("az vm delete -n web --yes"))
		if len(without.ran) != 1 {
			t.Errorf("without ctxguard, the shims saw %v; want the delete", without.ran)
		}
		if len(with.ran) != 0 {
			t.Errorf("with ctxguard, the shims saw %v; want nothing", with.ran)
		}
		t.Logf("the model was told: %q", with.result(t, 1).Content)
	})

	// The agent cannot rewrite the policy with Copilot's file tools: create (a new policy nearer
	// the work) and edit.
	for _, tc := range []struct {
		name string
		step func(work string) llm.Step
		file string
	}{
		{"create-policy", func(w string) llm.Step {
			return llm.Call("create", map[string]any{"path": filepath.Join(w, "sub", ".ctxguard.yaml"), "file_text": "version: 1\n"})
		}, filepath.Join("sub", ".ctxguard.yaml")},
		{"edit-policy", func(w string) llm.Step {
			return llm.Call("edit", map[string]any{"path": filepath.Join(w, ".ctxguard.yaml"), "old_str": "allow: [dev]", "new_str": "allow: ['*']"})
		}, ".ctxguard.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mWithout, mWith := newMachine(t), newMachine(t)
			for _, m := range []*machine{mWithout, mWith} {
				write(t, filepath.Join(m.work, "sub", "README.md"), "a folder for a policy of its own\n")
			}
			mWith.install(t, "copilot")
			mWithout.copilot(t, c, []string{"--allow-all-tools"}, tc.step(mWithout.work))
			with := mWith.copilot(t, c, []string{"--allow-all-tools"}, tc.step(mWith.work))
			changed := func(m *machine) bool {
				data, err := readMaybe(filepath.Join(m.work, tc.file))
				return err == nil && data != policy
			}
			if !changed(mWithout) {
				t.Errorf("without ctxguard, the client did not write %s: the case proves nothing", tc.file)
			}
			if changed(mWith) {
				t.Errorf("with ctxguard, %s was written", tc.file)
			}
			if r := with.result(t, 1); !strings.Contains(r.Content, "[ctxguard/self.policy-write") {
				t.Errorf("the model was not told ctxguard's reason; it was told: %q", r.Content)
			}
		})
	}
}
