package cli

import (
	"fmt"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/lift"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
)

// defaultFor is how long a lift lasts when --for is not given.
const defaultFor = 10 * time.Minute

func runLift(c *runner, args []string) error {
	fl := flags("lift")
	dur := fl.Duration("for", defaultFor, "")
	session := fl.String("session", "", "")
	reason := fl.String("reason", "", "")
	list := fl.Bool(rules.LiftList, false, "")
	clear := fl.Bool(rules.LiftClear, false, "")
	if err := parse(fl, args); err != nil {
		return err
	}
	now := time.Now()
	switch {
	case *list:
		if fl.NArg() > 0 || *clear {
			return usageError{"--list takes no rule"}
		}
		c.listLifts(now)
		return nil
	case *clear:
		if fl.NArg() > 1 {
			return usageError{"--clear takes at most one rule"}
		}
		return c.clearLifts(fl.Arg(0), *session, now)
	case fl.NArg() != 1:
		return usageError{"lift takes one rule id, or destructive"}
	}
	// The hook denies `ctxguard lift` in an agent's line; this is the second lock: an agent's
	// shell has no terminal. A person lifts a rule in their own.
	if !terminal(c.stdin) || !terminal(c.stdout) {
		return exitError{code: exitFailure, msg: "a lift is a human's decision, so ctxguard lift runs only in an interactive terminal (stdin and stdout a terminal); run it in your own"}
	}
	if *dur <= 0 || *dur > lift.MaxFor {
		return usageError{fmt.Sprintf("--for %v: a lift lasts more than 0 and at most %s", *dur, short(lift.MaxFor))}
	}
	rule := fl.Arg(0)
	if err := c.liftable(rule); err != nil {
		return exitError{code: exitFailure, msg: err.Error()}
	}
	l := lift.Lift{Rule: rule, Session: *session, Until: now.Add(*dur).Truncate(time.Second), Created: now.Truncate(time.Second), By: c.who(), Reason: *reason}
	if _, err := lift.Update(c.env.Lifts(), now, func(ls []lift.Lift) []lift.Lift { return append(ls, l) }); err != nil {
		return err
	}
	scope := "every session"
	if l.Session != "" {
		scope = "session " + l.Session
	}
	fmt.Fprintf(c.stdout, "%s is lifted for %s, until %s, for %s\nend it sooner: ctxguard lift --clear %s\n", rule, short(*dur), l.Until.Format(time.RFC3339), scope, rule)
	return nil
}

// liftable checks that rule is one a lift can lift here: every destructive entry, one entry, or
// one of the rules of the policy that applies here, and none that the managed layer wrote.
// Context checks and self-protection are not rules a lift lifts.
func (c *runner) liftable(rule string) error {
	wd, err := c.getwd()
	if err != nil {
		return err
	}
	cat, err := catalog.Open(c.env)
	if err != nil {
		return err
	}
	pol, err := policy.Load(policy.Options{Cwd: wd, Env: c.env, Providers: cat.Names()})
	if err != nil {
		return fmt.Errorf("the policy here does not load, so no rule of it can be checked: %w", err)
	}
	if lift.Locked(rule, pol.Locked) {
		return fmt.Errorf("%s is set by the managed policy (%s), and no lift lifts a managed rule", rule, c.env.ManagedPolicy())
	}
	if rule == rules.RuleDestructive {
		return nil
	}
	var ids []string
	for _, name := range cat.Names() {
		p := cat.Spec(name)
		for _, d := range p.Destructive {
			if rules.DestructiveRule(p.Name, d.Match) == rule {
				return nil
			}
		}
	}
	for _, r := range pol.Rules {
		if r.ID == rule {
			return nil
		}
		if !slices.Contains(pol.Locked, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	known := "none"
	if len(ids) > 0 {
		known = strings.Join(ids, ", ")
	}
	return fmt.Errorf("%s is not a rule a lift can lift here: lift destructive (every destructive entry), one destructive entry by its id (ctxguard explain shows it after matched: PROVIDER.destructive.ENTRY), or a rule of the policy here (%s); context checks and self-protection are never lifted", rule, known)
}

// listLifts prints the lifts in force.
func (c *runner) listLifts(now time.Time) {
	lifts, note := lift.Load(c.env.Lifts())
	if note != "" {
		fmt.Fprintf(c.stderr, "ctxguard lift: %s\n", note)
	}
	active := lift.Active(lifts, now)
	if len(active) == 0 {
		fmt.Fprintln(c.stdout, "no lift in force")
	}
	for _, l := range active {
		fmt.Fprintf(c.stdout, "%s  %s (%s left)\n", l.Rule, l, short(l.Until.Sub(now)))
	}
}

// clearLifts ends the lifts of rule ("" for every rule) and of session ("" for every session).
// It needs no terminal: taking a lift away only narrows what an agent may do.
func (c *runner) clearLifts(rule, session string, now time.Time) error {
	var gone []lift.Lift
	_, err := lift.Update(c.env.Lifts(), now, func(ls []lift.Lift) []lift.Lift {
		return slices.DeleteFunc(ls, func(l lift.Lift) bool {
			if (rule == "" || l.Rule == rule) && (session == "" || l.Session == session) {
				gone = append(gone, l)
				return true
			}
			return false
		})
	})
	if err != nil {
		return err
	}
	if len(gone) == 0 {
		fmt.Fprintln(c.stdout, "no lift to end")
	}
	for _, l := range gone {
		fmt.Fprintf(c.stdout, "ended: %s (%s)\n", l.Rule, l)
	}
	return nil
}

// short writes a duration to the second, without zero units: 10m, 1h30m, 4m59s.
func short(d time.Duration) string {
	s := d.Truncate(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// who names the person granting a lift, user@host.
func (c *runner) who() string {
	name, _ := c.env.Get("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if h, err := os.Hostname(); err == nil {
		return name + "@" + h
	}
	return name
}
