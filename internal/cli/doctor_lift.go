package cli

import (
	"time"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/lift"
	"github.com/ctxguard/ctxguard/internal/policy"
)

// lifts lists the lifts in force, and says when the lift file is ignored or a lift cannot apply
// here because the managed policy sets its rule.
func (d *doctor) lifts(wd string, cat *catalog.Catalog) {
	d.section("lifts")
	lifts, note := lift.Load(d.c.env.Lifts())
	if note != "" {
		d.warn(note, "ctxguard lift --clear replaces it with an empty one (then lift again, in your own terminal)")
		return
	}
	var locked []string
	if cat != nil {
		if pol, _ := policy.Load(policy.Options{Cwd: wd, Env: d.c.env, Providers: cat.Names()}); pol != nil {
			locked = pol.Locked
		}
	}
	now := time.Now()
	active := lift.Active(lifts, now)
	if len(active) == 0 {
		d.info("none in force")
		return
	}
	for _, l := range active {
		if lift.Locked(l.Rule, locked) {
			d.info("%s  %s — does not apply here: the managed policy sets it", l.Rule, l)
			continue
		}
		d.ok("%s  %s (%s left)", l.Rule, l, short(l.Until.Sub(now)))
	}
}
