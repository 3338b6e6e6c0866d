package llm

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s: %s", url, resp.Status, data)
	}
	return string(data)
}

// events returns the data of each server-sent event.
func events(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, ev)
	}
	return out
}

// TestScript follows a conversation through each API: the first request gets the first tool
// call, a request whose conversation holds that call and its result gets the next step, and the
// results the client sent are read back.
func TestScript(t *testing.T) {
	s, err := Start(Call("Bash", map[string]string{"command": "az group list"}), Say("bye"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	first := post(t, s.URL+"/v1/messages?beta=true", `{"stream":true,"messages":[{"role":"user","content":"go"}]}`)
	evs := events(t, first)
	var input string
	for _, ev := range evs {
		if d, ok := ev["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
			input = d["partial_json"].(string)
		}
	}
	if input != `{"command":"az group list"}` || evs[1]["content_block"].(map[string]any)["id"] != "call_01" {
		t.Errorf("first answer is not the scripted call: %s", first)
	}
	second := post(t, s.URL+"/v1/messages", `{"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"call_01","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_01","is_error":true,"content":[{"type":"text","text":"denied"}]}]}]}`)
	if !strings.Contains(second, `"text":"bye"`) || !strings.Contains(second, `"stop_reason":"end_turn"`) {
		t.Errorf("second answer is not the scripted text: %s", second)
	}
	if r, err := s.Result(1); err != nil || r.Content != "denied" || !r.IsError {
		t.Errorf("Result(1) = %+v, %v", r, err)
	}

	chat := post(t, s.URL+"/v1/chat/completions", `{"stream":true,"messages":[{"role":"user","content":"go"}]}`)
	if !strings.Contains(chat, `"arguments":"{\"command\":\"az group list\"}"`) || !strings.HasSuffix(chat, "data: [DONE]\n\n") {
		t.Errorf("chat answer: %s", chat)
	}
	post(t, s.URL+"/v1/chat/completions", `{"messages":[{"role":"assistant","tool_calls":[{"id":"call_01"}]},{"role":"tool","tool_call_id":"call_01","content":"ran"}]}`)
	if r, _ := s.Result(1); r.Content != "ran" {
		t.Errorf("chat Result(1) = %+v", r)
	}

	resp := post(t, s.URL+"/v1/responses", `{"stream":true,"input":[{"type":"function_call","call_id":"call_01"},{"type":"function_call_output","call_id":"call_01","output":"out"}]}`)
	if !strings.Contains(resp, `"output_text"`) || !strings.Contains(resp, "response.completed") {
		t.Errorf("responses answer after one call is not the text: %s", resp)
	}
	if r, _ := s.Result(1); r.Content != "out" {
		t.Errorf("responses Result(1) = %+v", r)
	}

	gem := post(t, s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`)
	if !strings.Contains(gem, `"functionCall":{"args":{"command":"az group list"},"id":"call_01","name":"Bash"}`) {
		t.Errorf("gemini answer: %s", gem)
	}

	if n := len(s.Requests()); n != 6 {
		t.Errorf("recorded %d requests, want 6", n)
	}
	if _, err := http.Get(s.URL + "/v1/models"); err != nil {
		t.Fatal(err)
	}
}
