package policy

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
	out := []Layer{{Name: Managed, File: o.ManagedPolicy()}, {Name: User, File: o.UserPolicy()}, {Name: Project}}
	for _, f := range files {
		for i := range out {
			if out[i].Name == f.Layer {
				out[i].File, out[i].Found = f.File, true
			}
		}
	}
	return out, nil
}
