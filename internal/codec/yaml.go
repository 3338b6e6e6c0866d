package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode decodes one YAML document into v, refusing keys that v has no field for, and returns
// where each of its items is written, both from one parse of data. A misspelt key in a policy
// that silently does nothing is worse than an error, so every problem (syntax, unknown key,
// repeated key, wrong type) comes back as a [*Error] naming file, line and, where the decoder
// allows, column; several problems come back joined ([errors.Join]). The positions let a caller
// point at the item of any problem it finds after decoding (an unknown setting, a bad pattern).
//
// An empty document (or one with only comments) decodes to nothing and is not an error. A second
// document in the same file is an error: a policy or provider file holds one.
func Decode(data []byte, file string, v any) (*Positions, error) {
	data = trimBOM(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	doc := &document{v: v}
	if err := dec.Decode(doc); err != nil {
		if err == io.EOF {
			return &Positions{file: file}, nil
		}
		return nil, convert(doc.root, file, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
		return &Positions{file: file, root: doc.root}, nil
	case err != nil:
		return nil, convert(doc.root, file, err)
	}
	return nil, &Error{File: file, Line: extra.Line, Col: extra.Column, Msg: "more than one YAML document"}
}

// DecodeStrict is [Decode] for a caller that needs no positions.
func DecodeStrict(data []byte, file string, v any) error {
	_, err := Decode(data, file, v)
	return err
}

// document is what Decode hands the decoder: it decodes into v with the decoder's own
// strictness (the function-style hook passes the decoder on, where yaml.Node.Decode would start
// a lax one) and keeps the document's node tree, so that positions cost no second parse.
type document struct {
	v    any
	root *yaml.Node
}

func (d *document) UnmarshalYAML(unmarshal func(any) error) error {
	var n node
	_ = unmarshal(&n) // cannot fail: it only takes the node
	d.root = n.Node
	return unmarshal(d.v)
}

// node takes the node it is decoded from, as it is.
type node struct{ *yaml.Node }

func (n *node) UnmarshalYAML(v *yaml.Node) error {
	n.Node = v
	return nil
}

// convert turns a yaml.v3 error into *Error values. yaml.v3 reports type errors as strings that
// start with "line N: "; the column is recovered by finding the node on that line in root (the
// document's node tree, nil when it did not parse).
func convert(root *yaml.Node, file string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		line, msg := splitLine(strings.TrimPrefix(err.Error(), "yaml: "))
		return &Error{File: file, Line: line, Msg: msg}
	}
	if root == nil {
		root = &yaml.Node{}
	}
	errs := make([]error, 0, len(te.Errors))
	for _, s := range te.Errors {
		line, msg := splitLine(s)
		e := &Error{File: file, Line: line, Msg: msg}
		switch {
		case strings.HasPrefix(msg, "field ") && strings.Contains(msg, " not found in type "):
			key := strings.TrimPrefix(msg[:strings.Index(msg, " not found in type ")], "field ")
			e.Msg = fmt.Sprintf("unknown key %q", key)
			e.Col = keyColumn(root, line, key)
		case strings.HasPrefix(msg, "mapping key "):
			// mapping key "x" already defined at line 3
			rest := strings.TrimPrefix(msg, "mapping key ")
			if key, err := strconv.QuotedPrefix(rest); err == nil {
				k, _ := strconv.Unquote(key)
				e.Msg = "key " + key + strings.Replace(rest[len(key):], " already defined", " is already defined", 1)
				e.Col = keyColumn(root, line, k)
			}
		case strings.HasPrefix(msg, "cannot unmarshal "):
			e.Col = valueColumn(root, line, msg)
		}
		errs = append(errs, e)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// splitLine takes the "line N: " prefix off a yaml.v3 message.
func splitLine(s string) (int, string) {
	rest, ok := strings.CutPrefix(s, "line ")
	if !ok {
		return 0, s
	}
	num, msg, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 0, s
	}
	return n, msg
}

// keyColumn finds the column of a mapping key on a line.
func keyColumn(n *yaml.Node, line int, key string) int {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Line == line && k.Value == key {
				return k.Column
			}
		}
	}
	for _, c := range n.Content {
		if col := keyColumn(c, line, key); col > 0 {
			return col
		}
	}
	return 0
}

// valueColumn finds the column of the value a "cannot unmarshal !!tag `value` into T" message
// is about: the deepest node on the line that is not a mapping key and has that tag (and, for
// scalars, that value, which yaml.v3 shortens to 7 characters and "..."). Deepest, because in
// `- file: {a: b}` the step's mapping and the misplaced one start on the same line, and a
// wrongly typed value is the usual mistake.
func valueColumn(root *yaml.Node, line int, msg string) int {
	rest := strings.TrimPrefix(msg, "cannot unmarshal ")
	tag, rest, _ := strings.Cut(rest, " ")
	var prefix string
	if strings.HasPrefix(rest, "`") {
		if end := strings.Index(rest[1:], "` into "); end >= 0 {
			prefix = strings.TrimSuffix(rest[1:1+end], "...")
		}
	}
	col, depth := 0, -1
	var walk func(n *yaml.Node, isKey bool, d int)
	walk = func(n *yaml.Node, isKey bool, d int) {
		if !isKey && n.Kind != yaml.DocumentNode && n.Line == line && n.ShortTag() == tag &&
			strings.HasPrefix(n.Value, prefix) && d > depth {
			col, depth = n.Column, d
		}
		for i, c := range n.Content {
			walk(c, n.Kind == yaml.MappingNode && i%2 == 0, d+1)
		}
	}
	walk(root, false, 0)
	return col
}

// Positions maps the paths of a YAML document's items to where they are written, so that an
// error found after decoding (an unknown setting, a bad pattern) or an explanation can point at
// the line. A path joins mapping keys and 0-based sequence indexes with dots:
// "contexts.az.allow", "contexts.az.allow.1", "rules.0.match"; "" is the document itself. A
// mapping entry is at its key; a sequence item at the item. Keys that contain dots make paths
// ambiguous; policy and provider files have none.
type Positions struct {
	file string
	root *yaml.Node     // nil for an empty document
	at   map[string]Pos // built from root on first use: most provider files never need it
}

func (p *Positions) index() map[string]Pos {
	if p.at == nil {
		p.at = make(map[string]Pos)
		if p.root != nil {
			p.walk(p.root, "")
		}
	}
	return p.at
}

func (p *Positions) walk(n *yaml.Node, path string) {
	p.at[path] = Pos{n.Line, n.Column}
	prefix := path
	if prefix != "" {
		prefix += "."
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := prefix + k.Value
			p.walk(v, sub)
			p.at[sub] = Pos{k.Line, k.Column}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p.walk(c, prefix+strconv.Itoa(i))
		}
	}
}

// File is the file name the positions are for.
func (p *Positions) File() string { return p.file }

// At returns where the item at path is written.
func (p *Positions) At(path string) (Pos, bool) {
	if p == nil {
		return Pos{}, false
	}
	pos, ok := p.index()[path]
	return pos, ok
}

// Errorf returns an error at the item at path or, when that item is not written (a required key
// that is missing), at the nearest enclosing item that is.
func (p *Positions) Errorf(path, format string, args ...any) *Error {
	e := &Error{Msg: fmt.Sprintf(format, args...)}
	if p == nil {
		return e
	}
	e.File = p.file
	at := p.index()
	for {
		if pos, ok := at[path]; ok {
			e.Line, e.Col = pos.Line, pos.Col
			return e
		}
		if path == "" {
			return e
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			path = ""
		} else {
			path = path[:i]
		}
	}
}
