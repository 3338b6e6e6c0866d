package codec

import "go.yaml.in/yaml/v3"

// TreeDecoder is a type that reads the usual shapes of its own documents from a cached tree
// without yaml.v3's reflection, which is most of what a hook run spends on its policy: decoding
// the tree of a small policy cold takes some 170 K instructions, reading it by hand a tenth of
// that. DecodeTree reports whether it read the tree exactly as yaml.v3 would decode it; for
// anything it does not read that way (a shape it does not know, a value in another spelling) it
// returns false and [Cache] decodes the tree with yaml.v3 instead, into a zeroed value.
type TreeDecoder interface {
	DecodeTree(Node) bool
}

// Node is one node of a document's tree, as a [TreeDecoder] reads it.
type Node struct{ n *yaml.Node }

// Str is the value of a string scalar (tag !!str, in any quoting).
func (n Node) Str() (string, bool) {
	if n.n.Kind != yaml.ScalarNode || n.n.ShortTag() != "!!str" {
		return "", false
	}
	return n.n.Value, true
}

// Int is the value of a plain int scalar written in decimal digits, without a leading zero (the
// spelling that yaml.v3 and a reader of the file take alike).
func (n Node) Int() (int, bool) {
	s := n.n.Value
	if n.n.Kind != yaml.ScalarNode || n.n.Style != 0 || n.n.ShortTag() != "!!int" || s == "" || len(s) > 9 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	v := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = 10*v + int(c-'0')
	}
	return v, true
}

// Bool is the value of a plain true or false.
func (n Node) Bool() (bool, bool) {
	if n.n.Kind != yaml.ScalarNode || n.n.Style != 0 || n.n.ShortTag() != "!!bool" {
		return false, false
	}
	switch n.n.Value {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Pairs calls f with each key and value of a mapping whose keys are distinct string scalars,
// until f returns false; it reports whether the node is such a mapping and f took every pair.
func (n Node) Pairs(f func(key string, v Node) bool) bool {
	if n.n.Kind != yaml.MappingNode || len(n.n.Content)%2 != 0 {
		return false
	}
	c := n.n.Content
	for i := 0; i < len(c); i += 2 {
		k, ok := Node{c[i]}.Str()
		if !ok || c[i].Style != 0 {
			return false // a merge key (<<) or a key of another type
		}
		for j := 0; j < i; j += 2 {
			if c[j].Value == k {
				return false
			}
		}
		if !f(k, Node{c[i+1]}) {
			return false
		}
	}
	return true
}

// Items is a sequence's items; ok is false for another node.
func (n Node) Items() ([]Node, bool) {
	if n.n.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]Node, len(n.n.Content))
	for i, c := range n.n.Content {
		out[i] = Node{c}
	}
	return out, true
}

// Decode decodes the node into v with yaml.v3, as [Cache] decodes a whole tree.
func (n Node) Decode(v any) bool { return n.n.Decode(v) == nil }

// Tree is the document's tree, as [Cache] keeps it; ok is false for an empty document. Tests
// compare a [TreeDecoder] with yaml.v3 on it.
func (p *Positions) Tree() (n Node, ok bool) { return Node{p.root}, p.root != nil }
