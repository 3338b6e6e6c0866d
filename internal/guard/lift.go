package guard

import (
	"slices"
	"sync"
	"time"

	"github.com/ctxguard/ctxguard/internal/lift"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
)

// lifter is one decision's view of the lifts: the lift file is read only when a rule that a lift
// could lift matches (most lines match none), once.
type lifter struct {
	session string
	locked  []string
	now     time.Time
	load    func() ([]lift.Lift, string)
	applied []lift.Lift
	notes   []string
}

func newLifter(req rules.Request, env paths.Env, pol *policy.Policy) *lifter {
	file := env.Lifts()
	return &lifter{session: req.Session, locked: pol.Locked, now: time.Now(),
		load: sync.OnceValues(func() ([]lift.Lift, string) { return lift.Load(file) })}
}

// lifted is rules.Input.Lifted. A lift of a rule the managed layer wrote does not apply, and a
// note says so.
func (l *lifter) lifted(rule string) (string, bool) {
	lifts, note := l.load()
	if note != "" && !slices.Contains(l.notes, note) {
		l.notes = append(l.notes, note)
	}
	for _, x := range lifts {
		if !x.Covers(rule, l.session, l.now) {
			continue
		}
		if lift.Locked(rule, l.locked) {
			if n := "the lift of " + rule + " does not apply: the managed policy sets that rule, and no lift lifts a managed rule"; !slices.Contains(l.notes, n) {
				l.notes = append(l.notes, n)
			}
			return "", false
		}
		if !slices.Contains(l.applied, x) {
			l.applied = append(l.applied, x)
		}
		return x.String(), true
	}
	return "", false
}
