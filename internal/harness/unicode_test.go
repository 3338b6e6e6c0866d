package harness

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCopilotArgsNotUnicode checks that a toolArgs string holding bytes that are not UTF-8 is
// refused, as a top-level string would be: decoding would replace them, and a rewrite would hand
// back a command other than the one sent.
func TestCopilotArgsNotUnicode(t *testing.T) {
	payload := "{\"toolName\":\"bash\",\"toolArgs\":\"{\\\"command\\\":\\\"az group \xff list\\\"}\"}"
	if _, err := Decode(copilot{}, []byte(payload)); err == nil || !strings.Contains(err.Error(), "not valid unicode") {
		t.Fatalf("Decode: %v, want a not valid unicode error", err)
	}
	ok := "{\"toolName\":\"bash\",\"toolArgs\":\"{\\\"command\\\":\\\"echo \uFFFD\\\"}\"}"
	req, err := Decode(copilot{}, []byte(ok))
	if err != nil || req.Command != "echo \uFFFD" {
		t.Fatalf("Decode of a U+FFFD sent as such: %+v, %v", req, err)
	}
}

// TestUnquote checks that the shortcut for a JSON string without escapes gives what
// json.Unmarshal gives, for every kind of string a payload may hold.
func TestUnquote(t *testing.T) {
	for _, raw := range []string{
		`""`, `"az group list"`, `"a && b | c > d"`, `"tab\there"`, `"quote \" inside"`, `"back\\slash"`,
		`"\u00e9t\u00e9"`, `"été — ✓"`, "\"\uFFFD\"", `"\ufffd"`, `"\ud83d\ude00"`, `"\ud83d alone"`,
		"\"bad \xff byte\"", "\"cut \xe2\x82\"", `"slash \/"`,
	} {
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		got, err := unquote(json.RawMessage(raw))
		if got != want || (err == nil) != (werr == nil) {
			t.Errorf("unquote(%q) = %q, %v; json.Unmarshal gives %q, %v", raw, got, err, want, werr)
		}
	}
}
