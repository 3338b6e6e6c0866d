package providers

import "github.com/ctxguard/ctxguard/spec"

// Lookup evaluates a gjson path on the last step's state file (for a list of files, the first
// that gives a value), as a switch's Lookup is; ${name} in path is an earlier Let value. ok is
// false when the path gives nothing. For the tests: the reader itself goes through Target.
func (r *Reader) Lookup(s *spec.Spec, in spec.Input, path string) (string, bool, error) {
	x, err := r.start(s, &in)
	if err != nil {
		return "", false, err
	}
	return x.lookupPath(substitute(path, x.lookup))
}
