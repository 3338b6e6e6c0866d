package explain

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/rules"
)

// Logged is a decision from the audit trail beside the one the same call gets now. The call is
// decided again from what the trail recorded (the command with its secrets blanked, the
// directory, the session, the shell), with the policy, the CLIs' state, the session memory and
// the lifts as they are now; the two may differ, and Differences says where.
type Logged struct {
	Entry audit.Entry
	Now   guard.Outcome
	// NowRewrite is Now's rewrite, redacted as the trail's is, so that the two compare.
	NowRewrite string
}

// Differences lists how the decision now differs from the logged one ("" entries never): the
// decision, the rule, the rewrite and the policy files read.
func (l Logged) Differences() []string {
	var out []string
	e, o := l.Entry, l.Now
	if e.Decision != o.Verdict.String() || e.Rule != o.Rule {
		out = append(out, fmt.Sprintf("logged %s, now %s", verdict(e.Decision, e.Rule), verdict(o.Verdict.String(), o.Rule)))
	}
	if e.Rewrite != l.NowRewrite {
		out = append(out, fmt.Sprintf("logged rewrite %q, now %q", e.Rewrite, l.NowRewrite))
	}
	if !slices.Equal(e.Policies, o.Policies) {
		out = append(out, fmt.Sprintf("the policy files read then were %s; now %s", files(e.Policies), files(o.Policies)))
	}
	return out
}

func verdict(v, rule string) string {
	if rule == "" {
		return v
	}
	return v + " (" + rule + ")"
}

func files(ps []rules.PolicyFile) string {
	if len(ps) == 0 {
		return "none"
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Layer+" "+p.File)
	}
	return strings.Join(out, ", ")
}

// LoggedText writes the logged decision, the decision now (as [Text] does) and whether they
// differ.
func LoggedText(w io.Writer, l Logged) error {
	e := l.Entry
	var b strings.Builder
	who := e.Harness
	if e.Session != "" {
		who += " session " + e.Session
	}
	if e.Agent != "" {
		who += " agent " + e.Agent
	}
	fmt.Fprintf(&b, "logged:   %s, id %s, %s\n", e.Time.Format(time.RFC3339), e.ID, strings.TrimSpace(who))
	fmt.Fprintf(&b, "command:  %s\n", e.Command)
	if e.Command == "" {
		fmt.Fprintf(&b, "tool:     %s writes %s\n", e.Tool, strings.Join(e.Paths, ", "))
	}
	fmt.Fprintf(&b, "cwd:      %s\n", e.Cwd)
	for _, p := range e.Policies {
		fmt.Fprintf(&b, "policy:   %-8s %s\n", p.Layer, p.File)
	}
	fmt.Fprintf(&b, "decision: %s\n", verdict(e.Decision, e.Rule))
	if e.Reason != "" {
		fmt.Fprintf(&b, "reason:   %s\n", strings.ReplaceAll(e.Reason, "\n", "\n          "))
	}
	if e.Rewrite != "" {
		fmt.Fprintf(&b, "rewrite:  %s\n", e.Rewrite)
	}
	for _, x := range e.Lifts {
		fmt.Fprintf(&b, "lifted:   %s until %s\n", x.Rule, x.Until.Format(time.RFC3339))
	}
	for _, n := range e.Notes {
		fmt.Fprintf(&b, "note:     %s\n", n)
	}
	b.WriteString("\nnow, with the policy, the CLIs' state and the lifts as they are (the command as logged, its secrets blanked):\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := Text(w, l.Now); err != nil {
		return err
	}
	b.Reset()
	if d := l.Differences(); len(d) > 0 {
		fmt.Fprintf(&b, "\ndiffers:  %s\n", strings.Join(d, "\n          "))
	} else {
		b.WriteString("\nsame:     the hook would decide this call now as it did then\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// LoggedJSON writes one object: the logged line, the decision now (as [JSON] does), whether
// they are the same, and the differences.
func LoggedJSON(w io.Writer, l Logged) error {
	d := l.Differences()
	if d == nil {
		d = []string{}
	}
	return encode(w, struct {
		Logged      audit.Entry `json:"logged"`
		Now         report      `json:"now"`
		Same        bool        `json:"same"`
		Differences []string    `json:"differences"`
	}{l.Entry, newReport(l.Now), len(d) == 0, d})
}
