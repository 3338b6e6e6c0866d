package harness

import (
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
