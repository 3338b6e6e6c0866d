package catalog_test

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
)

// core are the providers ctxguard must ship; more may be added as YAML files alone.
var core = []string{"az", "gcloud", "gh", "kubectl", "pac", "terraform"}

func TestProvidersParse(t *testing.T) {
	files, err := fs.Glob(builtin.Providers(), "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		data, err := fs.ReadFile(builtin.Providers(), f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := catalog.Parse(data, "builtin:providers/"+f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".yaml"); s.Name != want {
			t.Errorf("%s: name %q, want the file's name %q", f, s.Name, want)
		}
		if !strings.HasPrefix(string(data), "#") {
			t.Errorf("%s: no header comment saying what the provider reads and where the facts come from", f)
		}
		got = append(got, s.Name)
	}
	for _, n := range core {
		if !slices.Contains(got, n) {
			t.Errorf("built-in provider %s is missing", n)
		}
	}
}

func TestLoad(t *testing.T) {
	specs, err := catalog.Load(builtin.Providers(), "builtin:providers")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.Name] {
			t.Errorf("provider %s defined twice", s.Name)
		}
		seen[s.Name] = true
		if want := "builtin:providers/" + s.Name + ".yaml"; s.Source != want {
			t.Errorf("Source = %q, want %q", s.Source, want)
		}
		for _, d := range s.Destructive {
			if len(d.Why) < 20 {
				t.Errorf("%s: destructive %q: why %q is too short to tell an agent anything", s.Name, d.Match, d.Why)
			}
		}
	}
}

// BenchmarkLoadBuiltin is what compiling the built-in specs saves each hook run: parsing their
// YAML.
func BenchmarkLoadBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalog.Load(builtin.Providers(), "builtin:providers"); err != nil {
			b.Fatal(err)
		}
	}
}
