package cli

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/ctxguard/ctxguard/builtin"

	"github.com/spf13/pflag"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/rules"
)

// Hook exit codes. Claude Code treats any other non-zero code as "hook failed, carry on", so
// the hook never uses one: it answers with JSON and exit 0, or, when it cannot even do that,
// blocks with exit 2 and the reason on stderr.
const (
	hookAnswered = 0
	hookBlocked  = 2
)

// maxPayload bounds what the hook reads from stdin: a payload larger than this is denied
// without being buffered whole.
const maxPayload = 8 << 20

// defaultBudget is how long the hook may spend from its start to its decision, reading and
// decoding the payload included. The harnesses let a call through when a hook times out, so a
// line too expensive to analyse is denied in time instead. A few milliseconds is the norm; the
// margin is for a loaded machine.
const defaultBudget = 150 * time.Millisecond

// recordWait bounds the audit record that follows an answer given at the deadline: finding the
// trail loads the policy again, and a line too long to analyse in time is also long to cut to
// what the trail keeps. The harness waits for the process to end, so the wait is bounded, well
// below every harness's own timeout.
const recordWait = 2 * time.Second

// budget is defaultBudget, or CTXGUARD_BUDGET (a Go duration) on a machine too slow or too
// loaded for it, kept well below every harness's own timeout (30 s as installed) so that the
// hook still answers rather than being timed out, which would let the call through.
func (c *runner) budget() time.Duration {
	if v, ok := c.env.Lookup("CTXGUARD_BUDGET"); ok {
		if d, err := time.ParseDuration(v); err == nil {
			return min(max(d, 10*time.Millisecond), 10*time.Second)
		}
	}
	return defaultBudget
}

func (c *runner) hook(args []string) (code int) {
	start := time.Now()
	budget := c.budget()
	deadline := start.Add(budget)
	// A panic is a bug in ctxguard, wherever it happens: the call is refused with a reason that
	// says so, rather than with a goroutine dump (Go's own exit code for a panic, 2, would refuse
	// it too, but the agent would read the dump as the reason).
	defer func() {
		if r := recover(); r != nil {
			code = c.block(internalError(r))
		}
	}()
	// A hook run lives for milliseconds: collecting garbage only costs time. The memory limit
	// brings the collector back should a pathological line make the heap grow.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	fs := flags("hook")
	name := fs.String("harness", "", "")
	if err := parse(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(c.stdout, builtin.Help("hook"))
			return hookAnswered
		}
		return c.block(entry(err))
	}
	data, err := c.readPayload(maxPayload)
	if err != nil {
		return c.block(entry(fmt.Errorf("read hook payload: %w", err)))
	}
	var h harness.Harness
	if *name != "" {
		var ok bool
		if h, ok = harness.Lookup(*name); !ok {
			return c.block(entry(errors.New(unknown("harness", *name, harness.Names()))))
		}
	}
	if len(data) > maxPayload {
		return c.answer(h, nil, harness.Answer{Verdict: rules.VerdictDeny, Reason: fmt.Sprintf("[ctxguard/hook.payload-too-large] the hook payload is larger than %d MiB, too large to check — split the command", maxPayload>>20)})
	}
	// The payload is parsed once: by the named harness's adapter, or by Detect, which decodes it
	// for the harness its shape names.
	var req *harness.Request
	if h != nil {
		req, err = harness.Decode(h, data)
	} else if h, req, err = harness.Detect(data); h == nil {
		return c.block(entry(fmt.Errorf("read hook payload: %w", err)))
	}
	if err != nil {
		return c.answer(h, req, harness.Answer{Verdict: rules.VerdictDeny, Reason: fmt.Sprintf("[ctxguard/hook.bad-payload] %v — %s sent a call this ctxguard cannot read, so it is refused: ask the user to run ctxguard doctor, and to update ctxguard if the harness is newer", err, h.Name())})
	}
	if req.Shell == "" && len(req.Paths) == 0 {
		return hookAnswered
	}
	// Everything up to the answer runs on this goroutine, under the deadline: the decision, the
	// session memory and the audit record. At the deadline a timer answers in its place and ends
	// the process, so that a line that makes any of it slow (or hang) is denied in time; the
	// answer goes out once, from whichever gets there first.
	var answered atomic.Bool
	denied := make(chan int, 1)
	timer := time.AfterFunc(time.Until(deadline), func() {
		if !answered.CompareAndSwap(false, true) {
			return
		}
		code := hookBlocked
		defer func() {
			if r := recover(); r != nil {
				code = c.block(internalError(r))
			}
			if c.exit != nil {
				c.exit(code)
			}
			denied <- code
		}()
		o := guard.Outcome{Result: rules.Result{Verdict: rules.VerdictDeny, Rule: ruleTooExpensive,
			Reason: fmt.Sprintf("[ctxguard/hook.too-expensive] this command line took more than %v to analyse — split it into simpler commands", budget)}}
		code = c.answer(h, req, harness.Answer{Verdict: o.Verdict, Reason: o.Reason})
		// The guard gave up before the policy said anything about the trail. The record comes after
		// the answer, and has a bound of its own: nothing may keep the process from ending.
		c.within(recordWait, func() {
			o.Audit = c.auditAt(req.Cwd)
			c.record(req.Request, o, time.Since(start))
		})
	})
	o := c.decide(req.Request)
	if err := o.Remember(); err != nil {
		// Without the memory, this session's later commands would be bound to whatever context
		// another session selects: the race ctxguard is there to close. So the switch does not
		// run unremembered.
		o.Verdict, o.Rule = rules.VerdictDeny, "session.write-error"
		o.Reason = fmt.Sprintf("[ctxguard/session.write-error] ctxguard cannot remember this switch for the session (%v), so this session's later commands could run in a context another session selects — name the context on each command instead of switching, or make that folder writable, or turn session memory off in the policy (session: {remember: false})", err)
	}
	if o.Rule == ruleInternal {
		// The guard gave up before the policy said anything about the trail.
		o.Audit = c.auditAfterFailure(req.Cwd)
	}
	c.record(req.Request, o, time.Since(start))
	if !answered.CompareAndSwap(false, true) {
		// The timer answered: wait for it to end the process (or, run in process, to finish).
		return <-denied
	}
	timer.Stop()
	for _, w := range o.Warnings {
		fmt.Fprintf(c.stderr, "ctxguard: %s\n", w)
	}
	a := harness.Answer{Verdict: o.Verdict, Reason: o.Reason, ConfirmRewrite: o.RewriteMode == rules.SettingAsk}
	if o.Rewritten {
		a.Command = o.Command
	}
	return c.answer(h, req, a)
}

// The rules of the denies the hook makes when the guard does not answer.
const (
	ruleInternal     = "hook.internal-error"
	ruleTooExpensive = "hook.too-expensive"
)

// internalError is the reason for a call refused because ctxguard itself failed (a panic).
func internalError(r any) error {
	return fmt.Errorf("[ctxguard/%s] ctxguard failed on this command (%v); please report it — until then run the command by hand", ruleInternal, r)
}

// decide runs guard.Decide, turning a panic into a deny.
func (c *runner) decide(req rules.Request) (o guard.Outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = guard.Outcome{Result: rules.Result{Verdict: rules.VerdictDeny, Rule: ruleInternal, Reason: internalError(r).Error()}}
		}
	}()
	return guard.Decide(req, c.env)
}

// auditAfterFailure is auditAt for a decision the guard did not finish: should finding the
// trail fail as the guard did, the call is still denied as it was, unrecorded.
func (c *runner) auditAfterFailure(dir string) (a audit.Trail) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(c.stderr, "ctxguard: the audit trail is not known, so this deny is not recorded: %v\n", internalError(r))
			a = audit.Trail{}
		}
	}()
	return c.auditAt(dir)
}

// within runs f for at most d, for what the hook does after its answer: the process ends then,
// and with it f, whatever f waits for. A panic in f changes no answer; it is reported.
func (c *runner) within(d time.Duration, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(c.stderr, "ctxguard: after the answer: %v\n", internalError(r))
			}
		}()
		f()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		fmt.Fprintf(c.stderr, "ctxguard: the audit record did not finish within %v after the answer, so this decision may not be recorded\n", d)
	}
}

// answer encodes the answer; if even that fails, it blocks.
func (c *runner) answer(h harness.Harness, req *harness.Request, a harness.Answer) int {
	if h == nil {
		return c.block(errors.New(a.Reason))
	}
	if req == nil {
		req = &harness.Request{Request: rules.Request{Harness: h.Name()}}
	}
	var buf bytes.Buffer
	if err := h.Encode(&buf, req, a); err != nil {
		var b harness.Blocked
		if errors.As(err, &b) {
			return c.block(b) // a harness that reads only the exit code
		}
		return c.block(fmt.Errorf("encode answer: %w", err))
	}
	if _, err := c.stdout.Write(buf.Bytes()); err != nil {
		return c.block(fmt.Errorf("write answer: %w", err))
	}
	return hookAnswered
}

// entry says that a hook failure comes from how the hook is run, and how to check that.
func entry(err error) error {
	return fmt.Errorf("%w — the hook entry or the harness is not what ctxguard expects, so the call is blocked: run ctxguard doctor", err)
}

// block refuses the call with exit 2, the one code every harness treats as "do not run".
func (c *runner) block(err error) int {
	fmt.Fprintf(c.stderr, "ctxguard: %v\n", err)
	return hookBlocked
}
