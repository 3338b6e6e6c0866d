package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ctxguard/ctxguard/internal/catalog"
)

func TestCatalogBuiltin(t *testing.T) {
	c := catalog.New()
	if got, want := c.Names(), []string{"aws", "az", "azd", "databricks", "docker", "doctl", "firebase", "gcloud", "gh", "helm", "kubectl", "oc", "pac", "pulumi", "terraform"}; !slices.Equal(got, want) {
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
		{"aws", []string{"aws", "kubectl"}}, // aws eks update-kubeconfig
		{"doctl", []string{"doctl", "kubectl"}},
		{"kubectx", []string{"kubectl"}},
		// oc and helm read kubectl's state themselves (shares): oc's switches are its own.
		{"oc", []string{"oc"}},
		{"helm", []string{"helm"}},
	} {
		specs := c.For(tt.word)
		var got []string
		for _, s := range specs {
			got = append(got, s.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("For(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
	if s := c.Spec("pac"); s == nil || s.Name != "pac" {
		t.Errorf("Spec(pac) = %v", s)
	}
	if s := c.Spec("nope"); s != nil {
		t.Errorf("Spec(nope) = %v; want nil", s)
	}
}

func TestCatalogDuplicate(t *testing.T) {
	c := catalog.New()
	if err := c.Add(fstest.MapFS{"a.yaml": {Data: []byte("name: a\ncommands: [x]\ncontext: {read: [{env: X}]}\n")}}, "one"); err != nil {
		t.Fatal(err)
	}
	err := c.Add(fstest.MapFS{"b.yaml": {Data: []byte("name: a\ncommands: [y]\ncontext: {read: [{env: X}]}\n")}}, "two")
	if err == nil || !strings.Contains(err.Error(), `two/b.yaml: provider "a" is also defined in one/a.yaml`) {
		t.Fatalf("Add = %v", err)
	}
	// Two files of one folder, and a file that reuses a built-in name.
	err = catalog.New().Add(fstest.MapFS{
		"a.yaml": {Data: []byte("name: a\ncommands: [x]\ncontext: {read: [{env: X}]}\n")},
		"b.yaml": {Data: []byte("name: a\ncommands: [y]\ncontext: {read: [{env: X}]}\n")},
	}, "dir")
	if err == nil || !strings.Contains(err.Error(), `dir/b.yaml: provider "a" is also defined in dir/a.yaml`) {
		t.Errorf("Add of one folder = %v", err)
	}
	err = catalog.New().Add(fstest.MapFS{"az.yaml": {Data: []byte("name: az\ncommands: [az]\ncontext: {read: [{env: X}]}\n")}}, "dir")
	if err == nil || !strings.Contains(err.Error(), `dir/az.yaml: provider "az" is built in`) {
		t.Errorf("Add of a built-in name = %v", err)
	}
}

// A broken user file is reported when it is added, with its position.
func TestCatalogError(t *testing.T) {
	c := catalog.New()
	err := c.Add(fstest.MapFS{"a.yaml": {Data: []byte("name: a\ncommands: [x]\ncontext: {read: [{env: X}]}\nbind: {flags: [nope]}\n")}}, "dir")
	if err == nil || !strings.Contains(err.Error(), "dir/a.yaml:4:") {
		t.Fatalf("Add = %v, want an error at dir/a.yaml:4", err)
	}
}

// BenchmarkCatalogBuiltin is the per-process cost of the built-in providers for a line that uses
// none of them, and for one that uses az (which also needs kubectl).
func BenchmarkCatalogBuiltin(b *testing.B) {
	for _, word := range []string{"git", "az"} {
		b.Run(word, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				catalog.New().For(word)
			}
		})
	}
}
