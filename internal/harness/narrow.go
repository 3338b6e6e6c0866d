package harness

import "github.com/ctxguard/ctxguard/rules"

// limits says what a harness's answer can express, for [narrow].
type limits struct {
	rewrite bool // it can run a changed command in place of the one asked for
	ask     bool // it can ask the user to confirm
}

// narrow turns an answer into one the harness can give, only ever towards deny: a harness that
// cannot rewrite gets a deny whose reason carries the exact fixed command, so that the agent runs
// that instead (an ask that carries a bound line is the same: approving it would run the unbound
// one); a harness that cannot ask gets a deny that says a human must run the command. A rewrite
// the policy wants shown to the user (ConfirmRewrite) is a deny with the fixed command where the
// harness cannot ask.
func narrow(a Answer, l limits) Answer {
	switch a.Verdict {
	case rules.VerdictRewrite:
		if a.Command == "" || l.rewrite && (l.ask || !a.ConfirmRewrite) {
			return a // (a rewrite without a command is an error that Encode reports)
		}
		return Answer{Verdict: rules.VerdictDeny, Reason: runInstead(a.Reason, a.Command), ConfirmRewrite: a.ConfirmRewrite}
	case rules.VerdictAsk:
		if !l.ask {
			r := join(a.Reason, "this harness cannot ask the user to confirm a command, so ctxguard refuses it: ask the user to run it themselves")
			if a.Command != "" {
				r += ", as: " + a.Command
			}
			return Answer{Verdict: rules.VerdictDeny, Reason: r, ConfirmRewrite: a.ConfirmRewrite}
		}
		if a.Command != "" && !l.rewrite {
			return Answer{Verdict: rules.VerdictDeny, Reason: runInstead(a.Reason, a.Command), ConfirmRewrite: a.ConfirmRewrite}
		}
	}
	return a
}

func runInstead(reason, command string) string {
	return join(reason, "this harness cannot run a changed command in place of the one sent, so run exactly this instead: "+command)
}

func join(reason, more string) string {
	if reason == "" {
		return "[ctxguard] " + more
	}
	return reason + " — " + more
}
