package hookfile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Doc is a parsed JSON file, ready to be edited. Each edit returns the new bytes; parse them
// again for the next one (the files are small, and a fresh tree can never hold a stale offset).
type Doc struct {
	src   []byte
	Root  *Node
	style style
}

// Parse parses a whole file. file names it in errors.
func Parse(data []byte, file string) (*Doc, error) {
	root, err := parseTree(data, file)
	if err != nil {
		return nil, err
	}
	return &Doc{src: data, Root: root, style: detect(data, root)}, nil
}

// style is how a file is written, so that what is added looks like what is there.
type style struct {
	indent  string // one level: "  ", "    ", "\t"
	newline string // "\n" or "\r\n"
	colon   string // between a key and its value: ": ", ":"
	flat    bool   // the whole document is on one line
}

// detect reads the style of a file. A file without any indented line gets two spaces, the
// indentation Claude Code and most editors write.
func detect(src []byte, root *Node) style {
	s := style{indent: "  ", newline: "\n", colon: ": "}
	if bytes.Contains(src, []byte("\r\n")) {
		s.newline = "\r\n"
	}
	s.flat = len(root.Children) > 0 && !bytes.ContainsRune(src[root.Start:root.End], '\n')
	if c := firstMember(root); c != nil {
		s.colon = string(src[c.KeyEnd:c.Start])
	}
	best := ""
	for _, line := range bytes.Split(src, []byte("\n")) {
		ws := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		rest := bytes.TrimSpace(line)
		if len(ws) == 0 || len(rest) == 0 {
			continue
		}
		if ws[0] == '\t' {
			best = "\t"
			break
		}
		if best == "" || len(ws) < len(best) {
			best = string(ws)
		}
	}
	if best != "" {
		s.indent = best
	}
	return s
}

func firstMember(n *Node) *Node {
	if n.Kind == Object && len(n.Children) > 0 {
		return n.Children[0]
	}
	for _, c := range n.Children {
		if m := firstMember(c); m != nil {
			return m
		}
	}
	return nil
}

// Append returns the file with value (one JSON value, any formatting) added as the last item
// of the array arr.
func (d *Doc) Append(arr *Node, value []byte) ([]byte, error) {
	v, err := parseTree(value, "value")
	if err != nil {
		return nil, err
	}
	return d.insert(arr, func(base string, multi bool) string { return d.style.render(v, base, multi) }), nil
}

// Put returns the file with the member key: value added as the last member of the object obj.
func (d *Doc) Put(obj *Node, key string, value []byte) ([]byte, error) {
	v, err := parseTree(value, "value")
	if err != nil {
		return nil, err
	}
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	return d.insert(obj, func(base string, multi bool) string {
		return string(k) + d.style.colon + d.style.render(v, base, multi)
	}), nil
}

// insert adds one member or item at the end of the container c. After an existing child it
// copies the whitespace that precedes that child, so the new one is laid out like its
// neighbour; in an empty container it uses the file's style.
func (d *Doc) insert(c *Node, render func(base string, multi bool) string) []byte {
	if len(c.Children) == 0 {
		if d.style.flat {
			return splice(d.src, c.Start+1, c.End-1, render("", false))
		}
		base := lineIndent(d.src, c.Start)
		inner := base + d.style.indent
		return splice(d.src, c.Start+1, c.End-1, d.style.newline+inner+render(inner, true)+d.style.newline+base)
	}
	last := c.Children[len(c.Children)-1]
	start := last.memberStart()
	ws := start
	for ws > 0 && isSpace(d.src[ws-1]) {
		ws--
	}
	gap := string(d.src[ws:start])
	if i := strings.LastIndexByte(gap, '\n'); i >= 0 {
		return splice(d.src, last.End, last.End, ","+gap+render(gap[i+1:], true))
	}
	if gap == "" && len(c.Children) == 1 && strings.HasSuffix(d.style.colon, " ") {
		gap = " "
	}
	return splice(d.src, last.End, last.End, ","+gap+render("", false))
}

// Delete returns the file without n, a member of an object or an item of an array: the text
// from the end of the previous sibling to the end of n goes (or, for the first child, from n to
// the next sibling), which is exactly what insert added.
func (d *Doc) Delete(n *Node) []byte {
	p := n.Parent
	if p == nil {
		return d.src
	}
	i := 0
	for i < len(p.Children) && p.Children[i] != n {
		i++
	}
	switch {
	case len(p.Children) == 1:
		return splice(d.src, p.Start+1, p.End-1, "")
	case i > 0:
		return splice(d.src, p.Children[i-1].End, n.End, "")
	default:
		return splice(d.src, n.memberStart(), p.Children[1].memberStart(), "")
	}
}

// render writes v: on several lines, each level one indent deeper than base, when multi is set;
// otherwise on one line. Keys and scalars are copied as they are written in v.
func (s style) render(v *Node, base string, multi bool) string {
	var b strings.Builder
	s.write(&b, v, base, multi)
	return b.String()
}

func (s style) write(b *strings.Builder, v *Node, base string, multi bool) {
	if v.Kind != Object && v.Kind != Array || len(v.Children) == 0 {
		if v.Kind == Object {
			b.WriteString("{}")
		} else if v.Kind == Array {
			b.WriteString("[]")
		} else {
			b.Write(v.Raw())
		}
		return
	}
	open, end := "{", "}"
	if v.Kind == Array {
		open, end = "[", "]"
	}
	b.WriteString(open)
	inner := base + s.indent
	for i, c := range v.Children {
		if i > 0 {
			b.WriteByte(',')
			if !multi && strings.HasSuffix(s.colon, " ") {
				b.WriteByte(' ')
			}
		}
		if multi {
			b.WriteString(s.newline)
			b.WriteString(inner)
		}
		if v.Kind == Object {
			b.Write(c.src[c.KeyStart:c.KeyEnd])
			b.WriteString(s.colon)
		}
		s.write(b, c, inner, multi)
	}
	if multi {
		b.WriteString(s.newline)
		b.WriteString(base)
	}
	b.WriteString(end)
}

// lineIndent is the white space that starts the line holding offset off.
func lineIndent(src []byte, off int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// Same reports whether a and b hold the same JSON value, whatever their formatting and key
// order. Invalid JSON is the same as nothing.
func Same(a, b []byte) bool {
	va, oka := decode(a)
	vb, okb := decode(b)
	return oka && okb && reflect.DeepEqual(va, vb)
}

func decode(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, bom)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
