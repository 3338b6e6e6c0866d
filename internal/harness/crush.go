package harness

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// crush is Crush's PreToolUse hook (charmbracelet/crush docs/hooks/README.md). Its payload is
// {event, session_id, cwd, tool_name, tool_input} and its answer {decision, reason, context,
// updated_input}, where updated_input is merged over the tool's arguments.
//
// Crush cannot ask. Its decision allow is affirmative: it skips Crush's own permission prompt. A
// rewrite is therefore answered with updated_input and no decision, so that the bound command
// goes through the same prompt the original would have. The bash tool runs in Crush's embedded
// POSIX shell on every system, so its commands are read as bash.
type crush struct{}

var crushShells = shellTools{"bash": bashTool}

var crushLimits = limits{rewrite: true, ask: false}

func (crush) Name() string { return "crush" }

func (crush) decode(top object, goos string) (*Request, error) {
	// Crush accepts its event names in any case and snake_case (pre_tool_use).
	if event, ok, err := top.str("event"); err != nil {
		return nil, err
	} else if ok && !strings.EqualFold(strings.ReplaceAll(event, "_", ""), "PreToolUse") {
		return nil, fmt.Errorf("hook event is %s, want PreToolUse", event)
	}
	req := &Request{}
	if err := top.strs(field{"tool_name", &req.Tool}, field{"session_id", &req.Session}, field{"cwd", &req.Cwd}); err != nil {
		return nil, err
	}
	if req.Tool == "" {
		return nil, errors.New("missing tool_name")
	}
	input, _ := top.get("tool_input")
	return withShellArgs(req, goos, crushShells, input, "tool_input")
}

// crushOutput is Crush's answer. reason is what the model reads for a deny; context is added to
// what it sees after the tool runs.
type crushOutput struct {
	Decision     string `json:"decision,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Context      string `json:"context,omitempty"`
	UpdatedInput object `json:"updated_input,omitempty"`
}

func (o crushOutput) appendJSON(b []byte) []byte {
	var f fields
	f.str("decision", o.Decision, true)
	f.str("reason", o.Reason, true)
	f.str("context", o.Context, true)
	f.obj("updated_input", o.UpdatedInput, len(o.UpdatedInput) == 0)
	return f.object(b)
}

func (crush) Encode(w io.Writer, req *Request, a Answer) error {
	d, err := decide(req, narrow(a, crushLimits), "")
	if err != nil {
		return fmt.Errorf("answer crush: %w", err)
	}
	if d.permission == "" && d.args == nil {
		return nil
	}
	out := crushOutput{Decision: d.permission, Reason: d.reason, UpdatedInput: d.args}
	if d.args != nil {
		out.Reason, out.Context = "", d.reason
	}
	if err := write(w, out); err != nil {
		return fmt.Errorf("answer crush: %w", err)
	}
	return nil
}

// crushHook is a Crush hook entry: a flat list under each event, with the matcher (a regex on
// the tool name) on the handler; timeout in seconds.
type crushHook struct {
	Name    string `json:"name"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// crushSetup wires ctxguard into Crush. Crush merges every crush.json (and .crush.json) from the
// global config to the ones from the git root down to the working directory; the command runs in
// its embedded POSIX shell on every system, so it is quoted for sh even on Windows.
var crushSetup = Setup{
	Title:        "Crush",
	UserFile:     crushUserFile,
	ProjectFile:  "crush.json",
	Also:         []string{".crush.json"},
	WindowsShell: Embedded,
	Events:       []string{"PreToolUse"},
	Skeleton:     "{}\n",
	Entries: func(self string, o Options) []Entry {
		return []Entry{{"PreToolUse", compact(crushHook{
			Name: "ctxguard", Matcher: "^bash$", Command: hookLine(o.GOOS, Embedded, self, "hook", "--harness", "crush"), Timeout: timeout,
		})}}
	},
	// The machine's config and Crush's data config are merged too, and a crushrc is a shell
	// script whose output is config (internal/config/load.go).
	Others: func(home string, env func(string) (string, bool), goos string) []File {
		out := []File{
			{Path: ".crushrc", Project: true, What: "Crush's config script"},
			{Path: "crushrc", Project: true, What: "Crush's config script"},
		}
		if home != "" {
			h := filepath.ToSlash(home)
			data := fromEnv(env, "XDG_DATA_HOME", h+"/.local/share") + "/crush"
			if goos == "windows" {
				data = fromEnv(env, "LOCALAPPDATA", h+"/AppData/Local") + "/crush"
			}
			out = append(out,
				File{Path: path.Dir(crushUserFile(home, env)) + "/crushrc", What: "Crush's config script"},
				File{Path: fromEnv(env, "CRUSH_GLOBAL_DATA", data) + "/crush.json", What: "Crush's data config"})
		}
		if goos != "windows" {
			out = append(out, File{Path: "/etc/crush/crush.json", What: "Crush's system config"})
		}
		return out
	},
	Probe: func(_, command, cwd string) []byte {
		return compact(map[string]any{
			"event": "PreToolUse", "session_id": "ctxguard-doctor", "cwd": cwd, "tool_name": "bash",
			"tool_input": map[string]any{"command": command, "description": "ctxguard doctor self-test"},
		})
	},
	Refusal: func(answer []byte) (string, error) {
		return refusal(answer, func(o *crushOutput) string { return cmp.Or(o.Reason, o.Context) })
	},
}

// crushUserFile is $CRUSH_GLOBAL_CONFIG/crush.json, else ${XDG_CONFIG_HOME:-~/.config}/crush/crush.json
// on every system.
func crushUserFile(home string, env func(string) (string, bool)) string {
	if dir := fromEnv(env, "CRUSH_GLOBAL_CONFIG", ""); dir != "" {
		return dir + "/crush.json"
	}
	return xdgConfig(home, env) + "/crush/crush.json"
}
