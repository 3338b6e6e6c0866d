package guard

import (
	"os"
	"sync"
	"time"

	"github.com/ctxguard/ctxguard/rules"
)

// facts are the conditions' facts for a request: the harness's from the request, the rest from
// the machine, or from m where the caller fakes them.
func facts(req rules.Request, m *rules.Facts) rules.Facts {
	var f rules.Facts
	if m != nil {
		f = *m
	} else {
		f = Machine()
	}
	f.Harness, f.Tool, f.Mode = req.Harness, req.Tool, req.Mode
	f.Unattended, f.Subagent = req.Unattended, req.Subagent
	return f
}

// Machine is the facts of this machine for the rules' conditions: the clock, and the host name
// and the user's groups, each read at most once and only when a condition asks for it (a policy
// without groups never reads the group database).
func Machine() rules.Facts {
	return rules.Facts{
		Now:    time.Now(),
		Host:   sync.OnceValues(os.Hostname),
		Groups: sync.OnceValues(groups),
	}
}
