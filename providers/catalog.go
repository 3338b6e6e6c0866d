package providers

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Catalog holds provider files and parses each one the first time a command line needs it.
//
// Parsing YAML is the most expensive thing a hook run does with the built-in providers (about
// 1.5 ms for the six, against a budget of a few milliseconds for the whole process), and most
// command lines (git, ls, go test) use none of them. So a Catalog reads only each file's name,
// commands and switched_by when it is added (a line scan, microseconds) and parses the whole spec
// on demand. A file whose header the scan cannot read with certainty (quoted keys, anchors,
// multi-line flow lists) is parsed at once instead: the scan never guesses. When a spec is
// parsed, its header is checked against the scan.
//
// A Catalog is not safe for concurrent use.
type Catalog struct {
	files  []*entryFile
	byName map[string]*entryFile
	byWord map[string][]*entryFile
}

type entryFile struct {
	source string
	data   []byte
	header header
	spec   *Spec
	err    error
}

// header is what a Catalog knows of a file before parsing it.
type header struct {
	name       string
	commands   []string
	switchedBy []string
}

// NewCatalog returns an empty Catalog.
func NewCatalog() *Catalog {
	return &Catalog{byName: map[string]*entryFile{}, byWord: map[string][]*entryFile{}}
}

// Add adds every *.yaml file at the root of fsys, named like [Load] names them. A provider name
// already in the catalog (from this or an earlier Add) is an error: a later folder cannot
// silently replace a provider, built-in or not.
func (c *Catalog) Add(fsys fs.FS, source string) error {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return fmt.Errorf("load providers %s: %w", source, err)
	}
	slices.Sort(names)
	for _, name := range names {
		src := path.Join(source, name)
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("load provider %s: %w", src, err)
		}
		f := &entryFile{source: src, data: data}
		h, ok := scanHeader(data)
		if !ok {
			if f.spec, err = Parse(data, src); err != nil {
				return err
			}
			h = header{f.spec.Name, f.spec.Commands, f.spec.SwitchedBy}
		}
		f.header = h
		if prev, ok := c.byName[h.name]; ok {
			return fmt.Errorf("load provider %s: name %q is already defined in %s", src, h.name, prev.source)
		}
		c.byName[h.name] = f
		c.files = append(c.files, f)
		for _, w := range f.words() {
			if l := c.byWord[w]; !slices.Contains(l, f) {
				c.byWord[w] = append(l, f)
			}
		}
	}
	return nil
}

// words are the command words that make a line need this spec: its own commands and the first
// word of each switched_by entry (kubectl's spec matters to a line that runs `az aks
// get-credentials`).
func (f *entryFile) words() []string {
	ws := slices.Clone(f.header.commands)
	for _, p := range f.header.switchedBy {
		if fs := strings.Fields(p); len(fs) > 0 && !slices.Contains(ws, fs[0]) {
			ws = append(ws, fs[0])
		}
	}
	return ws
}

func (f *entryFile) parse() (*Spec, error) {
	if f.spec != nil || f.err != nil {
		return f.spec, f.err
	}
	s, err := Parse(f.data, f.source)
	if err == nil {
		h := f.header
		if s.Name != h.name || !slices.Equal(s.Commands, h.commands) || !slices.Equal(s.SwitchedBy, h.switchedBy) {
			err = fmt.Errorf("load provider %s: the header scan disagrees with the parse (name %q, commands %q, switched_by %q)",
				f.source, h.name, h.commands, h.switchedBy)
		}
	}
	if err != nil {
		f.err = err
		return nil, err
	}
	f.spec = s
	return s, nil
}

// Names returns the provider names, in the order they were added.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.files))
	for i, f := range c.files {
		out[i] = f.header.name
	}
	return out
}

// Guards reports whether some provider cares about a command word, without parsing anything.
func (c *Catalog) Guards(word string) bool { return len(c.byWord[word]) > 0 }

// For returns the specs a call of the command word needs: those that guard it and those that it
// switches (switched_by), parsed if they were not yet, in the order they were added.
func (c *Catalog) For(word string) ([]*Spec, error) {
	files := c.byWord[word]
	if len(files) == 0 {
		return nil, nil
	}
	out := make([]*Spec, 0, len(files))
	for _, f := range files {
		s, err := f.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Spec returns the spec with this name, parsed; nil when there is none.
func (c *Catalog) Spec(name string) (*Spec, error) {
	f, ok := c.byName[name]
	if !ok {
		return nil, nil
	}
	return f.parse()
}

// All parses every spec (for validation and listings) and returns them in the order they were
// added.
func (c *Catalog) All() ([]*Spec, error) {
	out := make([]*Spec, 0, len(c.files))
	for _, f := range c.files {
		s, err := f.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// scanHeader reads name, commands and switched_by from the top level of a provider file by
// lines. It accepts only the plain shapes the built-in files use (`key: value`, `key: [a, b]`,
// `key:` followed by `  - item` lines, comments); anything else makes it give up (ok false), and
// the caller parses the file.
func scanHeader(data []byte) (h header, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var key string // the top-level key whose block list is being read
	var seen [3]bool
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		if len(raw) == 0 || raw[0] == '#' || raw[0] == '\r' {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			if key == "" {
				continue // inside another top-level key: not looked at
			}
			trimmed := strings.TrimSpace(string(raw))
			if trimmed == "" || trimmed[0] == '#' {
				continue
			}
			item, found := strings.CutPrefix(trimmed, "- ")
			item = stripComment(item)
			if !found || !plain(item, key == "switched_by") {
				return h, false
			}
			h.add(key, item)
			continue
		}
		key = ""
		colon := bytes.IndexByte(raw, ':')
		if colon < 0 || !isLet(string(raw[:colon])) {
			return h, false // ---, quoted keys, complex keys: parse instead
		}
		k := string(raw[:colon])
		idx := slices.Index([]string{"name", "commands", "switched_by"}, k)
		if idx < 0 {
			continue
		}
		if seen[idx] {
			return h, false
		}
		seen[idx] = true
		rest := stripComment(string(raw[colon+1:]))
		switch {
		case k == "name":
			if !isName(rest) {
				return h, false
			}
			h.name = rest
		case rest == "":
			key = k
		case strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]"):
			body := strings.TrimSpace(rest[1 : len(rest)-1])
			if body == "" {
				continue
			}
			for _, item := range strings.Split(body, ",") {
				item = strings.TrimSpace(item)
				if !plain(item, k == "switched_by") {
					return h, false
				}
				h.add(k, item)
			}
		default:
			return h, false
		}
	}
	return h, h.name != "" && len(h.commands) > 0
}

func (h *header) add(key, item string) {
	if key == "commands" {
		h.commands = append(h.commands, item)
	} else {
		h.switchedBy = append(h.switchedBy, item)
	}
}

// stripComment drops a trailing " # comment" and surrounding white space.
func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// plain accepts a YAML plain scalar made of word characters (and single spaces inside a
// pattern), the only shape the scan trusts to mean what it says.
func plain(s string, spaces bool) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && spaces && i > 0 && s[i-1] != ' ':
		case c == '-' || c == '_' || c == '.' || c == '/':
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return !strings.HasSuffix(s, " ")
}
