package harness

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAnswerJSON checks that the answers, written without reflection, are byte for byte what
// encoding/json writes for the same structs (without HTML escaping), empty fields included.
func TestAnswerJSON(t *testing.T) {
	args := object{{"command", json.RawMessage(`"az group list"`)}, {"timeout", json.RawMessage(`120000`)}}
	reasons := []string{"", "[ctxguard/az.rebind] bound to 1111 & <prod> \"quoted\" — 'x'\n\ttab", "\u2028\u2029\x00\x1f\x7f\xff"}
	var answers []answer
	for _, r := range reasons {
		for _, a := range []object{nil, {}, args} {
			answers = append(answers,
				claudeOutput{claudeDecision{HookEventName: "PreToolUse", PermissionDecision: r, PermissionDecisionReason: r, UpdatedInput: a, AdditionalContext: r}},
				copilotOutput{PermissionDecision: r, PermissionDecisionReason: r, ModifiedArgs: a, AdditionalContext: r},
				geminiOutput{Decision: r, Reason: r, SystemMessage: r},
				geminiOutput{Decision: r, HookSpecificOutput: &geminiSpecific{HookEventName: "BeforeTool", ToolInput: a}},
				cursorOutput{Permission: r, UserMessage: r, AgentMessage: r, UpdatedInput: a},
				clineOutput{Cancel: r != "", ErrorMessage: r},
				crushOutput{Decision: r, Reason: r, Context: r, UpdatedInput: a},
				gooseOutput{Decision: r, Reason: r},
				pluginAnswer{Decision: r, Reason: r, Args: a},
			)
		}
	}
	for _, a := range answers {
		want, err := marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("%#v:\n got %s\nwant %s", a, got, want)
		}
	}
}
