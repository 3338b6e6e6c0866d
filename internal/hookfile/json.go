package hookfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxguard/ctxguard/internal/codec"
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

// parseTree parses data, which must be exactly one JSON value, into a tree. A UTF-8 byte-order
// mark at the start is skipped (and kept in the bytes).
func parseTree(data []byte, file string) (*Node, error) {
	if !json.Valid(bytes.TrimPrefix(data, bom)) {
		var v any
		err := json.Unmarshal(bytes.TrimPrefix(data, bom), &v)
		off := 0
		msg := "invalid JSON"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
			if off > 0 {
				off-- // Offset is after the byte that was read last
			}
			msg = "invalid JSON: " + se.Error()
		}
		if bytes.HasPrefix(data, bom) {
			off += len(bom)
		}
		return nil, fileError(file, data, off, msg)
	}
	p := &parser{src: data}
	if bytes.HasPrefix(data, bom) {
		p.i = len(bom)
	}
	p.space()
	n, err := p.value(nil, 0)
	if err != nil {
		return nil, fileError(file, data, p.i, err.Error())
	}
	return n, nil
}

var bom = []byte("\xef\xbb\xbf")

// parser reads JSON that json.Valid accepted; its own checks only guard against running off the
// end.
type parser struct {
	src []byte
	i   int
}

func (p *parser) space() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(parent *Node, depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	if p.i >= len(p.src) {
		return nil, errors.New("unexpected end of file")
	}
	n := &Node{Start: p.i, KeyStart: p.i, Parent: parent, src: p.src}
	switch c := p.src[p.i]; c {
	case '{':
		n.Kind = Object
		p.i++
		p.space()
		if p.peek() == '}' {
			p.i++
			break
		}
		for {
			keyStart := p.i
			if err := p.str(); err != nil {
				return nil, err
			}
			keyEnd := p.i
			var key string
			if err := json.Unmarshal(p.src[keyStart:keyEnd], &key); err != nil {
				return nil, err
			}
			p.space()
			if p.peek() != ':' {
				return nil, errors.New("want :")
			}
			p.i++
			p.space()
			child, err := p.value(n, depth+1)
			if err != nil {
				return nil, err
			}
			child.Key, child.KeyStart, child.KeyEnd, child.inObjectMember = key, keyStart, keyEnd, true
			n.Children = append(n.Children, child)
			p.space()
			if p.peek() == ',' {
				p.i++
				p.space()
				continue
			}
			if p.peek() != '}' {
				return nil, errors.New("want , or }")
			}
			p.i++
			break
		}
	case '[':
		n.Kind = Array
		p.i++
		p.space()
		if p.peek() == ']' {
			p.i++
			break
		}
		for {
			child, err := p.value(n, depth+1)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, child)
			p.space()
			if p.peek() == ',' {
				p.i++
				p.space()
				continue
			}
			if p.peek() != ']' {
				return nil, errors.New("want , or ]")
			}
			p.i++
			break
		}
	case '"':
		n.Kind = String
		if err := p.str(); err != nil {
			return nil, err
		}
	default:
		n.Kind = Literal
		for p.i < len(p.src) {
			c := p.src[p.i]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			p.i++
		}
		if p.i == n.Start {
			return nil, fmt.Errorf("unexpected %q", c)
		}
	}
	n.End = p.i
	return n, nil
}

func (p *parser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

// str skips a string, p.i at its opening quote.
func (p *parser) str() error {
	if p.peek() != '"' {
		return errors.New("want a string")
	}
	for p.i++; p.i < len(p.src); p.i++ {
		switch p.src[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return nil
		}
	}
	return errors.New("unterminated string")
}

// fileError is a problem at offset off of a file, as a [*codec.Error] naming file:line:col.
func fileError(file string, src []byte, off int, msg string) error {
	at := codec.Position(src, off)
	return &codec.Error{File: file, Line: at.Line, Col: at.Col, Msg: msg}
}
