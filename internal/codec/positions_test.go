package codec

import (
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"
)

// index is every path of the tree and where it is written, as a walk writes them in document
// order (the last writer of a path wins): what At must answer for each path.
func (p *Positions) index() map[string]Pos {
	at := map[string]Pos{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		at[path] = Pos{n.Line, n.Column}
		prefix := path
		if prefix != "" {
			prefix += "."
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				walk(v, prefix+k.Value)
				at[prefix+k.Value] = Pos{k.Line, k.Column}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, prefix+strconv.Itoa(i))
			}
		}
	}
	if p.root != nil {
		walk(p.root, "")
	}
	return at
}

// TestPositionsAt looks up every path of every file of the corpus, and of documents whose paths
// are ambiguous (keys with dots, empty and repeated keys, indexes that are prefixes of others),
// and a few that are not written.
func TestPositionsAt(t *testing.T) {
	docs := cacheCorpus(t)
	docs["tricky.yaml"] = []byte("a.b: 1\na:\n  b: 2\n  c: [x, y, z, w, v, u, t, s, r, q, p, o]\n\"\": {\"\": {a: 3}}\nd: {e: 1}\nd: {e: 2}\n")
	docs["dots.yaml"] = []byte("a:\n  b: 2\na.b: 1\nx: [[1, 2], {y.z: 3, y: {z: 4}}]\n")
	tricky := 0
	for name, data := range docs {
		var v any
		pos, err := Decode(data, name, &v)
		if pos == nil || pos.root == nil {
			continue
		}
		if name == "tricky.yaml" || name == "dots.yaml" {
			tricky++
		}
		_ = err // a file with problems still has positions
		all := pos.index()
		for path, want := range all {
			if got, ok := pos.At(path); !ok || got != want {
				t.Errorf("%s: At(%q) = %v, %v; want %v", name, path, got, ok, want)
			}
			for _, more := range []string{".nope", "x", ".1", "."} {
				if _, written := all[path+more]; written {
					continue
				}
				if got, ok := pos.At(path + more); ok {
					t.Errorf("%s: At(%q) = %v; want nothing", name, path+more, got)
				}
			}
		}
	}
	if tricky != 2 {
		t.Errorf("%d of the 2 ambiguous documents have positions", tricky)
	}
}
