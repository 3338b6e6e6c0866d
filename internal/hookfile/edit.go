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

// appendItem returns the file with value (one JSON value, any formatting) added as the last item
// of the array arr.
func (d *Doc) appendItem(arr *Node, value []byte) ([]byte, error) {
	v, err := parseTree(value, "value")
	if err != nil {
		return nil, err
	}
	return d.insert(arr, func(base string, multi bool) string { return d.style.render(v, base, multi) }), nil
}

// put returns the file with the member key: value added as the last member of the object obj.
func (d *Doc) put(obj *Node, key string, value []byte) ([]byte, error) {
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
// neighbour; in an empty container it uses the file's style. A comment on the last child's line
// stays on that line, after the comma that now follows the child, and a trailing comma stays
// trailing: the new child gets one.
func (d *Doc) insert(c *Node, render func(base string, multi bool) string) []byte {
	if len(c.Children) == 0 {
		if d.style.flat {
			return splice(d.src, c.Start+1, c.End-1, render("", false))
		}
		base := lineIndent(d.src, c.Start)
		inner := base + d.style.indent
		if end := d.contentEnd(c.Start+1, c.End-1); end > c.Start+1 {
			// Only comments inside: the child goes on a line of its own after them.
			return splice(d.src, end, end, d.style.newline+inner+render(inner, true))
		}
		return splice(d.src, c.Start+1, c.End-1, d.style.newline+inner+render(inner, true)+d.style.newline+base)
	}
	last := c.Children[len(c.Children)-1]
	start := last.memberStart()
	ws := start
	for ws > 0 && isSpace(d.src[ws-1]) {
		ws--
	}
	gap := string(d.src[ws:start])
	tail, comma, toEOL := d.tail(last)
	if toEOL && !strings.Contains(gap, "\n") {
		// Nothing can follow a // comment on its line.
		gap = d.style.newline + lineIndent(d.src, start)
	}
	var text string
	if i := strings.LastIndexByte(gap, '\n'); i >= 0 {
		text = gap + render(gap[i+1:], true)
	} else {
		if gap == "" && len(c.Children) == 1 && strings.HasSuffix(d.style.colon, " ") {
			gap = " "
		}
		text = gap + render("", false)
	}
	if comma {
		return splice(d.src, tail, tail, text+",")
	}
	out := splice(d.src, tail, tail, text)
	return splice(out, last.End, last.End, ",")
}

// tail is where the text that belongs to child n ends: after the comma that follows it (with
// any comments before that comma) and a comment on the comma's line, or for a last child without
// a comma, after a comment on its own line. comma reports whether a comma follows n.
// toEOL reports that the comment is a // one, which runs to the end of the line.
func (d *Doc) tail(n *Node) (end int, comma, toEOL bool) {
	i := n.End
	if j := skipExtra(d.src, i); j < len(d.src) && d.src[j] == ',' {
		i, comma = j+1, true
	}
	c := skipBlank(d.src, i)
	if e := commentEnd(d.src, c); e > c && !bytes.ContainsAny(d.src[c:e], "\r\n") {
		return e, comma, d.src[c+1] == '/'
	}
	return i, comma, false
}

// skipExtra skips white space and comments.
func skipExtra(src []byte, i int) int {
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		e := commentEnd(src, i)
		if e == i {
			return i
		}
		i = e
	}
}

// commentEnd is where the comment that starts at i ends (a // comment, before its line break),
// or i when none starts there.
func commentEnd(src []byte, i int) int {
	rest := src[i:]
	switch {
	case bytes.HasPrefix(rest, []byte("//")):
		if j := bytes.IndexAny(rest, "\r\n"); j >= 0 {
			return i + j
		}
		return len(src)
	case bytes.HasPrefix(rest, []byte("/*")):
		if j := bytes.Index(rest[2:], []byte("*/")); j >= 0 {
			return i + 2 + j + 2
		}
		return len(src)
	}
	return i
}

// contentEnd is the end of the last comment between from and to (in an empty container or
// around its only child), or from when there is only white space.
func (d *Doc) contentEnd(from, to int) int {
	end := from
	for i := from; i < to; i++ {
		if isSpace(d.src[i]) {
			continue
		}
		end = i + 1
	}
	return end
}

func skipBlank(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// remove returns the file without n, a member of an object or an item of an array, taking out
// exactly what insert added: the text from the end of the previous sibling's tail to the end of
// n's (and the comma insert put after that sibling when n was last without one), or for the
// first child, from n to the next sibling. Comments that are not on n's line stay.
func (d *Doc) remove(n *Node) []byte {
	p := n.Parent
	if p == nil {
		return d.src
	}
	i := 0
	for i < len(p.Children) && p.Children[i] != n {
		i++
	}
	end, comma, _ := d.tail(n)
	switch {
	case len(p.Children) == 1:
		before := d.contentEnd(p.Start+1, n.memberStart())
		if before == p.Start+1 && d.contentEnd(end, p.End-1) == end {
			return splice(d.src, p.Start+1, p.End-1, "")
		}
		if before == p.Start+1 {
			before = n.memberStart()
		}
		return splice(d.src, before, end, "")
	case i > 0:
		prev := p.Children[i-1]
		from, _, _ := d.tail(prev)
		out := splice(d.src, from, end, "")
		if !comma && i == len(p.Children)-1 {
			// The comma after prev was put there for n.
			if at := skipExtra(out, prev.End); at < len(out) && out[at] == ',' {
				return splice(out, at, at+1, "")
			}
		}
		return out
	default:
		next := end
		for next < len(d.src) && isSpace(d.src[next]) {
			next++
		}
		return splice(d.src, n.memberStart(), next, "")
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

// Same reports whether a and b hold the same JSON value, whatever their formatting, comments
// and key order. Invalid JSON is the same as nothing.
func Same(a, b []byte) bool {
	va, oka := decode(a)
	vb, okb := decode(b)
	return oka && okb && reflect.DeepEqual(va, vb)
}

func decode(data []byte) (any, bool) {
	std, err := standard(data)
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}
