package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFile bounds a YAML file that ctxguard reads (a policy, a provider): theirs are a few
// kilobytes, and the hook reads them before every command. The hook and `ctxguard validate` read
// with the same bound, so that a file too large for one is too large for the other.
const MaxFile = 1 << 20

// Decode decodes one YAML document into v, refusing keys that v has no field for, and returns
// where each of its items is written, both from one parse of data. A misspelt key in a policy
// that silently does nothing is worse than an error, so every problem (syntax, unknown key,
// repeated key, wrong type) comes back as a [*Error] naming file, line and, where the decoder
// allows, column, in words a reader of the file understands; several problems come back joined
// ([errors.Join]).
//
// A file that parses but has values of the wrong type or unknown keys still gets its positions,
// with v holding everything that did decode: the caller checks the rest and reports its own
// problems with these (an unknown setting, a bad pattern), so that one run names every mistake
// in the file. Only YAML that does not parse at all returns no positions.
//
// An empty document (or one with only comments) decodes to nothing and is not an error. A second
// document in the same file is an error: a policy or provider file holds one.
func Decode(data []byte, file string, v any) (*Positions, error) {
	data = trimBOM(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	doc := &document{v: v}
	var errs []error
	if err := dec.Decode(doc); err != nil {
		var te *yaml.TypeError
		switch {
		case err == io.EOF:
			return &Positions{file: file}, nil
		case !errors.As(err, &te) || doc.root == nil:
			return nil, syntaxError(data, file)
		}
		errs = typeErrors(doc.root, reflect.TypeOf(v), file, te)
	}
	pos := &Positions{file: file, root: doc.root}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError(data, file)
	default:
		errs = append(errs, &Error{File: file, Line: extra.Line, Col: extra.Column,
			Msg: "a second YAML document (after ---): a file holds one; remove the --- line and merge the two, or move the second into a file of its own"})
	}
	return pos, errors.Join(errs...)
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

// Positions maps the paths of a YAML document's items to where they are written, so that an
// error found after decoding (an unknown setting, a bad pattern) or an explanation can point at
// the line. A path joins mapping keys and 0-based sequence indexes with dots:
// "contexts.az.allow", "contexts.az.allow.1", "rules.0.match"; "" is the document itself. A
// mapping entry is at its key; a sequence item at the item. Keys that contain dots make paths
// ambiguous; policy and provider files have none.
type Positions struct {
	file string
	root *yaml.Node // nil for an empty document
}

// find is where the item at path is written, looked up in the tree below n, whose path is
// written as far as rest's start: rest is what is left of the path, with its leading dot, unless
// n's own path is "" (top, then). A path that several items spell (keys with dots, repeated keys)
// is the last of them in the document, and a mapping entry's key stands for its value. A hook
// run looks up a few paths of its policy: a walk of a few keys each, where an index of every
// path cost a string and a map entry per item.
func find(n *yaml.Node, rest string, top bool) (Pos, bool) {
	// child matches rest against one child's key, and finds the path in it.
	child := func(key string, keyPos Pos, v *yaml.Node) (Pos, bool) {
		r := rest
		if !top {
			if r == "" || r[0] != '.' {
				return Pos{}, false
			}
			r = r[1:]
		}
		r, ok := strings.CutPrefix(r, key)
		switch {
		case !ok:
			return Pos{}, false
		case r == "":
			return keyPos, true
		}
		return find(v, r, top && key == "")
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := len(n.Content)/2*2 - 2; i >= 0; i -= 2 {
			k := n.Content[i]
			if pos, ok := child(k.Value, Pos{k.Line, k.Column}, n.Content[i+1]); ok {
				return pos, true
			}
		}
	case yaml.SequenceNode:
		for i := len(n.Content) - 1; i >= 0; i-- {
			c := n.Content[i]
			if pos, ok := child(strconv.Itoa(i), Pos{c.Line, c.Column}, c); ok {
				return pos, true
			}
		}
	}
	if rest == "" {
		return Pos{n.Line, n.Column}, true
	}
	return Pos{}, false
}

// File is the file name the positions are for.
func (p *Positions) File() string { return p.file }

// At returns where the item at path is written.
func (p *Positions) At(path string) (Pos, bool) {
	if p == nil {
		return Pos{}, false
	}
	if p.root == nil {
		return Pos{}, false
	}
	return find(p.root, path, true)
}

// Errorf returns an error at the item at path or, when that item is not written (a required key
// that is missing), at the nearest enclosing item that is.
func (p *Positions) Errorf(path, format string, args ...any) *Error {
	e := &Error{Msg: fmt.Sprintf(format, args...)}
	if p == nil {
		return e
	}
	e.File = p.file
	for {
		if pos, ok := p.At(path); ok {
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
