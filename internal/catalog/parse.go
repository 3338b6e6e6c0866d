package catalog

import (
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/spec"
)

// Parse decodes a provider spec strictly (an unknown key is an error) and checks it
// ([spec.Check]), so that a mistake in a provider file is reported with its file and line when
// the file is loaded, not discovered as a wrong decision later. source names the file in errors
// and in [spec.Spec.Source]. Parse fills in the defaults the schema documents
// ([spec.Spec.SetDefaults]).
func Parse(data []byte, source string) (*spec.Spec, error) {
	s, _, err := Decode(data, source)
	return s, err
}

// Decode is [Parse] that also returns where each item of the file is written, for a caller that
// reports more problems of its own (`ctxguard validate`: a name that is taken).
func Decode(data []byte, source string) (*spec.Spec, *codec.Positions, error) {
	s := new(spec.Spec)
	pos, err := codec.Decode(data, source, s)
	if pos == nil {
		return nil, nil, err
	}
	// The checks run on what did decode, so that one run reports every problem.
	problems := codec.NewProblems(pos, err)
	for _, p := range spec.Check(s) {
		problems.AddNeeds(p.Path, p.Needs, "%s", p.Msg)
	}
	if err := problems.Err(); err != nil {
		return nil, pos, err
	}
	s.Source = source
	s.SetDefaults()
	return s, pos, nil
}

// Load parses every *.yaml file at the root of fsys, in name order. Each spec's Source is source
// joined with the file name ("builtin:providers" gives "builtin:providers/az.yaml"). The names
// are checked as the specs go into a Catalog ([Catalog.AddSpecs]).
func Load(fsys fs.FS, source string) ([]*spec.Spec, error) { return load(fsys, source, path.Join) }

// load is Load with join naming each file in source: path.Join for a label, filepath.Join for a
// folder of the system, so that a Windows path keeps its backslashes.
func load(fsys fs.FS, source string, join func(...string) string) ([]*spec.Spec, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("load providers %s: %w", source, err)
	}
	slices.Sort(names)
	specs := make([]*spec.Spec, 0, len(names))
	for _, name := range names {
		src := join(source, name)
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("load provider %s: %w", src, err)
		}
		s, err := Parse(data, src)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}
