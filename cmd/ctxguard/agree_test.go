package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateAgreesWithHook puts each file of testdata/agree in each place a hook run reads it
// from, and runs both `ctxguard validate` and the hook (for a harmless command) on the same
// machine: validate must report the file broken exactly when the hook denies naming it, so that
// a user who checks a file before committing it never meets a different verdict from the hook.
// A provider file is also tried with no policy anywhere, where the hook must stay inert (allow)
// while validate still reports it.
func TestValidateAgreesWithHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it a hundred times")
	}
	type place struct {
		name string
		kind string // policy or provider
		// path is where the file goes; policy is a good project policy to add, or "".
		path, policy string
		inert        bool // no policy applies: the hook allows whatever the file says
	}
	const good = "version: 1\ncontexts:\n  az:\n    allow: [Contoso-Dev]\n"
	places := []place{
		{name: "project", kind: "policy", path: ".ctxguard.yaml"},
		{name: "user", kind: "policy", path: "~/.config/ctxguard/policy.yaml"},
		{name: "managed", kind: "policy", path: "/etc/ctxguard/policy.yaml"},
		{name: "providers", kind: "provider", path: "~/.config/ctxguard/providers/p.yaml", policy: good},
		{name: "providers, no policy", kind: "provider", path: "~/.config/ctxguard/providers/p.yaml", inert: true},
	}
	counts := map[string]int{}
	for _, pl := range places {
		dir := filepath.Join("..", "..", "testdata", "agree", pl.kind)
		names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil || len(names) == 0 {
			t.Fatalf("no corpus in %s: %v", dir, err)
		}
		for _, name := range names {
			base := filepath.Base(name)
			t.Run(pl.name+"/"+base, func(t *testing.T) {
				data, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				m := newMachine(t)
				if err := m.write(pl.path, string(data)); err != nil {
					t.Fatal(err)
				}
				if pl.policy != "" {
					if err := m.write(".ctxguard.yaml", pl.policy); err != nil {
						t.Fatal(err)
					}
				}
				file := strings.TrimPrefix(m.expand(pl.path), m.root)

				out, code, err := m.ctxguard(nil, "validate")
				if err != nil {
					t.Fatal(err)
				}
				broken := code != 0
				if code != 0 && code != 1 {
					t.Fatalf("validate exits %d:\n%s", code, out)
				}
				if broken && !strings.Contains(out, file+":") && !strings.Contains(out, file+" ") {
					t.Errorf("validate reports a problem without naming %s:\n%s", file, out)
				}
				if want := strings.HasPrefix(base, "bad-"); broken != want {
					t.Errorf("validate says broken=%v, the corpus says %v:\n%s", broken, want, out)
				}

				payload, _ := json.Marshal(map[string]any{
					"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": m.repo, "permission_mode": "default",
					"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "echo ok"}, "tool_use_id": "t1",
				})
				answer, code, err := m.ctxguard(bytes.NewReader(payload), "hook", "--harness", "claude")
				if err != nil || code != 0 {
					t.Fatalf("hook exits %d (%v):\n%s", code, err, answer)
				}
				var a struct {
					Hook struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
				}
				if answer != "" {
					if err := json.Unmarshal([]byte(answer), &a); err != nil {
						t.Fatalf("the hook's answer is not JSON: %v\n%s", err, answer)
					}
				}
				denied := a.Hook.PermissionDecision == "deny"
				switch {
				case pl.inert && denied:
					t.Errorf("with no policy anywhere the hook denies:\n%s", answer)
				case pl.inert:
				case denied != broken:
					t.Errorf("validate says broken=%v but the hook denied=%v:\nvalidate: %s\nhook: %s", broken, denied, out, answer)
				case denied && !strings.Contains(a.Hook.PermissionDecisionReason, file):
					t.Errorf("the hook denies without naming %s: %s", file, answer)
				}
				counts[pl.name+" "+map[bool]string{true: "broken", false: "good"}[broken]]++
			})
		}
	}
	for _, pl := range places {
		if counts[pl.name+" broken"] < 5 || counts[pl.name+" good"] < 2 {
			t.Errorf("%s: %d broken and %d good files: the corpus is too small to mean anything", pl.name, counts[pl.name+" broken"], counts[pl.name+" good"])
		}
	}
}
