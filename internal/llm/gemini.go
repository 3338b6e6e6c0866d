package llm

import "encoding/json"

// gemini is the Gemini API (POST /v1beta/models/MODEL:generateContent, and
// :streamGenerateContent for a stream), which Gemini CLI calls.
type gemini struct{}

type geminiContents struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			FunctionCall     json.RawMessage `json:"functionCall"`
			FunctionResponse *struct {
				ID       string          `json:"id"`
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
}

func (gemini) calls(body []byte) (int, error) {
	var req geminiContents
	err := json.Unmarshal(body, &req)
	n := 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if c.Role == "model" && p.FunctionCall != nil {
				n++
			}
		}
	}
	return n, err
}

func (gemini) results(body []byte) ([]ToolResult, error) {
	var req geminiContents
	err := json.Unmarshal(body, &req)
	var out []ToolResult
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if r := p.FunctionResponse; r != nil {
				out = append(out, ToolResult{ID: r.ID, Content: string(r.Response)})
			}
		}
	}
	return out, err
}

func (gemini) response(id string, step Step, input []byte) []byte {
	part := map[string]any{"text": step.Text}
	if step.Tool != "" {
		part = map[string]any{"functionCall": map[string]any{"id": id, "name": step.Tool, "args": json.RawMessage(input)}}
	}
	return mustJSON(map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "scripted",
	})
}

func (g gemini) whole(id string, step Step, input []byte) []byte { return g.response(id, step, input) }

func (g gemini) events(id string, step Step, input []byte) []event {
	return []event{{"", g.response(id, step, input)}}
}
