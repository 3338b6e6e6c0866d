// Package llm is a scripted language model on 127.0.0.1, for running real agent clients
// offline: it answers the model APIs the clients call (Anthropic Messages, OpenAI chat
// completions, OpenAI Responses and Gemini's generateContent, streamed or not) by following a script of tool calls, and
// records every request, so that a test can read what the client told the model, such as the
// result of a tool call a hook refused.
//
// The server keeps no session: each request carries the whole conversation, and the next step
// of the script is the number of tool calls the model already made in it. A client that sends
// side requests (a title, a summary) gets the same step as the main loop would; the recorded
// conversation of the last request is what matters.
package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Step is one turn of the model: a call of Tool with Input, or, when Tool is "", a final Text.
type Step struct {
	Tool  string
	Input any // encoded as JSON: a map, a struct or json.RawMessage
	Text  string
	// Freeform is set for a call of a freeform tool (an OpenAI Responses custom tool, such as
	// Codex's apply_patch), whose input is Text as it is, not JSON.
	Freeform bool
}

// Call is a tool call step.
func Call(tool string, input any) Step { return Step{Tool: tool, Input: input} }

// FreeformCall is a call of a freeform tool with text as its input (Responses API only).
func FreeformCall(tool, text string) Step { return Step{Tool: tool, Text: text, Freeform: true} }

// Say is a step that ends the turn with text.
func Say(text string) Step { return Step{Text: text} }

// Request is one recorded request.
type Request struct {
	Path string
	Body json.RawMessage
}

// Server is a running scripted model.
type Server struct {
	URL string // http://127.0.0.1:PORT, without a trailing slash

	srv    *http.Server
	script []Step

	mu       sync.Mutex
	requests []Request
}

// Start serves script on a free port of 127.0.0.1. The script's last step is repeated once the
// conversation has more tool calls than the script; a script that does not end with text gets
// a final "done."
func Start(script ...Step) (*Server, error) {
	if len(script) == 0 || script[len(script)-1].Tool != "" {
		script = append(script, Say("done."))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	api := wireOf(r.URL.Path)
	if api == nil || r.Method != http.MethodPost {
		http.Error(w, "the scripted model serves only POST to messages, chat completions, responses and generateContent", http.StatusNotFound)
		return
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Stream = req.Stream || strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	n, err := api.calls(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	step := s.script[min(n, len(s.script)-1)]
	input := []byte("{}")
	if step.Tool != "" && step.Input != nil {
		if input, err = json.Marshal(step.Input); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	id := fmt.Sprintf("call_%02d", n+1)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(api.whole(id, step, input))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range api.events(id, step, input) {
		if e.name != "" {
			fmt.Fprintf(w, "event: %s\n", e.name)
		}
		fmt.Fprintf(w, "data: %s\n\n", e.data)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// wireOf is the API a request path belongs to, nil for none.
func wireOf(path string) wire {
	switch {
	case strings.HasSuffix(path, "/messages"):
		return anthropic{}
	case strings.HasSuffix(path, "/chat/completions"):
		return chat{}
	case strings.HasSuffix(path, "/responses"):
		return responses{}
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return gemini{}
	}
	return nil
}

// wire is one model API.
type wire interface {
	// calls counts the tool calls the model has made in the conversation of a request body.
	calls(body []byte) (int, error)
	// whole is the answer to a request that is not streamed.
	whole(id string, step Step, input []byte) []byte
	// events is the streamed answer.
	events(id string, step Step, input []byte) []event
	// results reads the tool results in the conversation of a request body.
	results(body []byte) ([]ToolResult, error)
}

type event struct {
	name string
	data []byte
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ToolResult is what a client told the model about one tool call.
type ToolResult struct {
	ID      string
	Content string
	IsError bool
}

// Results returns the tool results in the conversation of the last request of any API, in
// order.
func (s *Server) Results() []ToolResult {
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if api := wireOf(reqs[i].Path); api != nil {
			if out, err := api.results(reqs[i].Body); err == nil {
				return out
			}
		}
	}
	return nil
}

// Result returns the result of the n-th tool call (1-based), as the model was told it.
func (s *Server) Result(n int) (ToolResult, error) {
	id := fmt.Sprintf("call_%02d", n)
	for _, r := range s.Results() {
		if r.ID == id {
			return r, nil
		}
	}
	return ToolResult{}, errors.New("the client never told the model the result of " + id)
}

// flatten turns a content value (a string, or a list of blocks with text) into its text.
func flatten(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		} else if b.Content != nil {
			parts = append(parts, flatten(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}
