package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

// TestValidateAndHookAgree runs every policy file of the test scripts and the test machines,
// good and broken, through Parse (what `ctxguard validate` reads) and through Load as a hook
// run reads it, with the parsed-tree cache cold and then warm: all three give the same policy,
// or the same error.
func TestValidateAndHookAgree(t *testing.T) {
	names := catalog.New().Names()
	corpus := policyCorpus(t)
	good, broken := 0, 0
	for name, data := range corpus {
		tr := newTree(t)
		tr.write("home/repo/"+ProjectFile, string(data))
		o := tr.options("home/repo")
		o.Providers = names
		want, wantErr := Parse(data, tr.path("home/repo/"+ProjectFile), Project, names)
		if wantErr != nil {
			broken++
		} else {
			good++
		}
		for _, run := range []string{"cold", "warm"} {
			got, err := Load(o)
			switch {
			case (err == nil) != (wantErr == nil):
				t.Fatalf("%s (%s): Load error %v, Parse error %v", name, run, err, wantErr)
			case err != nil:
				if err.Error() != wantErr.Error() {
					t.Errorf("%s (%s): Load error\n%v\nParse error\n%v", name, run, err, wantErr)
				}
			default:
				if d := cmp.Diff(want, got, sameRegexp, sameLocation); d != "" {
					t.Errorf("%s (%s): Load and Parse differ (-Parse +Load):\n%s", name, run, d)
				}
			}
		}
	}
	if good < 30 || broken < 5 {
		t.Errorf("corpus of %d good and %d broken policies, want more", good, broken)
	}
}

// TestDecodeTree decodes every good policy of the corpus with yaml.v3 and by hand from its tree,
// as a cache hit reads it: both give the same schema, and the hand reader takes most of them.
func TestDecodeTree(t *testing.T) {
	corpus := policyCorpus(t)
	// Shapes the corpus may lack, each of which a hand reader could get subtly wrong.
	for i, doc := range []string{
		"version: 1\ncontexts:\n  az:\n    allow: []\n",
		"contexts: {}\nsession: {}\n",
		"contexts:\n  az:\n    allow: ['Dev', \"prod\", 'it''s', \"a\\tb\"]\n    default: \"\"\n    unbound: deny\n",
		"version: 01\n", "version: 0x1\n", "version: \"1\"\n", "version: !!int 1\n", "version: 100000000000\n",
		"session: {remember: True}\n", "session: {remember: no}\n", "session: {remember: false}\n",
		"destructive: yes\nrewrite: ask\n", "destructive: 1\n", "destructive:\n", "destructive: ~\n",
		"contexts:\n  az:\n", "contexts:\n  az:\n    allow: [dev, ~]\n", "contexts:\n  az:\n    allow: dev\n",
		"contexts:\n  az:\n    allow: [1, true]\n", "\"version\": 1\n", "contexts:\n  az: &a {allow: [x]}\n",
		"audit: true\nrules:\n  - id: r\n    match: az *\n    decision: deny\n    reason: no\n",
		"tests:\n  - command: az group list\n    expect: allow\n", "audit: {path: /tmp/x.jsonl, max_size: 10}\n",
	} {
		corpus["case "+strconv.Itoa(i)] = []byte(doc)
	}
	read := 0
	for name, data := range corpus {
		var want fileSchema
		pos, err := codec.Decode(data, name, &want)
		if err != nil {
			continue
		}
		tree, ok := pos.Tree()
		if !ok {
			continue
		}
		var got fileSchema
		if !got.DecodeTree(tree) {
			continue
		}
		read++
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: yaml.v3 and DecodeTree differ (-yaml.v3 +DecodeTree):\n%s", name, d)
		}
	}
	if read < len(corpus)/2 {
		t.Errorf("DecodeTree read %d of %d policies, want most", read, len(corpus))
	}
}

// policyCorpus is every policy file of the test scripts, the test machines and the docs' tests,
// by name.
func policyCorpus(t *testing.T) map[string][]byte {
	corpus := map[string][]byte{}
	root := filepath.Join("..", "..")
	for _, dir := range []string{"testdata/script", "internal/guard/testdata", "testdata/docs"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if strings.HasSuffix(p, ".txtar") {
				a, err := txtar.ParseFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range a.Files {
					if isPolicyName(f.Name) {
						corpus[p+"/"+f.Name] = f.Data
					}
				}
			} else if isPolicyName(p) {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				corpus[p] = b
			}
			return nil
		})
	}
	return corpus
}

func isPolicyName(p string) bool {
	base := filepath.Base(p)
	return base == ProjectFile || base == "policy.yaml" && !strings.Contains(p, "builtin")
}

// BenchmarkLoad is a hook run's policy: the machine's project file found, read and checked,
// its tree parsed (cold: a new cache each time) or read back from the cache (warm).
func BenchmarkLoad(b *testing.B) {
	names := catalog.New().Names()
	data, err := os.ReadFile(filepath.Join("..", "guard", "testdata", "machine", "repo", ProjectFile))
	if err != nil {
		b.Fatal(err)
	}
	for _, warm := range []bool{false, true} {
		b.Run(map[bool]string{false: "cold", true: "warm"}[warm], func(b *testing.B) {
			dir := testenv.TempDir(b)
			if err := os.WriteFile(filepath.Join(dir, ProjectFile), data, 0o644); err != nil {
				b.Fatal(err)
			}
			env := map[string]string{"CTXGUARD_MANAGED_POLICY": filepath.Join(dir, "none.yaml"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
			o := Options{Cwd: dir, Providers: names, Env: paths.Env{OS: "linux", Home: dir, Lookup: func(k string) (string, bool) {
				v, ok := env[k]
				return v, ok
			}}}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if !warm {
					env["XDG_STATE_HOME"] = filepath.Join(dir, "state", strconv.Itoa(i))
				}
				if p, err := Load(o); err != nil || len(p.Files) != 1 {
					b.Fatal(p, err)
				}
			}
		})
	}
}

// sameRegexp compares content patterns by their source: two compilations of one expression are
// the same rule.
var sameRegexp = cmp.Comparer(func(a, b *regexp.Regexp) bool {
	return a == nil && b == nil || a != nil && b != nil && a.String() == b.String()
})

// sameLocation compares time zones by name, as the policy names them.
var sameLocation = cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() })
