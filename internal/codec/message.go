package codec

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file turns yaml.v3's messages, which speak of Go types and parser states, into what a
// person editing the file needs: where the mistake is, in words, and what to write instead.

// typeErrors turns the problems of a document that parsed (unknown keys, repeated keys, values
// of the wrong type) into errors at their positions. t is the type decoded into, so that an
// unknown key can be compared with the keys its mapping takes.
func typeErrors(root *yaml.Node, t reflect.Type, file string, te *yaml.TypeError) []error {
	errs := make([]error, 0, len(te.Errors))
	for _, s := range te.Errors {
		line, msg := splitLine(s)
		e := &Error{File: file, Line: line, Msg: msg}
		switch {
		case strings.HasPrefix(msg, "field ") && strings.Contains(msg, " not found in type "):
			key := strings.TrimPrefix(msg[:strings.Index(msg, " not found in type ")], "field ")
			e.Msg = fmt.Sprintf("unknown key %q", key)
			if k, path := findKey(root, line, key); k != nil {
				e.Col, e.unknown = k.Column, strings.Join(path, ".")
				e.Msg += unknownKeyHint(key, keysOf(typeAt(t, path[:len(path)-1])))
			}
		case strings.HasPrefix(msg, "mapping key "):
			// mapping key "x" already defined at line 3
			rest := strings.TrimPrefix(msg, "mapping key ")
			if q, err := strconv.QuotedPrefix(rest); err == nil {
				key, _ := strconv.Unquote(q)
				first := strings.TrimPrefix(rest[len(q):], " already defined at ")
				e.Msg = fmt.Sprintf("key %s is written twice (first at %s): keep one", q, first)
				if k, _ := findKey(root, line, key); k != nil {
					e.Col = k.Column
				}
			}
		case strings.HasPrefix(msg, "cannot unmarshal "):
			if n, path := findValue(root, line, msg); n != nil {
				e.Col, e.failed = n.Column, strings.Join(path, ".")
				e.Msg = wrongType(n, path, typeAt(t, path), msg)
			}
		}
		errs = append(errs, e)
	}
	return errs
}

// unknownKeyHint is what follows "unknown key": the key meant, or the keys the mapping takes.
func unknownKeyHint(key string, known []string) string {
	if hint := DidYouMean(key, known); hint != "" {
		return hint
	}
	if len(known) > 0 {
		return " (the keys here are " + strings.Join(known, ", ") + ")"
	}
	return ""
}

// wrongType says what a value should have been: "allow must be a list, not "dev": write allow:
// [dev]". want is the Go type at the value's path (nil when it cannot be followed, and then the
// decoder's own words for it are used).
func wrongType(n *yaml.Node, path []string, want reflect.Type, msg string) string {
	subject := "the file"
	key := ""
	if len(path) > 0 {
		key = path[len(path)-1]
		subject = key
		if _, err := strconv.Atoi(key); err == nil {
			key = ""
			subject = "an entry"
			if len(path) > 1 {
				subject = "an entry of " + path[len(path)-2]
			}
		}
	}
	var wantWords, kind string
	if want != nil {
		wantWords, kind = typeWords(want)
	} else {
		_, goType, _ := strings.Cut(msg, " into ")
		wantWords, kind = goTypeWords(goType)
	}
	got := nodeWords(n)
	hint := ""
	switch {
	case key == "":
	case kind == "list" && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null":
		hint = fmt.Sprintf(": write %s: [%s]", key, n.Value)
	case kind == "value" && n.Kind == yaml.SequenceNode && len(n.Content) == 1 && n.Content[0].Kind == yaml.ScalarNode:
		hint = fmt.Sprintf(": write %s: %s", key, n.Content[0].Value)
	}
	return fmt.Sprintf("%s must be %s, not %s%s", subject, wantWords, got, hint)
}

// typeWords names a Go type as a YAML reader thinks of it, and its kind: list, mapping or value.
func typeWords(t reflect.Type) (string, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if _, ok := reflect.PointerTo(t).MethodByName("UnmarshalYAML"); ok && t.Elem().Kind() == reflect.String {
			return "a single value or a list", "list" // a type of its own that takes both
		}
		return "a list", "list"
	case reflect.Map:
		return "a mapping (key: value lines)", "mapping"
	case reflect.Struct:
		if keys := keysOf(t); len(keys) > 0 {
			return "a mapping of " + strings.Join(keys, ", "), "mapping"
		}
		return "a mapping", "mapping"
	case reflect.Bool:
		return "true or false", "value"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number", "value"
	case reflect.Float32, reflect.Float64:
		return "a number", "value"
	}
	return "a single value", "value"
}

// goTypeWords is typeWords for the type as the decoder's message writes it ("[]*string").
func goTypeWords(goType string) (string, string) {
	t := strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list", "list"
	case strings.HasPrefix(t, "map["):
		return "a mapping (key: value lines)", "mapping"
	case t == "bool":
		return "true or false", "value"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number", "value"
	}
	return "a single value", "value"
}

// nodeWords names what was written.
func nodeWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!null":
		return "empty"
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	return strconv.Quote(v)
}

// walk calls f for n and every node below it, with its path (mapping keys and sequence
// indexes, as [Positions] joins them) and whether it is a mapping key; f returns false to stop.
func walk(n *yaml.Node, path []string, isKey bool, f func(n *yaml.Node, path []string, isKey bool) bool) bool {
	if !f(n, path, isKey) {
		return false
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if !walk(c, path, false, f) {
				return false
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			sub := append(path[:len(path):len(path)], n.Content[i].Value)
			if !walk(n.Content[i], sub, true, f) || !walk(n.Content[i+1], sub, false, f) {
				return false
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if !walk(c, append(path[:len(path):len(path)], strconv.Itoa(i)), false, f) {
				return false
			}
		}
	}
	return true
}

// findKey finds the mapping key written on a line, and its path.
func findKey(root *yaml.Node, line int, key string) (*yaml.Node, []string) {
	var found *yaml.Node
	var at []string
	walk(root, nil, false, func(n *yaml.Node, path []string, isKey bool) bool {
		if isKey && n.Line == line && n.Value == key {
			found, at = n, path
			return false
		}
		return true
	})
	return found, at
}

// findValue finds the value a "cannot unmarshal !!tag `value` into T" message is about: the
// deepest node on the line that is not a mapping key and has that tag (and, for scalars, that
// value, which yaml.v3 shortens to 7 characters and "..."). Deepest, because in `- file: {a: b}`
// the step's mapping and the misplaced one start on the same line, and a wrongly typed value is
// the usual mistake.
func findValue(root *yaml.Node, line int, msg string) (*yaml.Node, []string) {
	rest := strings.TrimPrefix(msg, "cannot unmarshal ")
	tag, rest, _ := strings.Cut(rest, " ")
	var prefix string
	if strings.HasPrefix(rest, "`") {
		if end := strings.Index(rest[1:], "` into "); end >= 0 {
			prefix = strings.TrimSuffix(rest[1:1+end], "...")
		}
	}
	var found *yaml.Node
	var at []string
	walk(root, nil, false, func(n *yaml.Node, path []string, isKey bool) bool {
		if !isKey && n.Kind != yaml.DocumentNode && n.Line == line && n.ShortTag() == tag &&
			strings.HasPrefix(n.Value, prefix) && (found == nil || len(path) >= len(at)) {
			found, at = n, path
		}
		return true
	})
	return found, at
}

// typeAt follows a path through t: struct fields by their yaml names, map and slice elements.
// It returns nil when the path leaves the type.
func typeAt(t reflect.Type, path []string) reflect.Type {
	for i := 0; i < len(path); i++ {
		p := path[i]
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil {
			return nil
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByKey(t, p)
			if !ok {
				return nil
			}
			t = f.Type
		case reflect.Map:
			t = t.Elem()
		case reflect.Slice, reflect.Array:
			t = t.Elem()
			if _, err := strconv.Atoi(p); err != nil {
				// A list that also takes one item written as that item: p is the item's key.
				i--
			}
		default:
			return nil
		}
	}
	return t
}

// yamlFields calls f with the YAML key of each field of struct t, inlined fields' included.
func yamlFields(t reflect.Type, f func(key string, field reflect.StructField) bool) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := sf.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !yamlFields(ft, f) {
				return false
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		if !f(name, sf) {
			return false
		}
	}
	return true
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	var found reflect.StructField
	ok := false
	yamlFields(t, func(k string, sf reflect.StructField) bool {
		if k == key {
			found, ok = sf, true
			return false
		}
		return true
	})
	return found, ok
}

// keysOf lists the keys a struct type takes, in declaration order; none for any other type.
func keysOf(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	yamlFields(t, func(k string, _ reflect.StructField) bool {
		keys = append(keys, k)
		return true
	})
	return keys
}

// parserProblems are the messages of yaml.v3's parser, as opposed to its scanner. The parser
// reports the line of the construct it was reading 0-based, the scanner 1-based.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// syntaxError explains YAML that does not parse. yaml.v3 gives a line only, and for parser
// problems the line before the one meant (it counts from 0 there), or none on the first line;
// parsing the text again behind one blank line makes every line it reports one too many for the
// scanner and exact for the parser. The message then says, where the problem is a common one,
// what to write.
func syntaxError(data []byte, file string) *Error {
	dec := yaml.NewDecoder(bytes.NewReader(append([]byte{'\n'}, data...)))
	var err error
	for err == nil {
		var n yaml.Node
		err = dec.Decode(&n)
	}
	if err == io.EOF { // cannot happen: the same text failed to parse
		return &Error{File: file, Msg: "YAML syntax error"}
	}
	line, problem := splitLine(strings.TrimPrefix(err.Error(), "yaml: "))
	if !parserProblems[problem] {
		line--
	}
	e := &Error{File: file, Line: max(line, 0)}
	lines := strings.Split(string(data), "\n")
	text := func(l int) string {
		if l >= 1 && l <= len(lines) {
			return strings.TrimSuffix(lines[l-1], "\r")
		}
		return ""
	}
	switch problem {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected node content":
		if at, open, ok := unclosed(data); ok {
			e.Line, e.Col = at.Line, at.Col
			if open == '[' {
				e.Msg = "this [ is never closed: end the list with ]"
			} else {
				e.Msg = "this { is never closed: end the mapping with }"
			}
			return e
		}
		e.Msg = "YAML cannot read a value here: check the brackets and quotes on this line"
	case "did not find expected key", "did not find expected '-' indicator":
		if l, ok := misindented(lines, e.Line); ok {
			e.Line, e.Col = l, indent(text(l))+1
			e.Msg = fmt.Sprintf("this line is not lined up with the lines above it: indent %s like the other keys of its mapping (spaces, the same number)", firstWord(text(l)))
			return e
		}
		e.Msg = "a line below this one is not lined up with the others: indent each key of a mapping, and each - of a list, by the same number of spaces"
	case "mapping values are not allowed in this context":
		e.Msg = "this value has \": \" in it, which YAML reads as another key: put the value in quotes"
		if i := strings.Index(text(e.Line), ": "); i >= 0 {
			if j := strings.Index(text(e.Line)[i+2:], ": "); j >= 0 {
				e.Col = i + 2 + j + 1
			}
		}
	case "found character that cannot start any token", "found a tab character that violates indentation",
		"found a tab character where an indentation space is expected":
		if l := text(e.Line); strings.Contains(l[:indentWithTabs(l)], "\t") {
			e.Msg = "a tab in the indentation: YAML indents with spaces only"
		} else {
			e.Msg = "a value cannot start with this character (@ or ` are reserved): put the value in quotes"
		}
	case "found unexpected end of stream", "found unexpected document indicator":
		e.Msg = "a quoted value that starts on this line is never closed: add the closing quote"
	case "could not find expected ':'":
		e.Msg = "this line is neither key: value nor - item: add the colon, or put the text in quotes"
	default:
		e.Msg = "YAML syntax: " + problem
	}
	return e
}

// unclosed finds the first [ or { of a flow collection that is never closed, skipping quoted
// text, comments and block scalars. It reads only as much YAML as finding brackets needs.
func unclosed(data []byte) (Pos, byte, bool) {
	type opener struct {
		at Pos
		c  byte
	}
	var stack []opener
	blockIndent := -1 // inside a block scalar: the indent its lines are deeper than
	for li, raw := range bytes.Split(data, []byte("\n")) {
		l := string(bytes.TrimSuffix(raw, []byte("\r")))
		if blockIndent >= 0 {
			if strings.TrimSpace(l) == "" || indent(l) > blockIndent {
				continue
			}
			blockIndent = -1
		}
		valueStart := true // at the start of a value: a quote or bracket here is YAML's
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case c == ' ' || c == '\t':
				continue
			case c == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
				i = len(l)
				continue
			case (c == '\'' || c == '"') && (valueStart || len(stack) > 0):
				end := closingQuote(l, i)
				if end < 0 {
					return Pos{}, 0, false // a quote that spans lines: leave it to the parser
				}
				i = end
			case (c == '[' || c == '{') && (valueStart || len(stack) > 0):
				stack = append(stack, opener{Pos{li + 1, i + 1}, c})
				valueStart = true
				continue
			case (c == ']' || c == '}') && len(stack) > 0:
				stack = stack[:len(stack)-1]
			case c == ',' && len(stack) > 0:
				valueStart = true
				continue
			case c == ':' && (i+1 == len(l) || l[i+1] == ' '):
				valueStart = true
				if len(stack) == 0 {
					if rest := strings.TrimSpace(l[i+1:]); rest != "" && (rest[0] == '|' || rest[0] == '>') {
						blockIndent = indent(l)
						i = len(l)
					}
				}
				continue
			case c == '-' && len(stack) == 0 && valueStart && (i+1 == len(l) || l[i+1] == ' '):
				continue
			}
			valueStart = false
		}
	}
	if len(stack) == 0 {
		return Pos{}, 0, false
	}
	return stack[0].at, stack[0].c, true
}

// closingQuote returns the index of the quote that closes the one at l[i], or -1.
func closingQuote(l string, i int) int {
	q := l[i]
	for j := i + 1; j < len(l); j++ {
		switch {
		case q == '"' && l[j] == '\\':
			j++
		case l[j] == q && q == '\'' && j+1 < len(l) && l[j+1] == '\'':
			j++
		case l[j] == q:
			return j
		}
	}
	return -1
}

// misindented finds the first line after from that is not lined up with any line before it:
// one that moves left to a column no earlier line used, or moves right under a line whose value
// is complete (`allow: [a]`). The parser says only where the mapping or list it was reading
// starts; this is the line a person has to fix.
func misindented(lines []string, from int) (int, bool) {
	levels := map[int]bool{}
	prev, prevOpen := -1, true
	for i, raw := range lines {
		l := strings.TrimSuffix(raw, "\r")
		t := strings.TrimSpace(l)
		if t == "" || t[0] == '#' {
			continue
		}
		n := indent(l)
		if i+1 > from && prev >= 0 && (n < prev && !levels[n] || n > prev && !prevOpen) {
			return i + 1, true
		}
		levels[n] = true
		// `- key: value` opens a mapping at the key's column.
		for rest := l[n:]; strings.HasPrefix(rest, "- "); {
			n += 2 + indent(rest[2:])
			rest = l[n:]
			levels[n] = true
		}
		prev = n
		prevOpen = strings.HasSuffix(t, ":") || t == "-" || strings.HasSuffix(t, "|") || strings.HasSuffix(t, ">") ||
			strings.HasSuffix(t, "[") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, ",")
	}
	return 0, false
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

func indentWithTabs(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// firstWord is the key a line starts with, for a message.
func firstWord(l string) string {
	t := strings.TrimLeft(strings.TrimSpace(l), "- ")
	if i := strings.IndexAny(t, ": "); i > 0 {
		return "`" + t[:i] + "`"
	}
	return "it"
}
