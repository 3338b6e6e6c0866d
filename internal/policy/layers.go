package policy

import (
	"os"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/rules"
)

// Layer is where one layer's policy file is looked for, and whether it is there.
type Layer struct {
	Name string // Managed, User or Project
	// File is the file Load reads for this layer. For the project layer it is "" when no file
	// was found on the way up; for the user layer when there is no home directory.
	File  string
	Found bool
}

// Layers returns the three layers for o in merge order, found or not, so that `ctxguard doctor`
// can say where each file would be. It fails like Load when a file's presence cannot be known.
func Layers(o Options) ([]Layer, error) {
	files, err := find(o)
	if err != nil {
		return nil, err
	}
	var out []Layer
	for _, f := range o.fixed() {
		out = append(out, Layer{Name: f.Layer, File: f.File})
	}
	out = append(out, Layer{Name: Project})
	for _, f := range files {
		for i := range out {
			if out[i].Name == f.Layer {
				out[i].File, out[i].Found = f.File, true
			}
		}
	}
	return out, nil
}

// fixed are the layers whose file is at a fixed place, in merge order; the project layer's is
// found by walking up from the working directory.
func (o Options) fixed() []rules.PolicyFile {
	return []rules.PolicyFile{{Layer: Managed, File: o.ManagedPolicy()}, {Layer: User, File: o.UserPolicy()}}
}

// LayerOf is the layer a policy file is read as: the managed or the user policy when it is that
// file (the same file, however named), else a project's, where what only a user or an
// administrator may set (such as where the audit trail goes) is an error.
func LayerOf(file string, env paths.Env) string {
	fi, err := os.Stat(file)
	if err != nil {
		return Project
	}
	for _, l := range (Options{Env: env}).fixed() {
		if other, err := os.Stat(l.File); l.File != "" && err == nil && os.SameFile(fi, other) {
			return l.Layer
		}
	}
	return Project
}
