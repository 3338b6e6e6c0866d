package rules

import (
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// envOnly reports whether the call's binding would be a variable set for it alone, which
// PowerShell cannot write: it has no `VAR=value cmd` prefix, and `$env:VAR=…` stays set for the
// rest of the session, so ctxguard does not insert it on the agent's behalf.
func (e *engine) envOnly(p *spec.Spec) bool {
	return e.in.Shell == ShellPowerShell && p.Bind != nil && len(p.Bind.Flags) == 0 && len(p.Bind.Env) > 0
}

// boundCall is the call as it should be run on its own, bound to value: with the binding
// inserted, or, in PowerShell for a binding by variable, preceded by the assignment.
func (e *engine) boundCall(p *spec.Spec, c *Call, value string) string {
	if e.envOnly(p) {
		return psAssign(p.Bind.Env[0], e.in.Quote(value)) + e.standalone(c)
	}
	ed, _ := e.bindEdit(p, c, value)
	return e.standalone(c, span{ed.At, ed.At, ed.Text})
}

// psAssign renders `$env:NAME='value'; `. An assignment's value must be quoted in PowerShell (a
// bare word there is a command), and a value the quoting function left bare has no quote in it.
func psAssign(name, q string) string {
	if !strings.HasPrefix(q, "'") && !strings.HasPrefix(q, `"`) {
		q = "'" + q + "'"
	}
	return "$env:" + name + "=" + q + "; "
}

// bindEnvPowerShell denies a PowerShell call that needs a binding by variable, with the command
// to run instead.
func (e *engine) bindEnvPowerShell(t *trace, p *spec.Spec, c *Call, tgt, where string) {
	t.Binding = p.Bind.Env[0] + "=" + tgt
	t.Fixed = e.boundCall(p, c, tgt)
	t.decide(VerdictDeny, p.Name+".bind-powershell", fmt.Sprintf("[ctxguard/%s.bind-powershell] %s; PowerShell cannot set %s for one command, so ctxguard cannot bind it in place — run: %s (the variable then stays set in that PowerShell session, which keeps later %s calls on it too)",
		p.Name, where, p.Bind.Env[0], e.offer(t, c, t.Fixed), p.Name))
}
