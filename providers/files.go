package providers

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/spec"
)

// StateFile is a place a provider's state is kept.
type StateFile struct {
	Path string
	// Tree is set for a folder whose files are all state: the path depends on a value the state
	// itself selects (gcloud's configurations/config_${config}, terraform.tfstate.d/${value}).
	Tree bool
	// Anywhere is set for a relative Path: the CLI keeps this state in whichever directory it
	// runs in (terraform's .terraform/environment), so that path under any directory is state
	// (`cd infra && echo prod > .terraform/environment` selects infra's workspace).
	Anywhere bool
}

// StateFiles lists where a provider's state is kept, as a call with in would read it: the read
// steps' files, those the contexts are defined in (defined_in) and the folders its exists checks
// look in, for the rules that keep an agent from editing it past every switch rule (sed -i on
// the kubeconfig).
// Paths that cannot be worked out (an unset variable without a default) are left out.
func (r *Reader) StateFiles(s *spec.Spec, in spec.Input) []StateFile {
	x, err := r.start(s, &in)
	if err != nil {
		return nil
	}
	var out []StateFile
	add := func(f StateFile) {
		if f.Path != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	lets := make([]string, 0, len(s.Context.Read))
	for i := range s.Context.Read {
		st := &s.Context.Read[i]
		paths, _ := x.paths(st)
		// A path with a name the state selects in it (config_${config}) is one of a folder's.
		selected := slices.ContainsFunc(st.Templates(), func(t string) bool {
			names, _ := spec.Names(t)
			return slices.ContainsFunc(lets, func(l string) bool { return t != "${"+l+"}" && slices.Contains(names, l) })
		})
		for _, p := range paths {
			add(StateFile{Path: p})
			if selected {
				add(StateFile{Path: filepath.Dir(p), Tree: true})
			}
		}
		for _, p := range x.relative(st) {
			add(StateFile{Path: p, Anywhere: true})
			if selected {
				add(StateFile{Path: filepath.Dir(p), Tree: true, Anywhere: true})
			}
		}
		// A Let read from a state file selects a name (gcloud's active configuration); a Let that
		// takes the place of a file it found (firebase's project folder) is where the state is,
		// and a path under it is that file alone, never the whole folder.
		if st.Let != "" && st.Take == "" && len(st.File) > 0 {
			lets = append(lets, st.Let)
		}
	}
	// Files that define the contexts without selecting one: a template ending in a separator is
	// a folder of them.
	for _, t := range s.Context.DefinedIn {
		p, ok, _ := spec.Expand(t, x.lookup, in.Home, in.System.GOOS() == "windows")
		if !ok || p == "" {
			continue
		}
		tree := strings.HasSuffix(p, "/") || strings.HasSuffix(p, `\`)
		p = strings.TrimRight(p, `/\`)
		if abs, err := x.abs(p); err == nil {
			add(StateFile{Path: abs, Tree: tree})
		}
		if !in.System.IsAbs(p) {
			add(StateFile{Path: filepath.Clean(p), Tree: tree, Anywhere: true})
		}
	}
	for _, e := range s.Context.Exists {
		if e.Path == "" {
			continue
		}
		dir, _, _ := strings.Cut(e.Path, "${value}")
		if p, ok, _ := spec.Expand(strings.TrimRight(dir, `/\`), x.lookup, in.Home, in.System.GOOS() == "windows"); ok && p != "" {
			if abs, err := x.abs(p); err == nil {
				add(StateFile{Path: abs, Tree: true})
			}
			if !in.System.IsAbs(p) {
				add(StateFile{Path: filepath.Clean(p), Tree: true, Anywhere: true})
			}
		}
	}
	return out
}

// relative returns the step's paths that are relative once expanded, cleaned: state kept in the
// directory a call runs in. A path found upward (find_up) or in a list is not one of them.
func (x *run) relative(st *spec.Step) []string {
	if st.FindUp || st.List {
		return nil
	}
	var out []string
	for _, t := range x.templates(st) {
		if p, ok, _ := spec.Expand(t, x.lookup, x.in.Home, x.in.System.GOOS() == "windows"); ok && p != "" && !x.in.System.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}
