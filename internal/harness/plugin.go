package harness

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/internal/paths"
)

// plugin is the protocol between ctxguard and the small plugins it installs into the harnesses
// whose pre-tool hooks are JavaScript functions rather than commands (opencode, Kilo Code, pi;
// the plugins are in shim/). Each plugin runs `ctxguard hook --harness NAME` with
// {harness, tool, session, cwd, args} on stdin, the tool call as the harness gives it to the plugin, and
// reads the answer: nothing for allow, else {decision: deny|ask|rewrite, reason, args}, where
// args are the whole tool arguments to run instead (rewrite, or the bound command an ask
// offers). A plugin refuses the call on anything else, including ctxguard failing to run.
type plugin struct {
	name   string
	shells shellTools // the harness's shell tools
	limits limits
}

func (p plugin) Name() string { return p.name }

func (p plugin) decode(top object, goos string) (*Request, error) {
	req := &Request{}
	if err := top.strs(field{"tool", &req.Tool}, field{"session", &req.Session}, field{"cwd", &req.Cwd}); err != nil {
		return nil, err
	}
	if req.Tool == "" {
		return nil, errors.New("missing tool")
	}
	args, _ := top.get("args")
	req, err := withShellArgs(req, goos, p.shells, args, "args")
	if err != nil || req.Shell == "" {
		return req, err
	}
	// opencode's bash tool runs in workdir when it is given, absolute or relative to the project.
	dir, _, err := req.args.str("workdir")
	if err != nil {
		return nil, fmt.Errorf("args: %w", err)
	}
	if dir = strings.TrimSpace(dir); dir != "" {
		req.Cwd = joinDir(req.Cwd, dir)
	}
	return req, nil
}

// pluginAnswer is what a plugin reads.
type pluginAnswer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	Args     object `json:"args,omitempty"`
}

func (o pluginAnswer) appendJSON(b []byte) []byte {
	var f fields
	f.str("decision", o.Decision, false)
	f.str("reason", o.Reason, true)
	f.obj("args", o.Args, len(o.Args) == 0)
	return f.object(b)
}

func (p plugin) Encode(w io.Writer, req *Request, a Answer) error {
	// Where the harness has no permission flow the plugin could defer to, a rewrite is simply
	// run: the plugin answers before the harness's own permission check, which still applies.
	d, err := decide(req, narrow(a, p.limits), "allow")
	if err != nil {
		return fmt.Errorf("answer %s: %w", p.name, err)
	}
	out := pluginAnswer{Decision: d.permission, Reason: d.reason, Args: d.args}
	switch {
	case d.permission == "":
		return nil
	case d.permission == "allow" && d.args != nil:
		out.Decision = "rewrite"
	case d.permission == "allow":
		return nil
	}
	if err := write(w, out); err != nil {
		return fmt.Errorf("answer %s: %w", p.name, err)
	}
	return nil
}

// pluginRefusal reads a plugin's answer for doctor.
func pluginRefusal(answer []byte) (string, error) {
	return refusal(answer, func(o *pluginAnswer) string { return o.Reason })
}

// pluginProbe is the payload a plugin sends for a harmless command of the shell tool.
func pluginProbe(name, tool string) func(_, command, cwd string) []byte {
	return func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"harness": name, "tool": tool, "session": "ctxguard-doctor", "cwd": cwd,
			"args": map[string]any{"command": command, "description": "ctxguard doctor self-test"},
		})
	}
}

// shimCall is the part every plugin shares: the function that runs ctxguard.
//
//go:embed shim/call.js
var shimCall string

// shim is a plugin's source (shim/NAME.js) for the binary at self, as one file: shim/call.js
// goes where the source says so, the binary's path in as a JavaScript string, and the harness's
// name wherever the source says HARNESS.
func shim(source, harness, self string) []byte {
	s := strings.Replace(source, "// ctxguard: call.js\n", shimCall, 1)
	s = strings.ReplaceAll(s, `"CTXGUARD_BINARY"`, strconv.Quote(self))
	return []byte(strings.ReplaceAll(s, "HARNESS", harness))
}

// joinDir is a tool's directory dir, or dir under base (the hook's cwd) when it is relative.
// Either system's absolute path counts as absolute: the payload may come from either.
func joinDir(base, dir string) string {
	if paths.IsAbs(dir, "linux") || paths.IsAbs(dir, "windows") || base == "" {
		return dir
	}
	return filepath.Join(base, dir)
}
