package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/spec"
)

// Parse decodes a provider spec strictly (an unknown key is an error) and checks it, so that a
// mistake in a provider file is reported with its file and line when the file is loaded, not
// discovered as a wrong decision later. source names the file in errors and in [spec.Spec.Source].
// Parse fills in the defaults the schema documents (spec.Spec.SetDefaults).
func Parse(data []byte, source string) (*spec.Spec, error) {
	s := new(spec.Spec)
	if err := codec.DecodeStrict(data, source, s); err != nil {
		return nil, err
	}
	if problems := spec.Check(s); len(problems) > 0 {
		// Positions cost a second parse; only a broken file pays it.
		pos, err := codec.Locate(data, source)
		if err != nil {
			return nil, err
		}
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = pos.Errorf(p.Path, "%s", p.Msg)
		}
		return nil, errors.Join(errs...)
	}
	s.Source = source
	s.SetDefaults()
	return s, nil
}

// Load parses every *.yaml file at the root of fsys, in name order. Each spec's Source is source
// joined with the file name ("builtin:providers" gives "builtin:providers/az.yaml"). Two files
// that define the same provider name are an error: which one won would depend on file names.
func Load(fsys fs.FS, source string) ([]*spec.Spec, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("load providers %s: %w", source, err)
	}
	slices.Sort(names)
	specs := make([]*spec.Spec, 0, len(names))
	byName := make(map[string]string, len(names))
	for _, name := range names {
		src := path.Join(source, name)
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("load provider %s: %w", src, err)
		}
		s, err := Parse(data, src)
		if err != nil {
			return nil, err
		}
		if prev, ok := byName[s.Name]; ok {
			return nil, fmt.Errorf("load provider %s: name %q is already defined in %s", src, s.Name, prev)
		}
		byName[s.Name] = src
		specs = append(specs, s)
	}
	return specs, nil
}
