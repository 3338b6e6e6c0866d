package suite

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/spec"
)

// State fakes the CLIs' state for a case (rules.State): each provider's active context and the
// contexts its state lists. A context given by a name the list has stands for that context's
// id. A switch's lookup (pac's --index, --name) finds its target in the list; a switch that
// selects a configuration (gcloud's configurations activate dev) selects the listed context whose
// name is the configuration's; a target that must exist (a terraform workspace) exists when the
// list has it or, without a list, always.
type State struct {
	Active map[string]spec.ContextValue
	Known  map[string][]spec.ContextValue
}

func (f State) known(s *spec.Spec) []spec.Known {
	var out []spec.Known
	for _, k := range f.Known[s.Name] {
		out = append(out, spec.Known{ID: k.ID, Name: cmp.Or(k.Name, k.ID), Fields: k.Fields})
	}
	return out
}

// Resolve returns the faked active context, or the one a configuration selects.
func (f State) Resolve(s *spec.Spec, in spec.Input) (spec.Active, error) {
	a := spec.Active{Known: f.known(s), Scope: "faked:" + s.Name}
	v, ok := f.Active[s.Name]
	for _, name := range in.Vars {
		if k, found := a.Find(name, s.Context.CaseInsensitive); found {
			v, ok = spec.ContextValue{ID: k.ID}, true
		}
	}
	if !ok {
		return a, nil
	}
	if k, found := a.Find(v.ID, s.Context.CaseInsensitive); found {
		a.Value, a.Name = k.ID, k.Name
	} else {
		a.Value, a.Name = v.ID, v.Name
		a.Known = append(a.Known, spec.Known{ID: v.ID, Name: cmp.Or(v.Name, v.ID), Fields: v.Fields})
	}
	a.From, a.File = spec.From{Kind: spec.FromFile}, "(faked state)"
	return a, nil
}

// Target finds a switch's target in the listed contexts when the switch looks it up. A switch
// that works its target out (read steps) does so from the call's flags, environment and
// defaults, without the files its steps name, which the faked state does not have.
func (f State) Target(s *spec.Spec, in spec.Input, sw *spec.Switch, target string) (string, bool, error) {
	if len(sw.Read) > 0 {
		bare := *sw
		bare.Read = make([]spec.Step, len(sw.Read))
		for i, st := range sw.Read {
			st.File, st.Windows, st.Darwin = nil, nil, nil
			st.Format, st.Value, st.Name, st.Else, st.List, st.FindUp = "", "", "", nil, false, false
			bare.Read[i] = st
		}
		return providers.NewReader().Target(s, in, &bare, target)
	}
	if sw.Lookup == "" {
		return target, target != "", nil
	}
	known := f.known(s)
	if sw.IndexBase != 0 {
		n, err := strconv.Atoi(target)
		if err != nil || n-sw.IndexBase < 0 || n-sw.IndexBase >= len(known) {
			return "", false, nil
		}
		return known[n-sw.IndexBase].ID, true, nil
	}
	a := spec.Active{Known: known}
	if k, ok := a.Find(target, s.Context.CaseInsensitive); ok {
		return k.ID, true, nil
	}
	return "", false, nil
}

// Exists reports whether a binding target exists: one of the spec's literal checks, or a
// listed context.
func (f State) Exists(s *spec.Spec, _ spec.Input, value string) (bool, error) {
	if len(s.Context.Exists) == 0 {
		return true, nil
	}
	if slices.ContainsFunc(s.Context.Exists, func(e spec.Exists) bool { return e.Equals != "" && e.Equals == value }) {
		return true, nil
	}
	list := f.Known[s.Name]
	if list == nil {
		return true, nil
	}
	return slices.ContainsFunc(list, func(k spec.ContextValue) bool { return k.ID == value || k.Name == value }), nil
}
