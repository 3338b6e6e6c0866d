// Command llm serves the scripted model of internal/llm on 127.0.0.1, to run an agent
// client by hand against it:
//
//	go run ./internal/cmd/llm -script steps.json -log requests.jsonl
//
// steps.json is a list of steps, [{"tool":"Bash","input":{"command":"az group list"}},
// {"text":"done."}]. The program prints the server's URL, then serves until it is interrupted,
// and writes every request it received, one JSON object a line, to the log.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctxguard/ctxguard/internal/llm"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "model: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	script := flag.String("script", "", "a JSON file with the list of steps")
	log := flag.String("log", "", "where to write the requests when interrupted (default: stderr)")
	flag.Parse()
	var steps []llm.Step
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			return err
		}
		var raw []struct {
			Tool  string          `json:"tool"`
			Input json.RawMessage `json:"input"`
			Text  string          `json:"text"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return fmt.Errorf("%s: %w", *script, err)
		}
		for _, s := range raw {
			steps = append(steps, llm.Step{Tool: s.Tool, Input: s.Input, Text: s.Text})
		}
	}
	srv, err := llm.Start(steps...)
	if err != nil {
		return err
	}
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
	out := os.Stderr
	if *log != "" {
		if out, err = os.Create(*log); err != nil {
			return err
		}
		defer out.Close()
	}
	enc := json.NewEncoder(out)
	for _, r := range srv.Requests() {
		if err := enc.Encode(map[string]any{"path": r.Path, "body": r.Body}); err != nil {
			return err
		}
	}
	return nil
}
