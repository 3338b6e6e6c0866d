package harness

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
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

// TestAppendString compares the JSON string writer with encoding/json on the characters that
// are escaped and on random strings, valid UTF-8 or not.
func TestAppendString(t *testing.T) {
	cases := []string{"", "plain", `"\`, "\b\f\n\r\t\x00\x01\x1f \x7f", "\u2028\u2029\u2027\u202a", "é日本\U0001F600",
		"\xff", "a\xc0z", "\xe2\x80", "\xed\xa0\x80", "\uFFFD", "<>&'", "$(az x) && `y`"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(3) == 0 {
				b[i] &= 0x3f
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, err := marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q (valid %v):\n got %s\nwant %s", s, utf8.ValidString(s), got, want)
		}
	}
}
