package hookfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/tailscale/hujson"
)

// Kind is the kind of a JSON value.
type Kind byte

// The kinds of JSON values; Literal covers numbers, true, false and null.
const (
	Object  Kind = '{'
	Array   Kind = '['
	String  Kind = '"'
	Literal Kind = '0'
)

// Node is one JSON value and where it is written.
type Node struct {
	Kind Kind
	// Start and End delimit the value's bytes: src[Start:End].
	Start, End int
	// Key is the member name when the node is the value of an object member; KeyStart and
	// KeyEnd delimit the name with its quotes. For an array item KeyStart is Start.
	Key            string
	KeyStart       int
	KeyEnd         int
	Children       []*Node // members' values of an object, items of an array, in order
	Parent         *Node
	src            []byte
	inObjectMember bool
}

// Raw returns the value's bytes as written.
func (n *Node) Raw() []byte { return n.src[n.Start:n.End] }

// Get returns the value of the object member key; the last one when the key is repeated, as
// JavaScript's JSON.parse does. nil when n is not an object or has no such member.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Children) - 1; i >= 0; i-- {
		if n.Children[i].Key == key {
			return n.Children[i]
		}
	}
	return nil
}

// Str returns the value of a string node.
func (n *Node) Str() (string, bool) {
	if n == nil || n.Kind != String {
		return "", false
	}
	var s string
	if err := json.Unmarshal(n.Raw(), &s); err != nil {
		return "", false
	}
	return s, true
}

// Strs returns the values of an array of strings; ok is false if n is not one.
func (n *Node) Strs() ([]string, bool) {
	if n == nil || n.Kind != Array {
		return nil, false
	}
	out := make([]string, 0, len(n.Children))
	for _, c := range n.Children {
		s, ok := c.Str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// Pos is where the member or item is written.
func (n *Node) Pos() codec.Pos { return codec.Position(n.src, n.memberStart()) }

// errorAt is a problem with the member or item n, naming where it is written.
func (n *Node) errorAt(file, msg string) error { return fileError(file, n.src, n.memberStart(), msg) }

// memberStart is where the member or item begins: its key, or the value of an array item.
func (n *Node) memberStart() int {
	if n.inObjectMember {
		return n.KeyStart
	}
	return n.Start
}

// maxDepth bounds nesting: settings files are shallow, and a file nested deeper than this is not
// one a harness wrote.
const maxDepth = 1000

// parseTree parses data, which must be exactly one JSON value, into a tree. Comments and
// trailing commas are allowed (JSON with commas and comments, which editors accept in settings
// files and Gemini CLI reads); they stay in the bytes, outside every node. A UTF-8 byte-order
// mark at the start is skipped (and kept in the bytes).
func parseTree(data []byte, file string) (*Node, error) {
	body := bytes.TrimPrefix(data, bom)
	shift := len(data) - len(body)
	v, err := hujson.Parse(body)
	if err != nil {
		return nil, parseError(file, err, shift)
	}
	return build(&v, nil, data, shift, 0, file)
}

var bom = []byte("\xef\xbb\xbf")

// standard is data as plain JSON: without a byte-order mark, comments and trailing commas. It
// works on a copy, since hujson blanks the comments out in the bytes it is given.
func standard(data []byte) ([]byte, error) {
	return hujson.Standardize(bytes.Clone(bytes.TrimPrefix(data, bom)))
}

// build turns hujson's value into a Node whose offsets count from the start of src, which holds
// shift bytes (a byte-order mark) before the text hujson read.
func build(v *hujson.Value, parent *Node, src []byte, shift, depth int, file string) (*Node, error) {
	n := &Node{Start: v.StartOffset + shift, End: v.EndOffset + shift, Parent: parent, src: src}
	n.KeyStart = n.Start
	if depth > maxDepth {
		return nil, n.errorAt(file, "invalid JSON: nested too deeply")
	}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.Kind = Object
		for i := range t.Members {
			m := &t.Members[i]
			c, err := build(&m.Value, n, src, shift, depth+1, file)
			if err != nil {
				return nil, err
			}
			c.Key = m.Name.Value.(hujson.Literal).String()
			c.KeyStart, c.KeyEnd, c.inObjectMember = m.Name.StartOffset+shift, m.Name.EndOffset+shift, true
			n.Children = append(n.Children, c)
		}
	case *hujson.Array:
		n.Kind = Array
		for i := range t.Elements {
			c, err := build(&t.Elements[i], n, src, shift, depth+1, file)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
		}
	case hujson.Literal:
		n.Kind = Literal
		if t.Kind() == '"' {
			n.Kind = String
		}
	}
	return n, nil
}

// parseError turns hujson's error, which says "hujson: line L, column C: what", into a
// [*codec.Error] naming file:line:col. On the first line the column counts the byte-order mark.
func parseError(file string, err error, shift int) error {
	e := &codec.Error{File: file, Msg: "invalid JSON: " + err.Error()}
	var line, col int
	if _, scanErr := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &line, &col); scanErr == nil {
		if line == 1 {
			col += shift
		}
		e.Line, e.Col = line, col
		if inner := errors.Unwrap(err); inner != nil {
			e.Msg = "invalid JSON: " + inner.Error()
		}
	}
	return e
}

// fileError is a problem at offset off of a file, as a [*codec.Error] naming file:line:col.
func fileError(file string, src []byte, off int, msg string) error {
	at := codec.Position(src, off)
	return &codec.Error{File: file, Line: at.Line, Col: at.Col, Msg: msg}
}
