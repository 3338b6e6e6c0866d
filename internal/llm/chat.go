package llm

import "encoding/json"

// chat is the OpenAI chat completions API (POST /v1/chat/completions), which Copilot CLI calls
// with a provider of its own.
type chat struct{}

type chatMessages struct {
	Messages []struct {
		Role       string            `json:"role"`
		Content    json.RawMessage   `json:"content"`
		ToolCalls  []json.RawMessage `json:"tool_calls"`
		ToolCallID string            `json:"tool_call_id"`
	} `json:"messages"`
}

func (chat) calls(body []byte) (int, error) {
	var req chatMessages
	err := json.Unmarshal(body, &req)
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n += len(m.ToolCalls)
		}
	}
	return n, err
}

func (chat) results(body []byte) ([]ToolResult, error) {
	var req chatMessages
	err := json.Unmarshal(body, &req)
	var out []ToolResult
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, ToolResult{ID: m.ToolCallID, Content: flatten(m.Content)})
		}
	}
	return out, err
}

func (chat) message(id string, step Step, input []byte) (map[string]any, string) {
	if step.Tool == "" {
		return map[string]any{"role": "assistant", "content": step.Text}, "stop"
	}
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"index": 0, "id": id, "type": "function",
		"function": map[string]any{"name": step.Tool, "arguments": string(input)},
	}}}, "tool_calls"
}

var chatUsage = map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}

func (c chat) whole(id string, step Step, input []byte) []byte {
	m, finish := c.message(id, step, input)
	return mustJSON(map[string]any{
		"id": "chatcmpl-" + id, "object": "chat.completion", "created": 0, "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": m, "finish_reason": finish}},
		"usage":   chatUsage,
	})
}

func (c chat) events(id string, step Step, input []byte) []event {
	m, finish := c.message(id, step, input)
	chunk := func(choices []any, usage any) event {
		return event{"", mustJSON(map[string]any{
			"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 0, "model": "scripted",
			"choices": choices, "usage": usage,
		})}
	}
	return []event{
		chunk([]any{map[string]any{"index": 0, "delta": m, "finish_reason": nil}}, nil),
		chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil),
		chunk([]any{}, chatUsage),
		{"", []byte("[DONE]")},
	}
}
