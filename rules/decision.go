package rules

import (
	"slices"

	"github.com/ctxguard/ctxguard/spec"
)

// Verdict is the answer for a call or a line. The order of the constants is strictness: a
// line's verdict is the strictest of its calls'.
type Verdict int

const (
	VerdictAllow Verdict = iota
	VerdictRewrite
	VerdictAsk
	VerdictDeny
)

// String is the verdict's name, as spec.Decisions lists them in this order.
func (v Verdict) String() string { return spec.Decisions[v] }

// ParseVerdict reads a verdict's name.
func ParseVerdict(s string) (Verdict, bool) {
	i := slices.Index(spec.Decisions, s)
	return Verdict(i), i >= 0
}

// MarshalText makes verdicts read as words in JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Result is the decision for a whole command line, and the trace of how it was reached.
type Result struct {
	Verdict Verdict
	// Rule and Reason are those of the strictest call (the first one when several tie); Reason
	// joins the reasons of every call that has that verdict, so the model sees all of them.
	Rule   string
	Reason string
	// Edits are the insertions into the line (calls that are not nested) that bind its calls.
	Edits []Edit
	// Calls traces every guarded call, in execution order.
	Calls []CallTrace
	// Switches are the switches the line lets through, in order, with their effect: what a
	// session remembers once the line has run.
	Switches []Switched
	// Facts are the facts the rules' conditions read ("unattended": "true", "now": …), with
	// "not known" for one that was not.
	Facts map[string]string
}

// CallTrace records how one guarded call was decided. Its JSON form is part of the
// `ctxguard explain --json` contract.
type CallTrace struct {
	Provider string        `json:"provider"`
	Argv     []string      `json:"argv"`
	Via      []string      `json:"via,omitempty"`
	Kind     Kind          `json:"kind"`
	Context  *ContextTrace `json:"context,omitempty"`
	Verdict  Verdict       `json:"decision"`
	Rule     string        `json:"rule,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	// Binding is the text a rewrite inserts ("--subscription 1111…"), Fixed the call as it
	// should be written.
	Binding string `json:"binding,omitempty"`
	Fixed   string `json:"fixed,omitempty"`
	// Fixes are the commands the reason offers to run instead, each whole: in the line's shell,
	// and runnable from the line's directory (with the `cd` the call ran after).
	Fixes []string `json:"fixes,omitempty"`
	// Matched lists the destructive entries and user rules that matched.
	Matched []string `json:"matched,omitempty"`
	// Lifted lists those of them a human lifted, each with the lift ("RULE lifted until …").
	Lifted []string `json:"lifted,omitempty"`
	// Conditions says, for each user rule whose match matched, why its conditions let it apply
	// or not ("user.project.2: not applied: time: mon-fri 09:00-17:00 Europe/Berlin").
	Conditions []string `json:"conditions,omitempty"`
}

// ContextTrace says which context a call runs in and where that came from.
type ContextTrace struct {
	Value  string `json:"value"`
	Name   string `json:"name,omitempty"`
	Source Origin `json:"source"`
	Flag   string `json:"flag,omitempty"`
	Env    string `json:"env,omitempty"`
	From   string `json:"from,omitempty"` // the switch that set a carried context
	File   string `json:"file,omitempty"`
	Key    string `json:"key,omitempty"`
	// Allowed is whether the policy allows it (always true when the policy names no list).
	Allowed bool `json:"allowed"`
}

// Kind is what a call is to the rules that decided it. Its words are part of the
// `ctxguard explain --json` contract.
type Kind string

const (
	KindHelp   Kind = "help"   // it only prints help: nothing applies
	KindExempt Kind = "exempt" // self-inspection or repair: no context check
	KindSwitch Kind = "switch" // it changes the shared context
	// KindRedefine is another CLI's call that changes what one of the provider's contexts is
	// (kubens sets the current context's namespace).
	KindRedefine Kind = "redefine"
	KindBound    Kind = "bound" // it names its context (a flag, or a variable set on it)
	// KindUnbound runs in whatever context is effective when it starts.
	KindUnbound Kind = "unbound"
	// KindUnchecked is a call of a provider the policy says nothing about.
	KindUnchecked Kind = "unchecked"
	// KindUnknown is a call whose command word is not literal but names a guarded CLI.
	KindUnknown Kind = "unknown"
	// KindSelf is a call that writes files, checked against ctxguard's own configuration.
	KindSelf Kind = "self"
	// KindRule is a call no provider guards that a user's rule matched.
	KindRule Kind = "rule"
	// KindWrite is a file tool's write that a user's rule matched.
	KindWrite Kind = "write"
)

// Origin is where the context a call runs in came from. Its words are part of the
// `ctxguard explain --json` contract.
type Origin string

const (
	OriginFlag   Origin = "flag"   // a flag on the call
	OriginEnv    Origin = "env"    // a variable set on the call
	OriginSwitch Origin = "switch" // the target of the call, which is a switch
	// OriginCarried is an earlier switch in the same line.
	OriginCarried Origin = "carried"
	// OriginRemembered is this session's last switch (session memory).
	OriginRemembered Origin = "remembered"
	OriginState      Origin = "state"       // a state file
	OriginProcessEnv Origin = "process-env" // the hook's own environment
	// OriginDefault is the provider's default, when the state names none.
	OriginDefault Origin = "default"
	OriginNone    Origin = "none"    // no context is set
	OriginUnknown Origin = "unknown" // it cannot be known statically
)
