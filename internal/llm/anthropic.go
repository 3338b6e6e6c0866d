package llm

import "encoding/json"

// anthropic is the Anthropic Messages API (POST /v1/messages), which Claude Code calls.
type anthropic struct{}

type anthropicMessages struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// blocks reads a request's messages as content blocks (a string content has none).
func (anthropic) blocks(body []byte, role string) ([]anthropicBlock, error) {
	var req anthropicMessages
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []anthropicBlock
	for _, m := range req.Messages {
		var bs []anthropicBlock
		if m.Role != role || json.Unmarshal(m.Content, &bs) != nil {
			continue
		}
		out = append(out, bs...)
	}
	return out, nil
}

func (a anthropic) calls(body []byte) (int, error) {
	bs, err := a.blocks(body, "assistant")
	n := 0
	for _, b := range bs {
		if b.Type == "tool_use" {
			n++
		}
	}
	return n, err
}

func (a anthropic) results(body []byte) ([]ToolResult, error) {
	bs, err := a.blocks(body, "user")
	var out []ToolResult
	for _, b := range bs {
		if b.Type == "tool_result" {
			out = append(out, ToolResult{ID: b.ToolUseID, Content: flatten(b.Content), IsError: b.IsError})
		}
	}
	return out, err
}

func (anthropic) block(id string, step Step, input []byte) (map[string]any, string) {
	if step.Tool == "" {
		return map[string]any{"type": "text", "text": step.Text}, "end_turn"
	}
	return map[string]any{"type": "tool_use", "id": id, "name": step.Tool, "input": json.RawMessage(input)}, "tool_use"
}

func (a anthropic) message(id string, content []any, stop any) map[string]any {
	return map[string]any{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": "scripted",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 1, "output_tokens": 1},
	}
}

func (a anthropic) whole(id string, step Step, input []byte) []byte {
	b, stop := a.block(id, step, input)
	return mustJSON(a.message(id, []any{b}, stop))
}

func (a anthropic) events(id string, step Step, input []byte) []event {
	b, stop := a.block(id, step, input)
	start := map[string]any{}
	var delta map[string]any
	for k, v := range b {
		start[k] = v
	}
	if step.Tool == "" {
		start["text"] = ""
		delta = map[string]any{"type": "text_delta", "text": step.Text}
	} else {
		start["input"] = map[string]any{}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
	}
	ev := func(name string, data map[string]any) event {
		data["type"] = name
		return event{name, mustJSON(data)}
	}
	return []event{
		ev("message_start", map[string]any{"message": a.message(id, []any{}, nil)}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": start}),
		ev("content_block_delta", map[string]any{"index": 0, "delta": delta}),
		ev("content_block_stop", map[string]any{"index": 0}),
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}}),
		ev("message_stop", map[string]any{}),
	}
}
