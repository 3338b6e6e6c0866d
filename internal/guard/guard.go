package guard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/lift"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// Outcome is a decision and everything that explains it: the engine's result, and what the
// guard adds around it (the policy files, the rewritten line, the session).
type Outcome struct {
	// Result is the engine's. Verdict, Rule and Reason are the guard's own when something broke
	// before the engine ran (a policy that does not load) or after (a rewrite that does not
	// verify).
	rules.Result
	// Command is the line as it should run: rewritten when Verdict is rewrite, or when an ask
	// carries bindings; otherwise the input.
	Command   string
	Rewritten bool
	Input     string
	// Shell is the language the line was read in (rules.ShellBash or rules.ShellPowerShell),
	// which the harness adapter decided from the tool, the harness and the system.
	Shell     string
	Cwd       string
	Policies  []rules.PolicyFile
	Providers []string
	// RewriteMode is the policy's rewrite setting (SettingUnset: the harness decides).
	RewriteMode rules.Setting
	// Audit is the audit trail the policy asks for, also when a later layer does not load (the
	// deny is then recorded in the trail an earlier layer turned on).
	Audit audit.Trail
	// Session names the session whose memory was read ("" for none).
	Session string
	// Notes are things that a reader of the decision should know (session memory that could
	// not be read and was ignored, a lift file that was ignored).
	Notes []string
	// Warnings are the notes the hook prints on stderr as well: a lift file that was ignored.
	Warnings []string
	// Lifts are the lifts that let a rule's calls through.
	Lifts []lift.Lift
	// Unloaded is why the policy or a provider file did not load: the decision is then a deny,
	// or, with no policy anywhere, an allow with a note.
	Unloaded error
	// mem is the session's memory when it is on, opened once for the decision: [Outcome.Remember]
	// records the line's switches in it.
	mem *memory
}

// Decide decides one command line. It never fails: whatever goes wrong becomes a deny whose
// reason names the cause, because a guard that errors out is a guard that lets the call through.
func Decide(req rules.Request, env paths.Env) Outcome { return DecideWith(req, env, Override{}) }

// Override replaces what a decision would otherwise read from the machine: `ctxguard test` runs
// a policy file's tests against that file alone, with faked state and facts; `ctxguard explain`
// takes facts from its flags. The zero Override replaces nothing, which is what the hook uses.
type Override struct {
	// Policy is the policy to decide by, instead of the files found from the request's directory.
	Policy *policy.Policy
	// State reads the CLIs' state instead of their files.
	State rules.State
	// Facts replaces the machine's facts (the clock, the host name, the groups) for the
	// conditions; its zero fields are not known. Nil keeps the machine's.
	Facts *rules.Facts
	// Env is the environment the conditions and the state see, instead of the process's.
	Env func(string) (string, bool)
	// Providers are more providers to know, beside the catalog's: a provider file whose
	// examples `ctxguard test` runs before it is installed. A name the catalog has is an error.
	Providers []*spec.Spec
}

// DecideWith is Decide with parts of the machine replaced.
func DecideWith(req rules.Request, env paths.Env, ov Override) Outcome {
	out := Outcome{Input: req.Command, Command: req.Command, Shell: rules.ShellBash, Cwd: req.Cwd}
	if req.Shell == rules.ShellPowerShell {
		out.Shell = rules.ShellPowerShell
	}
	popts := policy.Options{Cwd: req.Cwd, Env: env}
	cat, err := catalog.Open(env)
	if err == nil {
		err = cat.AddSpecs(ov.Providers)
	}
	if err != nil {
		// A provider file the user is still writing must not stop every command in every
		// directory: where no policy applies, nothing would be checked anyway.
		if layers, lerr := policy.Layers(popts); lerr == nil && !found(layers) {
			out.Unloaded = err
			out.Notes = append(out.Notes, fmt.Sprintf("a provider file does not load (%v); it matters once a policy applies: run ctxguard validate", err))
			return out.none()
		}
		return out.unloaded("provider.error", "a provider file", err)
	}
	popts.Providers = cat.Names()
	pol := ov.Policy
	if pol == nil {
		pol, err = policy.Load(popts)
		if pol != nil {
			out.Audit = pol.Audit
		}
		if err != nil {
			return out.unloaded("policy.error", "a policy file", err)
		}
	}
	out.Policies, out.RewriteMode = pol.Files, pol.RewriteMode
	if len(pol.Files) == 0 {
		return out.none()
	}
	calls, err := parse(req)
	if err != nil {
		return out.deny("parse.error", fmt.Errorf("cannot parse the command line: %w — fix its shell syntax", err))
	}
	specs := specsFor(cat, calls)
	for _, sp := range specs {
		out.Providers = append(out.Providers, sp.Source)
	}
	self, ws := protection(popts, pol.Audit, cat, spec.Input{Env: env.Lookup, Dir: req.Cwd, Home: env.Home, System: env})
	in := rules.Input{
		Calls: calls, Policy: &pol.Policy, Providers: specs, State: ov.State, Quote: shell.For(req.Shell).Quote,
		Cwd: req.Cwd, Env: env.Lookup, Home: env.Home, System: env, Self: self, Writers: ws, Shell: req.Shell,
		Facts: facts(req, ov.Facts), Writes: written(req, pol),
	}
	if in.State == nil {
		in.State = providers.NewReader()
	}
	if ov.Env != nil {
		in.Env = ov.Env
	}
	mem, note := openMemory(req, env, pol)
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	if mem != nil {
		in.Remembered = mem.recall
		out.Session, out.mem = mem.name, mem
	}
	lifts := newLifter(req, env, pol)
	in.Lifted = lifts.lifted
	res := rules.Evaluate(in)
	out.Result = res
	if mem != nil {
		out.Notes = append(out.Notes, mem.notes...)
	}
	out.Lifts, out.Notes, out.Warnings = lifts.applied, append(out.Notes, lifts.notes...), lifts.notes
	if len(res.Edits) > 0 && res.Verdict < rules.VerdictDeny {
		line, err := shell.For(req.Shell).RewriteCalls(req.Command, calls, res.Edits)
		if err != nil {
			return out.deny("rewrite.unsafe", fmt.Errorf("the bound command does not parse the same way (%v); run each call with its binding instead: %s", err, fixes(res.Calls)))
		}
		out.Command, out.Rewritten = line, true
	}
	return out
}

func (o Outcome) none() Outcome {
	o.Rule, o.Reason = "policy.none", "no ctxguard policy applies here, so every command is allowed"
	return o
}

// unloaded denies because what a file says cannot be known. The agent may not edit ctxguard's
// own files, so the way out is the user's.
func (o Outcome) unloaded(rule, what string, err error) Outcome {
	o.Unloaded = err
	sep := " "
	if strings.Contains(err.Error(), "\n") {
		sep = "\n"
	}
	return o.deny(rule, fmt.Errorf("%w%s— ctxguard denies every command while %s does not load: ask the user to correct it (`ctxguard validate` lists every problem)", err, sep, what))
}

func found(layers []policy.Layer) bool {
	for _, l := range layers {
		if l.Found {
			return true
		}
	}
	return false
}

func (o Outcome) deny(rule string, err error) Outcome {
	o.Verdict, o.Rule = rules.VerdictDeny, rule
	o.Reason = fmt.Sprintf("[ctxguard/%s] %v", rule, err)
	return o
}

// fixes lists the calls as they should be written, each in backticks.
func fixes(calls []rules.CallTrace) string {
	var out []string
	for _, c := range calls {
		if f := "`" + c.Fixed + "`"; c.Fixed != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return "name the context on each call explicitly"
	}
	return strings.Join(out, ", ")
}

// specsFor picks the providers that the line's calls need: those that guard a command word in
// it (or switch another's context from it), and those a non-literal command word may name.
// Most lines need none, and the engine only looks at what it is given.
func specsFor(cat *catalog.Catalog, calls []rules.Call) []*spec.Spec {
	var out []*spec.Spec
	seen := map[string]bool{}
	for _, c := range calls {
		words := []string{strings.ToLower(c.Name)}
		if c.Name == "" {
			words = rules.Words(c.NameWord.Value)
		}
		for _, w := range words {
			if seen[w] {
				continue
			}
			seen[w] = true
			for _, s := range cat.For(w) {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
