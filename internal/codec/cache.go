package codec

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"

	"github.com/ctxguard/ctxguard/internal/file"
	"go.yaml.in/yaml/v3"
)

// Cache keeps the node trees of YAML documents that [Decode] read without a problem, so that a
// hook run, which reads its policy files before every command, does not parse them again:
// yaml.v3 spends ~0.1–0.3 ms scanning and parsing a small policy on a cold start, against a few
// microseconds to rebuild its tree from an entry. The tree is then decoded into v and its
// positions read as on a miss, so that what a hit returns is what Decode returns.
//
// An entry is named by the SHA-256 of the document's bytes, its file name and Build: the file is
// read every time, and a changed file is a new name whatever its size or modification time (no
// clock granularity to defend). Build is the identity of the program that wrote the entry: the
// tree of one build is never read by another, whose YAML library or schema may differ (a key
// one build knows is unknown to an older one, and the strict decode must see it). An entry that
// cannot be read, or does not decode, is ignored and the document parsed; any doubt reads the
// file.
type Cache struct {
	Dir   string // "" turns the cache off
	Build string
}

// maxEntry bounds an entry that is read: a tree takes a few times its document, and a document
// takes at most MaxFile.
const maxEntry = 8 * MaxFile

// maxEntries bounds the folder: each edit of a policy and each new build leaves an entry.
const maxEntries = 64

// treeMagic starts every entry; a new format is a new magic.
const treeMagic = "ctxguard yaml tree 1\n"

// Decode is [Decode] through the cache.
func (c Cache) Decode(data []byte, source string, v any) (*Positions, error) {
	if c.Dir == "" || c.Build == "" {
		return Decode(data, source, v)
	}
	name := filepath.Join(c.Dir, c.entry(data, source))
	if b, err := file.Read(name, maxEntry); err == nil {
		if root, ok := readTree(b); ok {
			if d, ok := v.(TreeDecoder); ok && d.DecodeTree(Node{root}) {
				return &Positions{file: source, root: root}, nil
			}
			zero(v)
			if err := root.Decode(v); err == nil {
				return &Positions{file: source, root: root}, nil
			}
			// The entry is not what this build wrote for this document: start again from the bytes.
			zero(v)
		}
	}
	pos, err := Decode(data, source, v)
	if err == nil && pos.root != nil {
		c.store(name, pos.root) // a cache that cannot be written changes nothing
	}
	return pos, err
}

func (c Cache) entry(data []byte, source string) string {
	h := sha256.New()
	for _, s := range []string{treeMagic, c.Build, source} {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	h.Write(data)
	return fmt.Sprintf("yaml-%x", h.Sum(nil)[:20])
}

// store writes an entry atomically (a temporary file renamed over it), readable by the user
// only, and keeps the folder to maxEntries, the oldest going first.
func (c Cache) store(name string, root *yaml.Node) {
	b, ok := appendTree([]byte(treeMagic), root)
	if !ok {
		return
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return
	}
	if file.Replace(name, b, 0o600) != nil {
		return
	}
	entries, err := file.ReadDir(c.Dir)
	if err != nil || len(entries) <= maxEntries {
		return
	}
	type aged struct {
		name string
		at   int64
	}
	var all []aged
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			all = append(all, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.at, b.at) })
	for _, e := range all[:max(0, len(all)-maxEntries)] {
		os.Remove(filepath.Join(c.Dir, e.name))
	}
}

// zero resets what v points to (a pointer, as for any decode), after a decode that failed half
// way: decoding into it again must not see the first attempt's fields.
func zero(v any) { reflect.ValueOf(v).Elem().SetZero() }

// appendTree writes n and its content: kind, style, tag, value, line and column of each node,
// then the number of its children. Comments are left out (nothing decodes them), and a tree
// with an alias is not written: an alias points into the tree, which this format cannot say.
func appendTree(b []byte, n *yaml.Node) ([]byte, bool) {
	if n.Kind == yaml.AliasNode || n.Kind == 0 {
		return nil, false
	}
	b = binary.AppendUvarint(b, uint64(n.Kind))
	b = binary.AppendUvarint(b, uint64(n.Style))
	b = appendBytes(b, n.Tag)
	b = appendBytes(b, n.Anchor)
	b = appendBytes(b, n.Value)
	b = binary.AppendUvarint(b, uint64(n.Line))
	b = binary.AppendUvarint(b, uint64(n.Column))
	b = binary.AppendUvarint(b, uint64(len(n.Content)))
	for _, c := range n.Content {
		var ok bool
		if b, ok = appendTree(b, c); !ok {
			return nil, false
		}
	}
	return b, true
}

func appendBytes(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// readTree rebuilds a tree written by appendTree; ok is false for anything else. The nodes are
// allocated together and the strings share one copy of b.
func readTree(b []byte) (*yaml.Node, bool) {
	if len(b) < len(treeMagic) || string(b[:len(treeMagic)]) != treeMagic {
		return nil, false
	}
	r := treeReader{s: string(b[len(treeMagic):])}
	// Each node takes at least eight bytes, which bounds what a corrupt count can ask for.
	r.nodes = make([]yaml.Node, 0, len(r.s)/8)
	n := r.node(0)
	if r.err != nil || r.at != len(r.s) {
		return nil, false
	}
	return n, true
}

type treeReader struct {
	s     string
	at    int
	nodes []yaml.Node
	err   error
}

var errTree = errors.New("not a tree")

func (r *treeReader) uint() uint64 {
	var v uint64
	for shift := 0; r.at < len(r.s) && shift < 64; shift += 7 {
		c := r.s[r.at]
		r.at++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.err = errTree
	return 0
}

func (r *treeReader) str() string {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.s)-r.at) {
		r.err = errTree
		return ""
	}
	s := r.s[r.at : r.at+int(n)]
	r.at += int(n)
	return s
}

func (r *treeReader) node(depth int) *yaml.Node {
	if len(r.nodes) == cap(r.nodes) || depth > 10000 {
		r.err = errTree
		return nil
	}
	r.nodes = r.nodes[:len(r.nodes)+1]
	n := &r.nodes[len(r.nodes)-1]
	n.Kind, n.Style = yaml.Kind(r.uint()), yaml.Style(r.uint())
	n.Tag, n.Anchor, n.Value = r.str(), r.str(), r.str()
	n.Line, n.Column = int(r.uint()), int(r.uint())
	count := r.uint()
	if r.err != nil || count > uint64(cap(r.nodes)-len(r.nodes)) || n.Kind == yaml.AliasNode || n.Kind == 0 {
		r.err = errTree
		return nil
	}
	if count > 0 {
		n.Content = make([]*yaml.Node, count)
		for i := range n.Content {
			if n.Content[i] = r.node(depth + 1); r.err != nil {
				return nil
			}
		}
	}
	return n
}

// BuildID identifies the running program for [Cache.Build]: its file's path, size and
// modification time, which any rebuild or upgrade changes. "" when they cannot be known, which
// turns the cache off.
func BuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}
