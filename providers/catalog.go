package providers

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Catalog holds the provider specs a hook run may need and finds them by command word.
//
// Parsing YAML is the most expensive thing a hook run would do with the built-in providers
// (about 0.3 ms a file, against a budget of a few milliseconds for the whole process), and most
// command lines (git, ls, go test) use none of them. So the built-ins come compiled (see
// [Compile]): a small index of names and command words, and one JSON file per spec, decoded
// only when a line needs that spec. User files are few and parsed when added, so that a broken one is
// reported on every run, not only when its CLI is used.
//
// A Catalog is not safe for concurrent use.
type Catalog struct {
	files  []*entry
	byName map[string]*entry
	byWord map[string][]*entry
}

// entry is one spec, parsed or still compiled.
type entry struct {
	Name       string   `json:"name"`
	Commands   []string `json:"commands"`
	SwitchedBy []string `json:"switched_by,omitempty"`
	Source     string   `json:"source"`
	fsys       fs.FS    // where the compiled spec is, if it is not parsed yet
	spec       *Spec
	err        error
}

// NewCatalog returns an empty Catalog.
func NewCatalog() *Catalog {
	return &Catalog{byName: map[string]*entry{}, byWord: map[string][]*entry{}}
}

// Add parses every *.yaml file at the root of fsys, named like [Load] names them. A provider
// name already in the catalog is an error: a later folder cannot silently replace a provider,
// built-in or not.
func (c *Catalog) Add(fsys fs.FS, source string) error {
	specs, err := Load(fsys, source)
	if err != nil {
		return err
	}
	for _, s := range specs {
		if err := c.add(&entry{Name: s.Name, Commands: s.Commands, SwitchedBy: s.SwitchedBy, Source: s.Source, spec: s}); err != nil {
			return err
		}
	}
	return nil
}

// AddCompiled adds the specs that [Compile] wrote into fsys: an index, read now, and one JSON
// file per spec, decoded when a line first needs it.
func (c *Catalog) AddCompiled(fsys fs.FS) error {
	index, err := fs.ReadFile(fsys, "index.json")
	if err != nil {
		return fmt.Errorf("load compiled providers: %w", err)
	}
	var entries []*entry
	if err := json.Unmarshal(index, &entries); err != nil {
		return fmt.Errorf("load compiled providers: %w", err)
	}
	for _, e := range entries {
		e.fsys = fsys
		if err := c.add(e); err != nil {
			return err
		}
	}
	return nil
}

// Compile turns parsed specs into the files [Catalog.AddCompiled] reads: index.json and
// <name>.json for each spec.
func Compile(specs []*Spec) (map[string][]byte, error) {
	out := map[string][]byte{}
	entries := make([]*entry, len(specs))
	for i, s := range specs {
		raw, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("compile provider %s: %w", s.Source, err)
		}
		out[s.Name+".json"] = raw
		entries[i] = &entry{Name: s.Name, Commands: s.Commands, SwitchedBy: s.SwitchedBy, Source: s.Source}
	}
	index, err := json.MarshalIndent(entries, "", " ")
	out["index.json"] = index
	return out, err
}

func (c *Catalog) add(e *entry) error {
	if prev, ok := c.byName[e.Name]; ok {
		return fmt.Errorf("load provider %s: name %q is already defined in %s", e.Source, e.Name, prev.Source)
	}
	c.byName[e.Name] = e
	c.files = append(c.files, e)
	for _, w := range e.words() {
		if l := c.byWord[w]; !slices.Contains(l, e) {
			c.byWord[w] = append(l, e)
		}
	}
	return nil
}

// words are the command words that make a line need this spec: its own commands and the first
// word of each switched_by entry (kubectl's spec matters to a line that runs `az aks
// get-credentials`).
func (e *entry) words() []string {
	ws := slices.Clone(e.Commands)
	for _, p := range e.SwitchedBy {
		if fs := strings.Fields(p); len(fs) > 0 && !slices.Contains(ws, fs[0]) {
			ws = append(ws, fs[0])
		}
	}
	return ws
}

func (e *entry) parse() (*Spec, error) {
	if e.spec != nil || e.err != nil {
		return e.spec, e.err
	}
	var s Spec
	data, err := fs.ReadFile(e.fsys, e.Name+".json")
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		e.err = fmt.Errorf("load compiled provider %s: %w", e.Source, err)
		return nil, e.err
	}
	s.Source = e.Source
	e.spec = &s
	return e.spec, nil
}

// Names returns the provider names, in the order they were added.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.files))
	for i, e := range c.files {
		out[i] = e.Name
	}
	return out
}

// Guards reports whether some provider cares about a command word, without decoding anything.
func (c *Catalog) Guards(word string) bool { return len(c.byWord[word]) > 0 }

// For returns the specs a call of the command word needs: those that guard it and those that it
// switches (switched_by), in the order they were added.
func (c *Catalog) For(word string) ([]*Spec, error) {
	return c.parse(c.byWord[word])
}

// Spec returns the spec with this name; nil when there is none.
func (c *Catalog) Spec(name string) (*Spec, error) {
	e, ok := c.byName[name]
	if !ok {
		return nil, nil
	}
	return e.parse()
}

// All returns every spec (for validation and listings), in the order they were added.
func (c *Catalog) All() ([]*Spec, error) { return c.parse(c.files) }

func (c *Catalog) parse(entries []*entry) ([]*Spec, error) {
	out := make([]*Spec, 0, len(entries))
	for _, e := range entries {
		s, err := e.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
