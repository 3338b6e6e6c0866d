package paths

import (
	"iter"
	"path/filepath"
)

// Up yields dir and then each directory above it, up to the root; nothing for "". The walk is
// lexical, on the path as given: each step removes one element, so that a symlink loop cannot
// make it run forever. A caller that stops earlier (at the home directory) breaks out.
func Up(dir string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if dir == "" {
			return
		}
		for d := filepath.Clean(dir); yield(d); {
			parent := filepath.Dir(d)
			if parent == d {
				return
			}
			d = parent
		}
	}
}
