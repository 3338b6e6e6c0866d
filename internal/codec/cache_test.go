package codec

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/rogpeppe/go-internal/txtar"
)

// policyDoc is a schema like a policy file's: pointers, lists of pointers, maps, an interface.
type policyDoc struct {
	Version  *int                   `yaml:"version"`
	Contexts map[string]*contextDoc `yaml:"contexts"`
	Rules    []*struct {
		Match    string `yaml:"match"`
		Decision string `yaml:"decision"`
		When     any    `yaml:"when"`
	} `yaml:"rules"`
	Destructive *string `yaml:"destructive"`
	Other       any     `yaml:"other"`
}

type contextDoc struct {
	Allow   *[]*string `yaml:"allow"`
	Default *string    `yaml:"default"`
}

// cacheCorpus is every YAML file of the repository's tests and builtin data, and every file in
// the test scripts: policies, providers, state files, broken ones.
func cacheCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{
		"inline":  []byte("version: 1\ncontexts:\n  az: {allow: [\"a\", 'b', c*, 0x1F, 1e3, true, ~, null]}\n  kubectl:\n    default: |\n      multi\n      line\nother: {n: 3, f: 1.5, list: [1, two], nested: {deep: [x]}}\n"),
		"anchors": []byte("contexts:\n  az: &a {allow: [x]}\n  kubectl: *a\n"),
		"broken":  []byte("contexts:\n  az: [\n"),
		"unknown": []byte("contexts:\n  az: {allow: [x], colour: red}\n"),
		"empty":   []byte("# nothing\n"),
	}
	root := filepath.Join("..", "..")
	for _, dir := range []string{"builtin", "testdata/script", "internal/guard/testdata", "providers/testdata"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil || d.IsDir():
			case strings.HasSuffix(p, ".txtar"):
				a, err := txtar.ParseFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range a.Files {
					out[p+"/"+f.Name] = f.Data
				}
			case strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml"):
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				out[p] = b
			}
			return nil
		})
	}
	if len(out) < 100 {
		t.Fatalf("only %d files in the corpus", len(out))
	}
	return out
}

// TestCacheSameAsDecode decodes every file of the corpus through a cache, cold and then warm,
// and checks that both give what Decode gives: the value, every position, or the same error;
// into a schema like a policy's (most files do not fit it) and into a map (every YAML file does).
func TestCacheSameAsDecode(t *testing.T) {
	hits := 0
	for _, target := range []func() any{func() any { return new(policyDoc) }, func() any { return new(map[string]any) }} {
		c := Cache{Dir: testenv.TempDir(t), Build: "test"}
		for name, data := range cacheCorpus(t) {
			want := target()
			wantPos, wantErr := Decode(data, name, want)
			cacheable := false
			if wantErr == nil && wantPos.root != nil {
				_, cacheable = appendTree(nil, wantPos.root)
			}
			for _, run := range []string{"cold", "warm"} {
				if run == "warm" && cacheable {
					// The warm decode reads the entry the cold one wrote.
					b, err := os.ReadFile(filepath.Join(c.Dir, c.entry(data, name)))
					if err != nil {
						t.Fatalf("%s: no entry: %v", name, err)
					}
					if _, ok := readTree(b); !ok {
						t.Fatalf("%s: the entry does not read back", name)
					}
					hits++
				}
				got := target()
				gotPos, gotErr := c.Decode(data, name, got)
				if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Fatalf("%s (%s): error %v, want %v", name, run, gotErr, wantErr)
				}
				if wantErr != nil {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s (%s): decoded %+v, want %+v", name, run, got, want)
				}
				if g, w := gotPos.index(), wantPos.index(); !reflect.DeepEqual(g, w) {
					t.Fatalf("%s (%s): positions %v, want %v", name, run, g, w)
				}
			}
		}
	}
	if hits < 200 {
		t.Errorf("only %d warm decodes were served from the cache", hits)
	}
}

func countEntries(t *testing.T, dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(entries)
}

// TestCacheChangedFile changes a file within the same second, to the same size, with the same
// modification time: the change is read, never the tree of the old content.
func TestCacheChangedFile(t *testing.T) {
	c := Cache{Dir: testenv.TempDir(t), Build: "test"}
	file := filepath.Join(testenv.TempDir(t), ".ctxguard.yaml")
	at := time.Now().Truncate(time.Second)
	decode := func(content string) string {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, at, at); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var d policyDoc
		if _, err := c.Decode(data, file, &d); err != nil {
			t.Fatal(err)
		}
		return *(*d.Contexts["az"].Allow)[0]
	}
	for _, tt := range []struct{ content, want string }{
		{"contexts: {az: {allow: [dev]}}\n", "dev"},
		{"contexts: {az: {allow: [dev]}}\n", "dev"},
		{"contexts: {az: {allow: [prd]}}\n", "prd"},
		{"contexts: {az: {allow: [dev]}}\n", "dev"},
		{"contexts: {az: {allow: [d*]}}\n", "d*"},
	} {
		if got := decode(tt.content); got != tt.want {
			t.Errorf("%q: allow %q, want %q", tt.content, got, tt.want)
		}
	}
}

// TestCacheEntries shows that a hit is served from the entry (one rewritten to hold another
// document's tree is believed by its own build), that another build never reads it, and that an
// entry which is not a tree, or is cut short, is ignored.
func TestCacheEntries(t *testing.T) {
	dir := testenv.TempDir(t)
	c := Cache{Dir: dir, Build: "one"}
	real, other := []byte("contexts: {az: {allow: [dev]}}\n"), []byte("contexts: {az: {allow: [anything]}}\n")
	allow := func(c Cache) string {
		t.Helper()
		var d policyDoc
		if _, err := c.Decode(real, "p.yaml", &d); err != nil {
			t.Fatal(err)
		}
		return *(*d.Contexts["az"].Allow)[0]
	}
	if got := allow(c); got != "dev" {
		t.Fatalf("cold: %q", got)
	}
	var d policyDoc
	pos, err := Decode(other, "p.yaml", &d)
	if err != nil {
		t.Fatal(err)
	}
	forged, ok := appendTree([]byte(treeMagic), pos.root)
	if !ok {
		t.Fatal("no tree")
	}
	entry := filepath.Join(dir, c.entry(real, "p.yaml"))
	if err := os.WriteFile(entry, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := allow(c); got != "anything" {
		t.Errorf("a hit is not read from its entry: %q", got)
	}
	if got := allow(Cache{Dir: dir, Build: "two"}); got != "dev" {
		t.Errorf("another build read the entry: %q", got)
	}
	for _, bad := range [][]byte{nil, []byte("garbage"), forged[:len(forged)-3], append([]byte(treeMagic), 0xff, 0xff, 0xff), append(forged, 0)} {
		if err := os.WriteFile(entry, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := allow(c); got != "dev" {
			t.Errorf("entry %q: %q", bad, got)
		}
	}
	info, err := os.Stat(entry)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("entry mode %v, want 0600", info.Mode().Perm())
	}
}

// TestCacheBounded keeps the folder to maxEntries, whatever the number of documents.
func TestCacheBounded(t *testing.T) {
	c := Cache{Dir: testenv.TempDir(t), Build: "test"}
	for i := range maxEntries + 20 {
		var d policyDoc
		if _, err := c.Decode([]byte("destructive: ask\nversion: "+strings.Repeat("1", 1+i%9)+"\nrules: [{match: x"+strings.Repeat("y", i)+"}]\n"), "p.yaml", &d); err != nil {
			t.Fatal(err)
		}
	}
	if n := countEntries(t, c.Dir); n > maxEntries {
		t.Errorf("%d entries, want at most %d", n, maxEntries)
	}
}
