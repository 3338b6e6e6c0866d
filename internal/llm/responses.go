package llm

import "encoding/json"

// responses is the OpenAI Responses API (POST /v1/responses), which Codex CLI calls.
type responses struct{}

type responsesInput struct {
	Input []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
}

// callItems are the input item types that are calls the model made.
var callItems = map[string]bool{"function_call": true, "custom_tool_call": true, "local_shell_call": true}

func (responses) calls(body []byte) (int, error) {
	var req responsesInput
	err := json.Unmarshal(body, &req)
	n := 0
	for _, it := range req.Input {
		if callItems[it.Type] {
			n++
		}
	}
	return n, err
}

func (responses) results(body []byte) ([]ToolResult, error) {
	var req responsesInput
	err := json.Unmarshal(body, &req)
	var out []ToolResult
	for _, it := range req.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			out = append(out, ToolResult{ID: it.CallID, Content: flatten(it.Output)})
		}
	}
	return out, err
}

func (responses) item(id string, step Step, input []byte) map[string]any {
	if step.Tool == "" {
		return map[string]any{
			"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}},
		}
	}
	if step.Freeform {
		return map[string]any{
			"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": step.Tool,
			"input": step.Text, "status": "completed",
		}
	}
	return map[string]any{
		"type": "function_call", "id": "fc_" + id, "call_id": id, "name": step.Tool,
		"arguments": string(input), "status": "completed",
	}
}

func (r responses) response(id string, output []any) map[string]any {
	return map[string]any{
		"id": "resp_" + id, "object": "response", "created_at": 0, "status": "completed", "model": "scripted",
		"output": output,
		"usage":  map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
	}
}

func (r responses) whole(id string, step Step, input []byte) []byte {
	return mustJSON(r.response(id, []any{r.item(id, step, input)}))
}

func (r responses) events(id string, step Step, input []byte) []event {
	item := r.item(id, step, input)
	ev := func(name string, data map[string]any) event {
		data["type"] = name
		return event{name, mustJSON(data)}
	}
	created := r.response(id, []any{})
	created["status"] = "in_progress"
	return []event{
		ev("response.created", map[string]any{"response": created}),
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": item}),
		ev("response.output_item.done", map[string]any{"output_index": 0, "item": item}),
		ev("response.completed", map[string]any{"response": r.response(id, []any{item})}),
	}
}
