package guard

import (
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/spec"
)

// This file gives `ctxguard doctor`, `init` and `validate` the pieces Decide uses, so that what
// they report is what a hook run sees.

// State is one provider's active context, as a call of its CLI in the directory would see it
// with no flag and no variable set on the call.
type State struct {
	Name   string
	Spec   *spec.Spec
	Active spec.Active
	Err    error
	// Listed are the contexts that the spec's listed files define (aws's profiles), and
	// ListErr what kept any of those files from being read.
	Listed  []spec.Known
	ListErr error
}

// States resolves every provider's active context for a call in dir, in catalog order. A state
// file that cannot be read is reported in its State, not as an error: the others are still
// worth showing. A provider that reads another's state (Shares) is left out: its context is
// that provider's, reported once.
func States(cat *catalog.Catalog, dir string, env paths.Env) []State {
	r := providers.NewReader()
	var out []State
	for _, name := range cat.Names() {
		st := State{Name: name}
		st.Spec = cat.Spec(name)
		if st.Spec.Shares != "" {
			continue
		}
		in := spec.Input{
			Env: env.Lookup, Dir: dir, Home: env.Home, System: env,
			Flag: func([]string) (string, bool) { return "", false },
		}
		st.Active, st.Err = r.Resolve(st.Spec, in)
		st.Listed, st.ListErr = r.Listed(st.Spec, in)
		out = append(out, st)
	}
	return out
}
