package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/rules"
)

// record writes the hook's decision to the audit trail when the policy asks for one. A trail
// that cannot be written changes nothing about the decision, which stands: the failure goes to
// stderr, where the harness shows it in its logs, and is noted for `ctxguard doctor`.
func (c *runner) record(req rules.Request, o guard.Outcome, took time.Duration) {
	if !o.Audit.On {
		return
	}
	now := time.Now()
	e := audit.NewEntry(req, now)
	e.Decision, e.Rule, e.Reason, e.Policies, e.Lifts, e.Notes = o.Verdict.String(), o.Rule, o.Reason, o.Policies, o.Lifts, o.Notes
	e.DurationUS, e.Version = took.Microseconds(), version()
	if o.Rewritten {
		e.Rewrite = o.Command
	}
	if e.Policies == nil {
		e.Policies = []rules.PolicyFile{}
	}
	audit.NewRedactor(catalog.Secrets()).Entry(e)
	l, err := audit.For(o.Audit, c.env)
	if err == nil {
		err = l.Append(e)
	}
	if err == nil {
		return
	}
	fmt.Fprintf(c.stderr, "ctxguard: %v — the decision stands; `ctxguard doctor` shows this\n", err)
	if f := c.env.AuditFailure(); f != "" {
		size := int64(-1)
		if fi, serr := os.Stat(l.Path); serr == nil {
			size = fi.Size()
		}
		if nerr := audit.NoteFailure(f, audit.Failure{Time: now, Path: l.Path, Error: err.Error(), Size: size}); nerr != nil {
			fmt.Fprintf(c.stderr, "ctxguard: cannot note the failure for ctxguard doctor either: %v\n", nerr)
		}
	}
}
