package codec

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

var bom = []byte("\xef\xbb\xbf")

func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// ToJSON turns a state file into JSON, so that one path language reads every format:
//
//   - json: the bytes without a UTF-8 byte-order mark (az writes one), otherwise unchanged and
//     not validated here: the caller's JSON reader decides how strict to be.
//   - yaml: the first document, mappings as objects in file order (a key written twice keeps its
//     first value), `<<` merge keys applied, aliases expanded; an empty document is null.
//   - ini: each [section] an object of its keys, keys before any section at the top level, all
//     values strings; `;` and `#` start comment lines; `key = value` or `key: value`; a section
//     or key written twice merges, the later value winning.
//   - text: a JSON string of the content with surrounding white space trimmed.
//
// Every format has its byte-order mark stripped and accepts CRLF line ends.
func ToJSON(data []byte, format string) ([]byte, error) {
	data = trimBOM(data)
	switch format {
	case "json":
		return data, nil
	case "yaml":
		return yamlToJSON(data)
	case "ini":
		return iniToJSON(data)
	case "text":
		return AppendString(nil, string(bytes.TrimSpace(data))), nil
	}
	return nil, fmt.Errorf("unknown state format %q", format)
}

func yamlToJSON(data []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		e := syntaxError(data, "")
		if e.Line == 0 {
			return nil, errors.New(e.Msg)
		}
		return nil, fmt.Errorf("line %d: %s", e.Line, e.Msg)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return []byte("null"), nil
	}
	w := yamlWriter{budget: 64*len(data) + 1<<16}
	if err := w.value(root.Content[0]); err != nil {
		return nil, err
	}
	return w.out, nil
}

// yamlWriter writes a yaml.Node tree as JSON. budget bounds the number of nodes written, so
// that aliases that expand exponentially ("billion laughs") end in an error, not a hang.
type yamlWriter struct {
	out    []byte
	budget int
	active []*yaml.Node // aliases being expanded, to refuse cycles
}

var errAliasing = errors.New("document contains excessive aliasing")

func (w *yamlWriter) value(n *yaml.Node) error {
	if w.budget--; w.budget < 0 {
		return errAliasing
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			w.out = append(w.out, "null"...)
			return nil
		}
		return w.value(n.Content[0])
	case yaml.AliasNode:
		for _, a := range w.active {
			if a == n.Alias {
				return fmt.Errorf("line %d: anchor %q contains itself", n.Line, n.Value)
			}
		}
		w.active = append(w.active, n.Alias)
		err := w.value(n.Alias)
		w.active = w.active[:len(w.active)-1]
		return err
	case yaml.SequenceNode:
		w.out = append(w.out, '[')
		for i, c := range n.Content {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			if err := w.value(c); err != nil {
				return err
			}
		}
		w.out = append(w.out, ']')
		return nil
	case yaml.MappingNode:
		return w.mapping(n)
	case yaml.ScalarNode:
		return w.scalar(n)
	}
	return fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

type entry struct {
	key   string
	value *yaml.Node
}

// entrySet is a mapping's entries in order, with an index once it grows past a few keys, so
// that a pathological mapping with many keys costs linear time, not quadratic.
type entrySet struct {
	list  []entry
	index map[string]struct{}
}

func (s *entrySet) add(k string, v *yaml.Node) {
	if s.index != nil {
		if _, ok := s.index[k]; ok {
			return
		}
		s.index[k] = struct{}{}
	} else {
		for _, e := range s.list {
			if e.key == k {
				return
			}
		}
		if len(s.list) == 16 {
			s.index = make(map[string]struct{}, 64)
			for _, e := range s.list {
				s.index[e.key] = struct{}{}
			}
			s.index[k] = struct{}{}
		}
	}
	s.list = append(s.list, entry{k, v})
}

func (w *yamlWriter) mapping(n *yaml.Node) error {
	var set entrySet
	if err := w.entries(n, &set, 0); err != nil {
		return err
	}
	w.out = append(w.out, '{')
	for i, e := range set.list {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.out = AppendString(w.out, e.key)
		w.out = append(w.out, ':')
		if err := w.value(e.value); err != nil {
			return err
		}
	}
	w.out = append(w.out, '}')
	return nil
}

// entries adds a mapping's entries to set: explicit keys first, then the keys that `<<` merges
// in (a mapping or a list of them; earlier ones win), without repeats. Keys that are not
// scalars have no JSON form and are left out.
func (w *yamlWriter) entries(n *yaml.Node, set *entrySet, depth int) error {
	if depth > 32 {
		return fmt.Errorf("line %d: merge keys nest too deep", n.Line)
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		set.add(k.Value, v)
	}
	for _, m := range merges {
		for m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, src := range srcs {
			for src.Kind == yaml.AliasNode {
				src = src.Alias
			}
			if src.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: a merge key needs a mapping", src.Line)
			}
			if w.budget -= len(src.Content); w.budget < 0 {
				return errAliasing
			}
			if err := w.entries(src, set, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *yamlWriter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		w.out = append(w.out, "null"...)
	case "!!bool":
		if strings.EqualFold(n.Value, "true") {
			w.out = append(w.out, "true"...)
		} else {
			w.out = append(w.out, "false"...)
		}
	case "!!int", "!!float":
		if isJSONNumber(n.Value) {
			w.out = append(w.out, n.Value...)
			return nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		switch v := v.(type) {
		case int:
			w.out = strconv.AppendInt(w.out, int64(v), 10)
		case int64:
			w.out = strconv.AppendInt(w.out, v, 10)
		case uint64:
			w.out = strconv.AppendUint(w.out, v, 10)
		case float64:
			s := strconv.FormatFloat(v, 'g', -1, 64)
			if isJSONNumber(s) {
				w.out = append(w.out, s...)
			} else { // .inf, .nan: JSON has no number for them
				w.out = AppendString(w.out, n.Value)
			}
		default:
			w.out = AppendString(w.out, n.Value)
		}
	default: // !!str, !!timestamp, !!binary and custom tags: the text as written
		w.out = AppendString(w.out, n.Value)
	}
	return nil
}

// isJSONNumber reports whether s is a number in JSON's grammar.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// iniToJSON reads the INI dialect gcloud, az and databricks write.
func iniToJSON(data []byte) ([]byte, error) {
	top := newObject()
	cur := top
	line := 0
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		line++
		s := strings.TrimSpace(string(raw)) // also drops the \r of CRLF
		if s == "" || s[0] == ';' || s[0] == '#' {
			continue
		}
		if s[0] == '[' {
			end := strings.LastIndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("line %d: section header without ]", line)
			}
			name := strings.TrimSpace(s[1:end])
			if sec, ok := top.get(name).(*object); ok {
				cur = sec
			} else {
				cur = newObject()
				top.set(name, cur)
			}
			continue
		}
		i := strings.IndexAny(s, "=:")
		if i <= 0 {
			return nil, fmt.Errorf("line %d: want \"key = value\" or \"[section]\"", line)
		}
		cur.set(strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]))
	}
	return top.appendJSON(nil), nil
}

// object is a JSON object that keeps its keys in the order they were first written.
type object struct {
	keys  []string
	vals  []any // string or *object
	index map[string]int
}

func newObject() *object { return &object{index: make(map[string]int)} }

func (o *object) get(k string) any {
	if i, ok := o.index[k]; ok {
		return o.vals[i]
	}
	return nil
}

func (o *object) set(k string, v any) {
	if i, ok := o.index[k]; ok {
		o.vals[i] = v
		return
	}
	o.index[k] = len(o.keys)
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *object) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, k := range o.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		switch v := o.vals[i].(type) {
		case string:
			b = AppendString(b, v)
		case *object:
			b = v.appendJSON(b)
		}
	}
	return append(b, '}')
}

// AppendString appends s as a JSON string, byte for byte as encoding/json writes it without HTML
// escaping (commands are full of & < >, and \u0026 in a hook's answer helps no reader): \" \\ \b \f \n \r
// \t, other control characters as \u00XX, U+2028 and U+2029 escaped (JavaScript before ES2019
// could not read them raw), and bytes that are not UTF-8 as U+FFFD.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == utf8.RuneError {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// ToJSONKeys is ToJSON for a reader that needs only some top-level keys of the document. For
// YAML, which decodes at some 0.3 ms a kilobyte, the other top-level entries of a block mapping
// are blanked out before decoding (line numbers in errors stay those of the file): doctl writes
// every setting it knows, 40 KB, into the file that holds its one `context:` line. A document
// that cannot be cut safely is decoded whole. keys nil means every key; other formats ignore it.
func ToJSONKeys(data []byte, format string, keys []string) ([]byte, error) {
	if format == "yaml" && keys != nil {
		if cut, ok := topEntries(trimBOM(data), keys); ok {
			out, err := yamlToJSON(cut)
			if err == nil && string(out) == "null" {
				// Every entry was blanked: the document is still a mapping, without those keys.
				return []byte("{}"), nil
			}
			return out, err
		}
	}
	return ToJSON(data, format)
}

// topEntries keeps the lines of the top-level entries whose key is in keys (the first entry of a
// key written twice, which is the one decoding keeps) and blanks every other line but a leading
// `---`. ok is false for a document that is not a plain block mapping at its top level (anything
// at column 0 besides `key:` lines, comments and blank lines; or no key at all), or whose kept
// lines have an anchor, an alias or a merge key, which could refer to a blanked entry.
func topEntries(data []byte, keys []string) ([]byte, bool) {
	out := make([]byte, 0, len(data))
	seen := make(map[string]bool, 8)
	keep, started := false, false
	var kept []byte
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		text := bytes.TrimRight(line, "\r\n")
		switch {
		case len(text) == 0 || text[0] == ' ' || text[0] == '\t' || text[0] == '#':
			// An indented, blank or comment line belongs to the entry above it.
		case !started && string(text) == "---":
			out = append(out, line...)
			started = true
			continue
		default:
			key, ok := topKey(string(text))
			if !ok {
				return nil, false
			}
			keep = !seen[key] && slices.Contains(keys, key)
			seen[key] = true
			started = true
		}
		if keep {
			out = append(out, line...)
			kept = append(kept, text...)
		} else if line[len(line)-1] == '\n' {
			out = append(out, '\n')
		}
	}
	if len(seen) == 0 || bytes.ContainsAny(kept, "&*") || bytes.Contains(kept, []byte("<<")) {
		return nil, false
	}
	return out, true
}

// topKey reads the key of a top-level `key: value` or `key:` line: a plain key, or one in quotes
// without escapes. ok is false for anything else (a flow collection, a sequence, a directive, a
// complex key).
func topKey(line string) (string, bool) {
	if q := line[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(line[1:], q)
		if end < 0 || strings.ContainsAny(line[1:end+1], `\"'`) {
			return "", false
		}
		rest := line[end+2:]
		if rest != ":" && !strings.HasPrefix(rest, ": ") && !strings.HasPrefix(rest, ":\t") {
			return "", false
		}
		return line[1 : end+1], true
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>%@`", rune(line[0])) {
		return "", false
	}
	end := strings.Index(line, ": ")
	if t := strings.Index(line, ":\t"); t >= 0 && (end < 0 || t < end) {
		end = t
	}
	if end < 0 {
		if !strings.HasSuffix(line, ":") {
			return "", false
		}
		end = len(line) - 1
	}
	key := strings.TrimRight(line[:end], " \t")
	if strings.ContainsAny(key, "#") {
		return "", false
	}
	return key, key != ""
}
