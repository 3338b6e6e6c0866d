package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/spec"
)

// Catalog holds the provider specs a hook run may need and finds them by command word, so that
// the engine only looks at the providers a line names. A Catalog is not safe for concurrent
// use.
//
// A hook run asks for the few words its line uses, once each: the specs are searched for each
// new word rather than indexed up front, which cost more at every start than the searches.
type Catalog struct {
	specs  []*spec.Spec
	byWord map[string][]*spec.Spec // the answers of For so far
}

// builtinSource names the built-in providers' folder in their specs' Source
// ("builtin:providers/az.yaml").
const builtinSource = "builtin:providers"

// New returns a Catalog of the built-in providers (their names are distinct: TestLoad checks).
// The shared list is clipped, so that adding specs copies it.
func New() *Catalog { return &Catalog{specs: slices.Clip(Builtin())} }

// Open returns the providers a hook run knows: the built-in ones and the user's, the *.yaml
// files of env's providers folder ([paths.Env.ProvidersDir]). A user file may add a CLI but not
// replace a built-in one: two files with one name are an error, never a silent override. User
// files are few and parsed here, so that a broken one is reported on every run, not only when
// its CLI is used.
func Open(env paths.Env) (*Catalog, error) {
	c := New()
	dir := env.ProvidersDir()
	if dir == "" {
		return c, nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, fmt.Errorf("read providers folder %s: %w", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("read providers folder %s: is not a directory", dir)
	}
	// The files are read as the policy's are, so that a named pipe among them is refused rather
	// than waited on (see package file).
	specs, err := load(file.FS(dir, codec.MaxFile), dir, filepath.Join)
	if err == nil {
		err = c.AddSpecs(specs)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Add parses every *.yaml file at the root of fsys, named like [Load] names them, and adds
// them ([Catalog.AddSpecs]).
func (c *Catalog) Add(fsys fs.FS, source string) error {
	specs, err := Load(fsys, source)
	if err != nil {
		return err
	}
	return c.AddSpecs(specs)
}

// AddSpecs adds specs that are already parsed. A provider name already in the catalog is a
// [*NameError]: a file cannot silently replace a provider, built-in or not, and which of two
// files won would depend on their names.
func (c *Catalog) AddSpecs(specs []*spec.Spec) error {
	for _, s := range specs {
		if prev := c.Spec(s.Name); prev != nil {
			return &NameError{Name: s.Name, Source: s.Source, Prev: prev.Source}
		}
		c.specs = append(c.specs, s)
	}
	c.byWord = nil
	return nil
}

// NameError is a provider file that defines a name the catalog already has.
type NameError struct {
	Name   string
	Source string // the file
	Prev   string // where the name is defined already
}

func (e *NameError) Error() string { return "load provider " + e.Source + ": " + e.Problem() }

// Problem says what is wrong and what to do, for a message that names the file itself.
func (e *NameError) Problem() string {
	if strings.HasPrefix(e.Prev, builtinSource+"/") {
		return fmt.Sprintf("provider %q is built in; a file may add a CLI, not replace one: pick another name", e.Name)
	}
	return fmt.Sprintf("provider %q is also defined in %s: rename one, or remove it", e.Name, e.Prev)
}

// needs reports whether a call of the command word needs s: it is one of s's commands or the
// first word of a switched_by or redefined_by entry (kubectl's spec matters to a line that runs
// `az aks get-credentials` or `kubens`).
func needs(s *spec.Spec, word string) bool {
	if slices.Contains(s.Commands, word) {
		return true
	}
	for _, p := range s.SwitchedBy {
		if firstField(p.Command) == word {
			return true
		}
	}
	for _, r := range s.RedefinedBy {
		if firstField(r.Command) == word {
			return true
		}
	}
	return false
}

// firstField is strings.Fields(s)[0], or "", without splitting the rest.
func firstField(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}

// Names returns the provider names, in the order they were added.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.specs))
	for i, s := range c.specs {
		out[i] = s.Name
	}
	return out
}

// For returns the specs a call of the command word needs: those that guard it and those that it
// switches or redefines (switched_by, redefined_by), in the order they were added.
func (c *Catalog) For(word string) []*spec.Spec {
	if out, ok := c.byWord[word]; ok {
		return out
	}
	var out []*spec.Spec
	for _, s := range c.specs {
		if needs(s, word) {
			out = append(out, s)
		}
	}
	if c.byWord == nil {
		c.byWord = map[string][]*spec.Spec{}
	}
	c.byWord[word] = out
	return out
}

// Spec returns the spec with this name; nil when there is none.
func (c *Catalog) Spec(name string) *spec.Spec {
	for _, s := range c.specs {
		if s.Name == name {
			return s
		}
	}
	return nil
}
