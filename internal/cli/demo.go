package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
)

func runDemo(c *runner, args []string) error {
	if err := parse(flags("demo"), args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ctxguard-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := unpack(builtin.Demo(), dir); err != nil {
		return err
	}
	repo := filepath.Join(dir, "repo")
	if err := os.Rename(filepath.Join(repo, "ctxguard.yaml"), filepath.Join(repo, policy.ProjectFile)); err != nil {
		return err
	}
	home := filepath.Join(dir, "home")
	// The home on every system: HOME, and on Windows USERPROFILE, where az and ctxguard find it,
	// and the application data folders in it.
	vars := map[string]string{
		"HOME": home, "USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData", "Roaming"),
		"LOCALAPPDATA":            filepath.Join(home, "AppData", "Local"),
		"CTXGUARD_MANAGED_POLICY": filepath.Join(dir, "no-managed-policy.yaml"),
	}
	demo := &runner{stderr: c.stderr, env: paths.Env{Home: home, OS: c.env.OS, Lookup: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}}}
	intro, err := fs.ReadFile(builtin.Demo(), "intro.txt")
	if err != nil {
		return err
	}
	c.stdout.Write(intro)
	for _, line := range demoLines() {
		payload, _ := json.Marshal(map[string]any{
			"session_id": "demo", "cwd": repo, "permission_mode": "auto", "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": line, "description": "demo"}, "tool_use_id": "demo",
		})
		var out bytes.Buffer
		demo.stdin, demo.stdout = bytes.NewReader(payload), &out
		code := demo.hook([]string{"--harness", "claude"})
		fmt.Fprintf(c.stdout, "$ %s\n%s\n", line, summarize(out.Bytes(), code))
	}
	return nil
}

// demoLines returns the command lines of the embedded demo.
func demoLines() []string {
	data, _ := fs.ReadFile(builtin.Demo(), "commands.txt")
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// summarize turns the hook's JSON answer back into a few readable lines.
func summarize(out []byte, code int) string {
	if code != hookAnswered {
		return fmt.Sprintf("  blocked (exit %d)\n", code)
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return "  allow: no answer, so the harness's normal permission flow goes on\n"
	}
	var a struct {
		Hook struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			Input    struct {
				Command string `json:"command"`
			} `json:"updatedInput"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return "  " + string(out)
	}
	var b strings.Builder
	reason := a.Hook.Reason
	switch {
	case a.Hook.Input.Command != "" && a.Hook.Decision == "":
		fmt.Fprintf(&b, "  rewrite (no decision: the harness's rules decide): %s", a.Hook.Input.Command)
		reason = a.Hook.Context
	case a.Hook.Input.Command != "":
		fmt.Fprintf(&b, "  %s: %s", a.Hook.Decision, a.Hook.Input.Command)
	default:
		fmt.Fprintf(&b, "  %s", a.Hook.Decision)
	}
	fmt.Fprintf(&b, "\n  %s\n", strings.ReplaceAll(reason, "\n", "\n  "))
	return b.String()
}

// unpack copies an fs.FS into dir.
func unpack(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
