package guard

import (
	"fmt"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/session"
	"github.com/ctxguard/ctxguard/rules"
)

// memory is one decision's view of session memory: the keys to read, most specific first, and
// what each file gave, read lazily so that a line reads only the providers it needs.
type memory struct {
	store *session.Store
	// keys are the session key of the subagent (if any), then the session's. A subagent
	// remembers its own switches, which must not steer its siblings or its parent (they run at
	// the same time, like two sessions), and falls back to what its session selected before
	// starting it.
	keys  []string
	name  string // the session as explain shows it
	read  map[string][]session.Entry
	notes []string
}

// openMemory returns the session's memory, or nil when there is none to use: no session id, or
// a policy that turns it off (which the note then says).
func openMemory(req rules.Request, env paths.Env, pol *policy.Policy) (*memory, string) {
	if req.Session == "" {
		return nil, ""
	}
	if pol.Forget {
		return nil, fmt.Sprintf("session memory is off (session: {remember: false} in %s), so calls are bound to the active context, not to this session's last switch", pol.ForgetSrc)
	}
	dir := env.Sessions()
	if dir == "" {
		return nil, "session memory is off: " + paths.ErrNoStateDir.Error() + ", so calls are bound to the active context, not to this session's last switch"
	}
	m := &memory{store: &session.Store{Dir: dir}, keys: sessionKeys(req), name: req.Session, read: map[string][]session.Entry{}}
	if req.Agent != "" {
		m.name += " (agent " + req.Agent + ")"
	}
	return m, ""
}

// recall is rules.Input.Remembered.
func (m *memory) recall(provider, scope string) (rules.Switched, bool) {
	for _, k := range m.keys {
		id := k + "\x00" + provider
		entries, ok := m.read[id]
		if !ok {
			var err error
			entries, err = m.store.Recall(k, provider)
			if err != nil {
				m.notes = append(m.notes, fmt.Sprintf("%v — ignored, so %s calls are not bound to this session's last switch", err, provider))
			}
			m.read[id] = entries
		}
		if sw, ok := session.Find(entries, scope); ok {
			return sw, true
		}
	}
	return rules.Switched{}, false
}

// Remember records the switches that the decision lets through for the request's session (the
// subagent's own memory, for a subagent), in the memory Decide opened. The hook calls it once it
// has decided to let the line run (allow or rewrite), before it answers: the harness runs the
// line after the answer, and the session's next command may come right after that. A switch the
// user then declines stays remembered; it was allowed, so the worst it does is bind a later
// command to an allowed context the session asked for. explain never calls it.
func (o *Outcome) Remember() error {
	if o.mem == nil || o.Verdict > rules.VerdictRewrite || len(o.Switches) == 0 {
		return nil
	}
	return o.mem.store.Remember(o.mem.keys[0], o.Switches)
}

func sessionKeys(req rules.Request) []string {
	if req.Agent == "" {
		return []string{req.Session}
	}
	return []string{req.Session + "\x00" + req.Agent, req.Session}
}
