package providers_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/providers"
)

func TestCatalogBuiltin(t *testing.T) {
	c := providers.NewCatalog()
	if err := c.Add(builtin.Providers(), "builtin:providers"); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Names(), []string{"az", "gcloud", "gh", "kubectl", "pac", "terraform"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	for _, tt := range []struct {
		word string
		want []string
	}{
		{"git", nil},
		{"az", []string{"az", "kubectl"}}, // az aks get-credentials switches kubectl
		{"gcloud", []string{"gcloud", "kubectl"}},
		{"kubectl", []string{"kubectl"}},
		{"kind", []string{"kubectl"}},
		{"terraform", []string{"terraform"}},
	} {
		specs, err := c.For(tt.word)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range specs {
			got = append(got, s.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("For(%q) = %v, want %v", tt.word, got, tt.want)
		}
		if c.Guards(tt.word) != (len(tt.want) > 0) {
			t.Errorf("Guards(%q) = %v", tt.word, !(len(tt.want) > 0))
		}
	}
	// Every header the scan read agrees with the full parse (All checks each one).
	all, err := c.All()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := providers.Load(builtin.Providers(), "builtin:providers")
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		if all[i].Source != loaded[i].Source || !slices.Equal(all[i].Commands, loaded[i].Commands) {
			t.Errorf("catalog spec %s differs from Load's", all[i].Name)
		}
	}
	if s, err := c.Spec("pac"); err != nil || s == nil || s.Name != "pac" {
		t.Errorf("Spec(pac) = %v, %v", s, err)
	}
	if s, err := c.Spec("nope"); err != nil || s != nil {
		t.Errorf("Spec(nope) = %v, %v; want nil", s, err)
	}
}

const minimal = "name: %s\ncommands: [%s]\ncontext:\n  read:\n    - env: X\n"

func TestCatalogScan(t *testing.T) {
	tests := []struct {
		name, file string
		words      []string
		err        string // from Add (files the scan gives up on are parsed at once)
	}{
		{name: "flow", file: "name: a\ncommands: [aa, ab]\ncontext: {read: [{env: X}]}\n", words: []string{"aa", "ab"}},
		{name: "block lists and comments", file: "# c\nname: a # the name\ncommands:\n  - aa   # first\n  # between\n  - ab\nswitched_by:\n  - other tool sub\ncontext: {read: [{env: X}]}\n",
			words: []string{"aa", "ab", "other"}},
		{name: "crlf and bom", file: "\ufeffname: a\r\ncommands: [aa]\r\ncontext: {read: [{env: X}]}\r\n", words: []string{"aa"}},
		{name: "quoted: parsed at once", file: "name: a\ncommands: [\"aa\"]\ncontext: {read: [{env: X}]}\n", words: []string{"aa"}},
		{name: "quoted key: parsed at once", file: "\"name\": a\ncommands: [aa]\ncontext: {read: [{env: X}]}\n", words: []string{"aa"}},
		{name: "multi-line flow: parsed at once", file: "name: a\ncommands: [aa,\n  ab]\ncontext: {read: [{env: X}]}\n", words: []string{"aa", "ab"}},
		{name: "unscannable and broken", file: "\"name\": a\ncontext: {read: [{env: X}]}\n", err: "commands is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := providers.NewCatalog()
			err := c.Add(fstest.MapFS{"a.yaml": {Data: []byte(tt.file)}}, "dir")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Add = %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.words {
				specs, err := c.For(w)
				if err != nil || len(specs) != 1 || specs[0].Name != "a" {
					t.Errorf("For(%q) = %v, %v", w, specs, err)
				}
			}
			if specs, _ := c.For("zz"); len(specs) != 0 {
				t.Errorf("For(zz) = %v", specs)
			}
		})
	}
}

func TestCatalogDuplicate(t *testing.T) {
	c := providers.NewCatalog()
	if err := c.Add(fstest.MapFS{"a.yaml": {Data: []byte("name: a\ncommands: [x]\ncontext: {read: [{env: X}]}\n")}}, "one"); err != nil {
		t.Fatal(err)
	}
	err := c.Add(fstest.MapFS{"b.yaml": {Data: []byte("name: a\ncommands: [y]\ncontext: {read: [{env: X}]}\n")}}, "two")
	if err == nil || !strings.Contains(err.Error(), `two/b.yaml: name "a" is already defined in one/a.yaml`) {
		t.Fatalf("Add = %v", err)
	}
}

// A broken file is reported when it is first needed, with its position.
func TestCatalogLazyError(t *testing.T) {
	c := providers.NewCatalog()
	if err := c.Add(fstest.MapFS{"a.yaml": {Data: []byte("name: a\ncommands: [x]\ncontext: {read: [{env: X}]}\nbind: {flags: [nope]}\n")}}, "dir"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.For("x"); err == nil || !strings.Contains(err.Error(), "dir/a.yaml:4:") {
		t.Fatalf("For = %v, want an error at dir/a.yaml:4", err)
	}
}

// BenchmarkCatalogBuiltin is the per-process cost of the built-in providers for a line that uses
// none of them, and for one that uses az (which also needs kubectl).
func BenchmarkCatalogBuiltin(b *testing.B) {
	for _, word := range []string{"git", "az"} {
		b.Run(word, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := providers.NewCatalog()
				if err := c.Add(builtin.Providers(), "builtin:providers"); err != nil {
					b.Fatal(err)
				}
				if _, err := c.For(word); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
