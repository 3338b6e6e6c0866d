package policy

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/spec"
)

// TestSchemas keeps the committed JSON Schemas (builtin/schema), which editors use to complete
// and check YAML, equal to what the strict decoders accept: every object in a schema lists
// exactly the yaml keys of the Go struct it stands for, with a matching type, all the way down.
func TestSchemas(t *testing.T) {
	for _, tt := range []struct {
		kind string
		typ  reflect.Type
	}{
		{"policy", reflect.TypeFor[fileSchema]()},
		{"provider", reflect.TypeFor[spec.Spec]()},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			data, ok := builtin.Schema(tt.kind)
			if !ok {
				t.Fatalf("no %s schema", tt.kind)
			}
			var root map[string]any
			if err := json.Unmarshal(data, &root); err != nil {
				t.Fatal(err)
			}
			if root["$id"] != builtin.SchemaURL(tt.kind) {
				t.Errorf("$id = %v, want %s", root["$id"], builtin.SchemaURL(tt.kind))
			}
			s := schemaWalker{t: t, root: root}
			s.check(tt.kind, root, tt.typ)
		})
	}
	if _, ok := builtin.Schema("other"); ok {
		t.Error(`Schema("other") exists`)
	}
}

type schemaWalker struct {
	t    *testing.T
	root map[string]any
}

// resolve follows a local $ref.
func (s schemaWalker) resolve(node map[string]any) map[string]any {
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		next := any(s.root)
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := next.(map[string]any)
			next = m[part]
		}
		m, ok := next.(map[string]any)
		if !ok {
			s.t.Fatalf("unresolved $ref %s", ref)
		}
		node = m
	}
}

// types lists the JSON types a schema node allows: its type (one or a list), or the types of its
// const or enum values, or those of its oneOf branches.
func (s schemaWalker) types(node map[string]any) []string {
	var out []string
	add := func(v any) {
		switch v.(type) {
		case string:
			out = append(out, "string")
		case float64:
			out = append(out, "integer")
		case bool:
			out = append(out, "boolean")
		}
	}
	switch t := node["type"].(type) {
	case string:
		out = append(out, t)
	case []any:
		for _, x := range t {
			out = append(out, x.(string))
		}
	}
	if c, ok := node["const"]; ok {
		add(c)
	}
	if e, ok := node["enum"].([]any); ok {
		for _, v := range e {
			add(v)
		}
	}
	if one, ok := node["oneOf"].([]any); ok {
		for _, b := range one {
			out = append(out, s.types(s.resolve(b.(map[string]any)))...)
		}
	}
	return out
}

// branch returns the oneOf branch of node that allows typ (switched_by: a string or a switch
// object), or node itself.
func (s schemaWalker) branch(node map[string]any, typ string) map[string]any {
	one, _ := node["oneOf"].([]any)
	for _, b := range one {
		if r := s.resolve(b.(map[string]any)); slices.Contains(s.types(r), typ) {
			return r
		}
	}
	return node
}

func (s schemaWalker) check(path string, node map[string]any, typ reflect.Type) {
	t := s.t
	node = s.resolve(node)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	types := s.types(node)
	if typ.Kind() == reflect.Interface {
		// A key the parser reads by hand (audit: true or {path, max_size}); its shapes are
		// checked by the parser's tests.
		if len(types) == 0 {
			t.Errorf("%s: the schema gives no type", path)
		}
		return
	}
	want := map[reflect.Kind]string{
		reflect.Struct: "object", reflect.Map: "object", reflect.Slice: "array",
		reflect.String: "string", reflect.Bool: "boolean", reflect.Int: "integer",
	}[typ.Kind()]
	if want == "" {
		t.Fatalf("%s: no schema type for Go kind %s", path, typ.Kind())
	}
	if !slices.Contains(types, want) {
		t.Errorf("%s: schema types %v, Go type %s wants %s", path, types, typ, want)
		return
	}
	switch typ.Kind() {
	case reflect.Struct:
		// A value YAML may also write as a scalar (spec.ContextValue): check the object branch.
		node = s.branch(node, "object")
		props, _ := node["properties"].(map[string]any)
		if node["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false, but the decoder refuses unknown keys", path)
		}
		var keys []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "" || tag == "-" || !f.IsExported() {
				continue
			}
			keys = append(keys, tag)
			p, ok := props[tag].(map[string]any)
			if !ok {
				t.Errorf("%s: the schema lacks %q, which %s accepts", path, tag, typ)
				continue
			}
			s.check(path+"."+tag, p, f.Type)
		}
		for k := range props {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: the schema has %q, which %s does not accept", path, k, typ)
			}
		}
	case reflect.Slice:
		// A string or a list (spec.Strings), one item or a list (when): check the list branch.
		items, ok := s.branch(node, "array")["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: array without items", path)
			return
		}
		s.check(path+"[]", items, typ.Elem())
	case reflect.Map:
		add, ok := s.branch(node, "object")["additionalProperties"].(map[string]any)
		if !ok {
			t.Errorf("%s: map without additionalProperties", path)
			return
		}
		s.check(path+".*", add, typ.Elem())
	}
}
