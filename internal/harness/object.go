package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxguard/ctxguard/internal/codec"
)

// object is a JSON object read as its members in order, each value kept as the raw JSON it was
// sent as. Harnesses read their payloads with JavaScript's JSON.parse: keys are exact and the last
// duplicate wins, and numbers and unknown fields must come back unchanged in a rewrite. Decoding
// into Go structs or into map[string]any would get all three wrong (case-insensitive field
// matching, float64 numbers, dropped fields).
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads data as exactly one JSON object.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, errors.New("empty payload")
	}
	if err != nil {
		return nil, fmt.Errorf("invalid json: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("payload is not a json object")
	}
	obj := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid json: %w", err)
		}
		key, _ := tok.(string) // inside an object the decoder only yields string keys
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("invalid json: %w", err)
		}
		obj = append(obj, member{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("invalid json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid json: data after the object")
	}
	return obj, nil
}

// get returns the value of key, the last one when the key is repeated (as JSON.parse does).
func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].value, true
		}
	}
	return nil, false
}

// has reports whether key is present with a value other than null.
func (o object) has(key string) bool {
	v, ok := o.get(key)
	return ok && !isNull(v)
}

// with returns a copy of o where key has the string value s: in the place of its first
// occurrence, with later duplicates dropped (else the harness would read the old value, the last
// one), or appended when o lacks it.
func (o object) with(key, s string) object {
	v := json.RawMessage(codec.AppendString(nil, s))
	out := make(object, 0, len(o)+1)
	done := false
	for _, m := range o {
		if m.key != key {
			out = append(out, m)
			continue
		}
		if !done {
			out = append(out, member{key, v})
			done = true
		}
	}
	if !done {
		out = append(out, member{key, v})
	}
	return out
}

// appendJSON writes the members in order with their values as they were sent.
func (o object) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = codec.AppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return append(b, '}')
}

// MarshalJSON is appendJSON, for encoding/json (the answers read back in tests and by doctor).
func (o object) MarshalJSON() ([]byte, error) { return o.appendJSON(nil), nil }

// str returns the string value of key. present is false when the key is missing or null; a value
// of any other type is an error, since a harness that sends a number where a string belongs is
// not the harness this adapter was written for.
func (o object) str(key string) (s string, present bool, err error) {
	v, ok := o.get(key)
	if !ok || isNull(v) {
		return "", false, nil
	}
	if v[0] != '"' {
		return "", false, fmt.Errorf("%s is not a string", key)
	}
	if s, err = unquote(v); err != nil {
		return "", false, fmt.Errorf("%s: %w", key, err)
	}
	if strings.ContainsRune(s, utf8.RuneError) && !lossless(v, s) {
		// encoding/json replaces invalid UTF-8 and lone surrogates with U+FFFD; a command read that
		// way differs from the one the harness would run, and a rewrite would change it.
		return "", false, fmt.Errorf("%s is not valid unicode", key)
	}
	return s, true, nil
}

// field names a string member and where to store it.
type field struct {
	key string
	dst *string
}

// strs reads string members into their destinations; a missing or null member leaves "".
func (o object) strs(fields ...field) error {
	for _, f := range fields {
		var err error
		if *f.dst, _, err = o.str(f.key); err != nil {
			return err
		}
	}
	return nil
}

// unquote decodes raw, a JSON string as the decoder read it (so valid JSON). One without an
// escape, in valid UTF-8, is the bytes between its quotes, as json.Unmarshal would make it: a
// command of a thousand calls is then not scanned twice more.
func unquote(raw json.RawMessage) (string, error) {
	if n := len(raw); n >= 2 && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : n-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// lossless reports whether decoding the JSON string raw into s kept every character: each U+FFFD
// in s was written in raw, literally or as an escape, rather than made up by the decoder.
func lossless(raw json.RawMessage, s string) bool {
	if !utf8.Valid(raw) {
		return false
	}
	written := strings.Count(string(raw), "\uFFFD") + strings.Count(strings.ToLower(string(raw)), `\ufffd`)
	return strings.Count(s, "\uFFFD") == written
}

// argsObject reads a tool's arguments: a JSON object, or a JSON string that holds one (Copilot CLI
// sends toolArgs encoded as a string; see github/copilot-cli#3349).
func argsObject(raw json.RawMessage, name string) (object, error) {
	if len(raw) > 0 && raw[0] == '"' {
		s, err := unquote(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if strings.ContainsRune(s, utf8.RuneError) && !lossless(raw, s) {
			// The decoder replaced bytes that are not UTF-8, as str guards against: the command
			// inside would differ from the one the harness runs.
			return nil, fmt.Errorf("%s is not valid unicode", name)
		}
		raw = []byte(s)
	}
	obj, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return obj, nil
}

func isNull(v json.RawMessage) bool { return string(v) == "null" }

// marshal encodes v without HTML escaping: commands are full of & < >, and \u0026 in an answer
// helps no reader.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// answer is an answer struct that writes itself as JSON. The hook writes one answer per run,
// and encoding/json spends more on learning an answer's type by reflection (~0.1 ms on a cold
// start) than on the rest of the answer; each struct's appendJSON writes exactly what
// encoding/json would (TestAnswerJSON compares them).
type answer interface{ appendJSON(b []byte) []byte }

// write writes v as one JSON object and a newline, in a single Write.
func write(w io.Writer, v answer) error {
	_, err := w.Write(append(v.appendJSON(make([]byte, 0, 512)), '\n'))
	return err
}

// fields appends an object's members in order; the answer structs' appendJSON use it.
type fields struct {
	b []byte
	n int
}

func (f *fields) key(k string) {
	if f.n > 0 {
		f.b = append(f.b, ',')
	}
	f.n++
	f.b = append(codec.AppendString(f.b, k), ':')
}

// str writes a string member; an empty one is left out when omitEmpty (`json:",omitempty"`).
func (f *fields) str(k, v string, omitEmpty bool) {
	if v == "" && omitEmpty {
		return
	}
	f.key(k)
	f.b = codec.AppendString(f.b, v)
}

// bool writes a boolean member.
func (f *fields) bool(k string, v bool) {
	f.key(k)
	f.b = strconv.AppendBool(f.b, v)
}

// obj writes an object member, unless omit (an empty value under `json:",omitempty"`).
func (f *fields) obj(k string, v answer, omit bool) {
	if omit {
		return
	}
	f.key(k)
	f.b = v.appendJSON(f.b)
}

// object appends the members written, as one JSON object, to b.
func (f *fields) object(b []byte) []byte {
	b = append(b, '{')
	b = append(b, f.b...)
	return append(b, '}')
}
