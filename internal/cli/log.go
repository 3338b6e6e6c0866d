package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

func runLog(c *runner, args []string) error {
	fl := flags("log")
	since := fl.String("since", "", "")
	decisions := fl.StringSlice("decision", nil, "")
	session := fl.String("session", "", "")
	asJSON := fl.Bool("json", false, "")
	file := fl.String("file", "", "")
	if err := parse(fl, args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return usageError{"log takes no arguments"}
	}
	f := audit.Filter{Session: *session}
	for _, d := range *decisions {
		if _, ok := rules.ParseVerdict(d); !ok {
			return usageError{fmt.Sprintf("--decision %q is not one of %s", d, strings.Join(spec.Decisions, ", "))}
		}
		f.Decisions = append(f.Decisions, d)
	}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			return usageError{err.Error()}
		}
		f.Since = t
	}
	l, a, err := c.trail(*file)
	if err != nil {
		return err
	}
	entries, bad, err := l.Read()
	if err != nil {
		return err
	}
	if bad > 0 {
		fmt.Fprintf(c.stderr, "ctxguard log: %d lines of %s are not decisions and were skipped\n", bad, l.Path)
	}
	if len(entries) == 0 {
		if _, err := os.Stat(l.Path); errors.Is(err, fs.ErrNotExist) && !a.On {
			return exitError{code: exitFailure, msg: fmt.Sprintf("no audit trail at %s: the policy here does not turn it on (audit: true)", c.home(l.Path))}
		}
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	n := 0
	for _, e := range entries {
		if !f.Match(e) {
			continue
		}
		n++
		if *asJSON {
			if err := enc.Encode(e); err != nil {
				return err
			}
			continue
		}
		c.logEntry(e)
	}
	if n == 0 && !*asJSON {
		fmt.Fprintf(c.stderr, "no logged decision matches (%s)\n", c.home(l.Path))
	}
	return nil
}

// logEntry prints one decision for a person: when, what, which rule, and for whom; the
// command, the rewrite and the first line of the reason.
func (c *runner) logEntry(e audit.Entry) {
	who := e.Harness
	if e.Session != "" {
		who += " session " + e.Session
	}
	if e.Agent != "" {
		who += " agent " + e.Agent
	}
	rule := e.Rule
	if rule == "" {
		rule = "-"
	}
	fmt.Fprintf(c.stdout, "%s  %-7s  %s  %s  %s  %s\n", e.Time.Format(time.RFC3339), e.Decision, e.ID, rule, strings.TrimSpace(who), c.home(e.Cwd))
	what := e.Command
	if what == "" {
		what = e.Tool + " " + strings.Join(e.Paths, " ")
	}
	fmt.Fprintf(c.stdout, "    $ %s\n", oneLine(what))
	if e.Rewrite != "" {
		fmt.Fprintf(c.stdout, "    → %s\n", oneLine(e.Rewrite))
	}
	if e.Decision == "deny" || e.Decision == "ask" {
		reason, _, _ := strings.Cut(e.Reason, "\n")
		fmt.Fprintf(c.stdout, "    %s\n", reason)
	}
	for _, l := range e.Lifts {
		fmt.Fprintf(c.stdout, "    lifted %s until %s\n", l.Rule, l.Until.Format(time.RFC3339))
	}
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "⏎") }

// parseSince reads --since: a duration back from now (90m, 1h, 2d), a date (local midnight) or
// an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (90m, 1h, 2d), a date (2026-12-04) or a time (2026-12-04T15:00:00+01:00)", s)
}

// trail is the audit trail to read: file when given, else the one the policy here names (the
// state home's audit.jsonl when it names none), with what the policy says about it. A policy
// that does not load still names the trail of the layers before it.
func (c *runner) trail(file string) (audit.Log, audit.Trail, error) {
	if file != "" {
		return audit.Log{Path: file}, audit.Trail{On: true}, nil
	}
	wd, err := c.getwd()
	if err != nil {
		return audit.Log{}, audit.Trail{}, err
	}
	a := c.auditAt(wd)
	l, err := audit.For(a, c.env)
	return l, a, err
}

// auditAt is what the policy for dir says about the audit trail.
func (c *runner) auditAt(dir string) audit.Trail {
	if cat, err := catalog.Open(c.env); err == nil {
		if pol, _ := policy.Load(policy.Options{Cwd: dir, Env: c.env, Providers: cat.Names()}); pol != nil {
			return pol.Audit
		}
	}
	return audit.Trail{}
}
