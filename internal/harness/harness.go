package harness

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/ctxguard/ctxguard/rules"
)

// Request is a decoded hook payload: the harness-neutral [rules.Request] and what the adapter
// needs to answer it.
//
// Decode returns a Request whose Shell is "" for a tool call that is not a shell command, without
// an error, so that the caller can stay silent: a hook configured with a broad matcher must not
// deny every other tool.
type Request struct {
	rules.Request

	// args is the tool input exactly as sent, kept so that a rewrite can echo every field.
	args object
	// event is the hook event, for a harness whose events answer differently (Cursor).
	event string
}

// Answer is ctxguard's decision in harness-neutral terms.
type Answer struct {
	Verdict rules.Verdict
	Reason  string
	// Command is the bound command of a rewrite, or the rewritten line an ask carries so that what
	// the human approves is the bound command ("" = unchanged).
	Command string
	// ConfirmRewrite is set when the policy has a human confirm every bound command (rewrite:
	// ask); otherwise a rewrite leaves the decision to the harness's own rules, as for the
	// original command.
	ConfirmRewrite bool
}

// Blocked is the answer of a harness that reads only the hook's exit code (Windsurf): its
// adapter's Encode returns it for a deny, and the hook then exits 2 with Reason on stderr, which
// is what the agent reads.
type Blocked struct{ Reason string }

func (b Blocked) Error() string { return b.Reason }

// Harness is one agent harness's hook protocol.
type Harness interface {
	// Name is the name used on the command line (--harness) and in Request.Harness.
	Name() string
	// decode reads one hook payload, already parsed, as the harness sends it on goos, whose
	// shell a tool may run in (PowerShell on Windows); [Decode] names the harness in the request
	// and in the error, and adds the facts read by harness name ([Unattended], [Subagent]).
	decode(top object, goos string) (*Request, error)
	// Encode writes the harness's answer: nothing at all for allow, otherwise exactly one JSON
	// object followed by a newline, or, for a harness that reads only the exit code, returns
	// [Blocked]. req is the request being answered; a rewrite (or an ask that carries a command)
	// needs it to echo the original tool arguments.
	Encode(w io.Writer, req *Request, a Answer) error
}

// registry is every harness ctxguard knows: its protocol and how it is wired in, in the order of
// [Names]. Each setup's Harness is its protocol's Name.
var registry = register([]registered{
	{claude, &claudeSetup}, {copilot{}, &copilotSetup}, {gemini{}, &geminiSetup},
	{cursor{}, &cursorSetup}, {codex, &codexSetup}, {windsurf{}, &windsurfSetup},
	{cline{}, &clineSetup}, {opencode, &opencodeSetup}, {kilo, &kiloSetup}, {pi, &piSetup},
	{qwen, &qwenSetup}, {droid, &droidSetup}, {crush{}, &crushSetup}, {goose{}, &gooseSetup},
})

type registered struct {
	Harness
	setup *Setup
}

func register(r []registered) []registered {
	for _, h := range r {
		h.setup.Harness = h.Name()
	}
	return r
}

// Lookup returns the harness with the given name.
func Lookup(name string) (Harness, bool) {
	i := slices.IndexFunc(registry, func(h registered) bool { return h.Name() == name })
	if i < 0 {
		return nil, false
	}
	return registry[i].Harness, true
}

// Names lists the known harness names, for usage messages.
func Names() []string {
	names := make([]string, len(registry))
	for i, h := range registry {
		names[i] = h.Name()
	}
	return names
}

// Decode reads one hook payload for h. It fails on a payload that is not JSON, has the wrong
// shape, or is a shell tool call without a command; for a tool that is not a shell it returns a
// Request with Shell "".
//
// The payload is read as on this system, which is the harness's.
func Decode(h Harness, data []byte) (*Request, error) { return decodeOn(h, data, runtime.GOOS) }

func decodeOn(h Harness, data []byte, goos string) (*Request, error) {
	top, err := parseObject(data)
	if err != nil {
		return nil, fmt.Errorf("read %s payload: %w", h.Name(), err)
	}
	return decode(h, top, goos)
}

// decode has h read a parsed payload, and completes the request with what every harness's has.
func decode(h Harness, top object, goos string) (*Request, error) {
	req, err := h.decode(top, goos)
	if err != nil {
		return nil, fmt.Errorf("read %s payload: %w", h.Name(), err)
	}
	req.Harness = h.Name()
	req.Subagent = Subagent(req.Harness, req.Agent)
	req.Unattended = Unattended(req.Harness, req.Mode, req.Tool)
	return req, nil
}

// Detect reads one hook payload for a hook configured without --harness, parsing it once: it
// picks the harness from the payload's shape and decodes the payload for it, as [Decode] does.
// The harness is nil when the payload says none (then ctxguard cannot answer in any protocol);
// with a harness, err is a payload that harness cannot use.
//
//   - Copilot CLI's native payload has toolName and toolArgs.
//   - Gemini CLI's event is BeforeTool; Cursor's are beforeShellExecution and preToolUse (lower
//     case p), and its payloads carry conversation_id and cursor_version.
//   - Claude Code's has tool_name, tool_input and hook_event_name PreToolUse. Codex CLI sends the
//     same shape plus turn_id (and model, which Claude Code's PreToolUse payload lacks); it goes to
//     the codex adapter, which cannot ask.
//   - Copilot's VS Code-compatible payload (a hook configured under the PascalCase event
//     PreToolUse, which is also how Copilot runs the hooks it finds in .claude/settings.json)
//     uses Claude Code's snake_case names, but it carries a timestamp and none of the fields
//     Claude Code always sends (permission_mode, transcript_path, tool_use_id). It goes to the
//     copilot adapter, because the answer must be in the format of the harness that reads it, and
//     Copilot documents only its own top-level permissionDecision.
//   - Qwen Code and Factory Droid send Claude Code's shape too; their shell tools' names
//     (run_shell_command with PreToolUse, Execute) tell them apart.
//   - Windsurf's payload has agent_action_name; Cline's preToolUse; Crush's and goose's an event
//     (goose's also working_dir); ctxguard's own plugins name their harness.
func Detect(data []byte) (Harness, *Request, error) {
	top, err := parseObject(data)
	if err != nil {
		return nil, nil, fmt.Errorf("detect harness: %w", err)
	}
	h, err := detect(top)
	if err != nil {
		return nil, nil, err
	}
	req, err := decode(h, top, runtime.GOOS)
	return h, req, err
}

// detect picks the harness from the payload's shape (see [Detect]).
func detect(top object) (Harness, error) {
	event, _, _ := top.str("hook_event_name")
	switch {
	case top.has("toolArgs") || top.has("toolName"):
		return copilot{}, nil
	case event == "BeforeTool":
		return gemini{}, nil
	case event == cursorShellEvent || event == cursorToolEvent || event == "" && top.has("conversation_id") && top.has("command"):
		return cursor{}, nil
	case top.has("harness"):
		// A payload from one of ctxguard's plugins, which names its harness.
		name, _, _ := top.str("harness")
		if h, ok := Lookup(name); ok {
			if _, isPlugin := h.(plugin); isPlugin {
				return h, nil
			}
		}
		return nil, fmt.Errorf("detect harness: the payload names %q, which is not a harness ctxguard has a plugin for", name)
	case top.has("agent_action_name"):
		return windsurf{}, nil
	case top.has("preToolUse") || top.has("clineVersion"):
		return cline{}, nil
	case event == "" && top.has("event"):
		if top.has("working_dir") || top.has("matcher_context") {
			return goose{}, nil
		}
		return crush{}, nil
	case top.has("tool_input") || event != "":
		tool, _, _ := top.str("tool_name")
		switch {
		case isCopilotSnakeCase(top):
			return copilot{}, nil
		case top.has("turn_id") || top.has("model"):
			return codex, nil
		case tool == "run_shell_command":
			return qwen, nil
		case tool == "Execute":
			return droid, nil
		}
		return claude, nil
	}
	return nil, errors.New("detect harness: payload has none of the fields that tell the harness; name it with --harness")
}

// isCopilotSnakeCase reports whether a snake_case payload comes from Copilot CLI rather than
// Claude Code (see Detect).
func isCopilotSnakeCase(top object) bool {
	return top.has("timestamp") && !top.has("permission_mode") && !top.has("transcript_path") && !top.has("tool_use_id")
}

// decision is an answer reduced to what every harness writes: a permission decision ("" for
// allow, which is silence), a reason, and the tool arguments to run instead (nil: unchanged).
type decision struct {
	permission string
	reason     string
	args       object
}

// decide turns an answer into a decision.
//
// A rewrite carries no permission decision: it changes what runs, and the harness's own modes
// and rules decide whether, on the bound command, exactly as they would have on the original.
// Measured with the real clients (Claude Code 2.1.328 and 2.1.138, Copilot CLI 1.0.102): an
// answer of allow made a call run that the user's settings refuse (Claude Code's dontAsk and
// auto modes, Copilot without --allow-all-tools or with --deny-tool), and an answer of ask
// refused one the user had allowed (permissions.allow), while a rewrite with no decision was
// applied and then judged by the client's own rules in every mode. rewriteDecision is for a
// harness that applies a rewrite only together with a decision (Codex: allow, which it follows
// with its own rules); "" for the others.
func decide(req *Request, a Answer, rewriteDecision string) (decision, error) {
	d := decision{reason: a.Reason}
	switch a.Verdict {
	case rules.VerdictAllow:
		return decision{}, nil
	case rules.VerdictDeny:
		// The reason is what the agent reads; Copilot CLI requires one, and an answer it rejects
		// counts as no answer, which would let the command run.
		d.permission = "deny"
		if d.reason == "" {
			d.reason = "ctxguard denied this command"
		}
		return d, nil
	case rules.VerdictAsk:
		d.permission = "ask"
	case rules.VerdictRewrite:
		if a.Command == "" {
			return d, errors.New("rewrite without a command")
		}
		d.permission = rewriteDecision
		if a.ConfirmRewrite {
			d.permission = "ask"
		}
	default:
		return d, fmt.Errorf("unknown verdict %v", a.Verdict)
	}
	if a.Command != "" {
		if req == nil || req.args == nil {
			return d, errors.New("a rewritten command needs the decoded request it answers")
		}
		d.args = req.args.with("command", a.Command)
	}
	return d, nil
}
