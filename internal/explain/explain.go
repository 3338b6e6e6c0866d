package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/lift"
	"github.com/ctxguard/ctxguard/rules"
)

// report is the JSON form of an outcome.
type report struct {
	Decision  rules.Verdict      `json:"decision"`
	Rule      string             `json:"rule"`
	Reason    string             `json:"reason"`
	Command   string             `json:"command"`
	Input     string             `json:"input"`
	Shell     string             `json:"shell"`
	Cwd       string             `json:"cwd"`
	Calls     []rules.CallTrace  `json:"calls"`
	Policies  []rules.PolicyFile `json:"policies"`
	Providers []string           `json:"providers"`
	// Session is the session whose memory was read, and Notes what went wrong reading it.
	Session string   `json:"session,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Lifts are the lifts that let a rule's calls through.
	Lifts []lift.Lift `json:"lifts,omitempty"`
	// Facts are what the rules' conditions read ("not known" for a fact that was not).
	Facts map[string]string `json:"facts,omitempty"`
	// LoadError is why the policy or a provider file did not load.
	LoadError string `json:"load_error,omitempty"`
}

// JSON writes the outcome as one indented JSON object.
func JSON(w io.Writer, o guard.Outcome) error { return encode(w, newReport(o)) }

func newReport(o guard.Outcome) report {
	r := report{
		Decision: o.Verdict, Rule: o.Rule, Reason: o.Reason, Command: o.Command, Input: o.Input, Shell: o.Shell, Cwd: o.Cwd,
		Calls: o.Calls, Policies: o.Policies, Providers: o.Providers, Session: o.Session, Notes: o.Notes, Lifts: o.Lifts, Facts: o.Facts,
	}
	if o.Unloaded != nil {
		r.LoadError = o.Unloaded.Error()
	}
	if r.Calls == nil {
		r.Calls = []rules.CallTrace{}
	}
	if r.Policies == nil {
		r.Policies = []rules.PolicyFile{}
	}
	return r
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Text writes the outcome for a person: the policy files, each guarded call with its context
// and where that came from, and the decision.
func Text(w io.Writer, o guard.Outcome) error {
	var b strings.Builder
	if o.Input == "" && len(o.Calls) > 0 && o.Calls[len(o.Calls)-1].Kind == rules.KindWrite {
		fmt.Fprintf(&b, "write:    %s\n", strings.Join(o.Calls[len(o.Calls)-1].Argv, " "))
	} else {
		fmt.Fprintf(&b, "command:  %s\n", o.Input)
		fmt.Fprintf(&b, "shell:    %s\n", o.Shell)
	}
	fmt.Fprintf(&b, "cwd:      %s\n", o.Cwd)
	switch {
	case o.Unloaded != nil && o.Verdict == rules.VerdictDeny:
		fmt.Fprintf(&b, "policy:   failed to load: %s\n", unloaded(o))
	case len(o.Policies) == 0:
		b.WriteString("policy:   none found\n")
	}
	for _, p := range o.Policies {
		fmt.Fprintf(&b, "policy:   %-8s %s\n", p.Layer, p.File)
	}
	if len(o.Facts) > 0 {
		var fs []string
		for _, k := range slices.Sorted(maps.Keys(o.Facts)) {
			fs = append(fs, k+" "+o.Facts[k])
		}
		fmt.Fprintf(&b, "facts:    %s\n", strings.Join(fs, "; "))
	}
	for i, c := range o.Calls {
		fmt.Fprintf(&b, "call %d:   %s\n", i+1, strings.Join(c.Argv, " "))
		if c.Provider != "" {
			fmt.Fprintf(&b, "  provider %s, %s", c.Provider, c.Kind)
		} else {
			fmt.Fprintf(&b, "  %s", c.Kind)
		}
		switch c.Kind {
		case rules.KindUnchecked:
			fmt.Fprintf(&b, " (the policy says nothing about %s's contexts; contexts.%s in it would check them)", c.Provider, c.Provider)
		case rules.KindExempt:
			b.WriteString(" (it inspects or repairs the CLI's own state, so no context is checked)")
		}
		if len(c.Via) > 0 {
			fmt.Fprintf(&b, ", via %s", strings.Join(c.Via, " > "))
		}
		b.WriteString("\n")
		if c.Context != nil {
			fmt.Fprintf(&b, "  context  %s\n", context(c.Context, o.Session))
		}
		for _, m := range c.Matched {
			fmt.Fprintf(&b, "  matched  %s\n", m)
		}
		for _, l := range c.Lifted {
			fmt.Fprintf(&b, "  lifted   %s\n", l)
		}
		for _, n := range c.Conditions {
			fmt.Fprintf(&b, "  when     %s\n", n)
		}
		fmt.Fprintf(&b, "  decision %s", c.Verdict)
		if c.Rule != "" {
			fmt.Fprintf(&b, " (%s)", c.Rule)
		}
		b.WriteString("\n")
		if c.Binding != "" {
			fmt.Fprintf(&b, "  binding  %s\n", c.Binding)
		}
	}
	fmt.Fprintf(&b, "decision: %s", o.Verdict)
	if o.Rule != "" {
		fmt.Fprintf(&b, " (%s)", o.Rule)
	}
	b.WriteString("\n")
	if o.Reason != "" {
		fmt.Fprintf(&b, "reason:   %s\n", strings.ReplaceAll(o.Reason, "\n", "\n          "))
	}
	if o.Rewritten {
		fmt.Fprintf(&b, "rewrite:  %s\n", o.Command)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "note:     %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// context renders where a context came from: "Contoso-Dev (1111…) from state file F key K".
func context(c *rules.ContextTrace, session string) string {
	v := c.Value
	if c.Name != "" && c.Name != c.Value {
		v = fmt.Sprintf("%s (%s)", c.Name, c.Value)
	}
	if v == "" {
		v = "(none)"
	}
	var from string
	switch c.Source {
	case rules.OriginSwitch:
		from = "the target of this switch"
	case rules.OriginState:
		from = "from the state"
	case rules.OriginDefault:
		from = "the CLI's default (the state names none)"
	case rules.OriginNone:
		from = "none is set in the state"
	case rules.OriginFlag:
		from = "from flag " + c.Flag
	case rules.OriginEnv:
		from = "from " + c.Env + " set on the command"
	case rules.OriginProcessEnv:
		from = "from the environment variable " + c.Env
	case rules.OriginCarried:
		from = "carried from `" + c.From + "` earlier in the line"
	case rules.OriginRemembered:
		from = "remembered for session " + session + " from `" + c.From + "`"
	case rules.OriginUnknown:
		from = "unknown"
		if c.From != "" {
			from += " after `" + c.From + "`"
		}
	default:
		from = string(c.Source)
	}
	if c.File != "" {
		// The key is a gjson path, for tools (--json), not for a person.
		from += fmt.Sprintf(" (file %s)", c.File)
	}
	allowed := "allowed"
	if !c.Allowed {
		allowed = "not allowed"
	}
	return fmt.Sprintf("%s %s — %s", v, from, allowed)
}

// unloaded says which file did not load and how many problems the reason lists.
func unloaded(o guard.Outcome) string {
	errs := codec.Unjoin(o.Unloaded)
	var first *codec.Error
	if !errors.As(errs[0], &first) || first.File == "" {
		return o.Unloaded.Error()
	}
	n := 0
	for _, e := range errs {
		var ce *codec.Error
		if errors.As(e, &ce) && ce.File == first.File {
			n++
		}
	}
	what := "the policy file"
	if o.Rule == "provider.error" {
		what = "the provider file"
	}
	problems := "1 problem (the reason says which)"
	if n > 1 {
		problems = fmt.Sprintf("%d problems (the reason lists them)", n)
	}
	return fmt.Sprintf("%s %s has %s", what, first.File, problems)
}
