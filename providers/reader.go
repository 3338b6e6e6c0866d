package providers

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/spec"
	"github.com/tidwall/gjson"
)

// StateError is a state file that exists but cannot be used: unreadable, a directory, corrupt.
// The engine denies the call with it (fail closed), so it names the file.
type StateError struct {
	File string
	Err  error
}

func (e *StateError) Error() string { return "read state " + e.File + ": " + e.Err.Error() }
func (e *StateError) Unwrap() error { return e.Err }

// Reader resolves provider specs against the state files. It caches every file it reads (and
// every existence check) for its lifetime, so that a command line with many calls of a CLI reads
// its state once, and all calls see the same state. Make one per hook run; a Reader is not safe
// for concurrent use.
type Reader struct {
	files map[fileKey]*stateFile
	stats map[string]bool
}

type fileKey struct {
	path   string
	format spec.Format
	keys   string // the top-level keys decoded, joined; "" for all
}

type stateFile struct {
	json   []byte
	exists bool
	err    error
}

// NewReader returns an empty Reader.
func NewReader() *Reader {
	return &Reader{files: make(map[fileKey]*stateFile, 8)}
}

// Resolve returns the context a call of s's CLI runs in, reading the spec's steps in order.
// A missing state file is not an error (the context falls through to the step's default); a
// state file that exists but cannot be read or parsed is a [*StateError]. An error that wraps
// [spec.ErrUnknown] comes with the Active's Scope when the last step is the one overridden.
func (r *Reader) Resolve(s *spec.Spec, in spec.Input) (spec.Active, error) {
	return r.resolve(s, in, nil)
}

// resolve is Resolve with template variables that stand before every Let (a switch's
// ${target}).
func (r *Reader) resolve(s *spec.Spec, in spec.Input, seed map[string]string) (spec.Active, error) {
	x, err := r.startWith(s, &in, seed)
	if err != nil {
		return spec.Active{}, err
	}
	st := x.final()
	a := spec.Active{Vars: x.vars, Lets: x.lets}
	if a.Value, a.From, err = x.given(st, false); err != nil {
		// The state is still where it is: a session's own switch of it may stand in.
		return spec.Active{Scope: x.scope()}, err
	}
	k := s.Context.Known
	var docs []doc
	if a.Value == "" || k != nil || st.Name != "" {
		paths := append([]string{st.Value, st.Name}, st.Else...)
		if k != nil {
			paths = append(paths, k.List)
		}
		if docs, err = x.read(st, x.topKeys(paths)); err != nil {
			return spec.Active{}, err
		}
	}
	key := substitute(st.Value, x.lookup)
	var from *doc
	if a.Value == "" {
		for i := range docs {
			if v, k := x.value(st, docs[i].json); v != "" {
				a.Value, a.From, from, key = v, spec.From{Kind: spec.FromFile}, &docs[i], k
				break
			}
			if !st.List {
				break
			}
		}
	}
	switch {
	case from != nil:
		a.File, a.Key = from.path, key
	case len(docs) > 0:
		a.File, a.Key = docs[0].path, key
	}
	if a.Value == "" {
		a.Value, a.From = x.fallback(st)
	}
	if err := x.replaced(st, a.Value); err != nil {
		return spec.Active{Scope: x.scope()}, err
	}
	if k != nil {
		if !st.List && len(docs) > 1 {
			docs = docs[:1]
		}
		a.Known = x.known(k, docs)
	}
	if from != nil && st.Name != "" {
		a.Name = x.get(from.json, substitute(st.Name, x.lookup))
	} else if e, ok := a.Find(a.Value, s.Context.CaseInsensitive); ok && a.Value != "" {
		a.Name = e.Name
	}
	a.Scope = x.scope()
	return a, nil
}

// scope renders Active.Scope: one line per Let (name=value when the call or a default gives it,
// name@paths when it is kept in a state file), then the last step's paths unless they depend on
// such a kept Let. Paths are only expanded, never read.
func (x *run) scope() string {
	var b strings.Builder
	steps := x.s.Context.Read
	var kept []string
	for i, l := range x.lets {
		st := &steps[i]
		if l.From.Kind == spec.FromFlag || l.From.Kind == spec.FromEnv || len(st.Templates()) == 0 {
			fmt.Fprintf(&b, "%s=%s\n", l.Name, l.Value)
			continue
		}
		kept = append(kept, l.Name)
		fmt.Fprintf(&b, "%s@%s\n", l.Name, x.scopePaths(st))
	}
	final := x.final()
	for _, name := range kept {
		if final.Mentions(name) {
			return b.String()
		}
	}
	b.WriteString(x.scopePaths(final))
	return b.String()
}

func (x *run) scopePaths(st *spec.Step) string {
	paths, err := x.paths(st)
	if err != nil {
		return "?"
	}
	return strings.Join(paths, "|")
}

// Target turns a switch's raw target into the context it selects: unchanged without a Lookup;
// otherwise IndexBase is taken off a numeric target and the Lookup path evaluated with ${target}
// (pac auth select --index 1 gives the first profile's environment URL). ok is false when the
// target selects nothing (no such profile, or not a number where one is needed).
func (r *Reader) Target(s *spec.Spec, in spec.Input, sw *spec.Switch, target string) (string, bool, error) {
	if len(sw.Read) > 0 {
		return r.workOut(s, in, sw, target)
	}
	if sw.Lookup == "" {
		return target, target != "", nil
	}
	t := target
	if sw.IndexBase != 0 {
		n, err := strconv.Atoi(target)
		if err != nil || n < sw.IndexBase {
			return "", false, nil
		}
		t = strconv.Itoa(n - sw.IndexBase)
	}
	x, err := r.start(s, &in)
	if err != nil {
		return "", false, err
	}
	return x.lookupPath(substitute(sw.Lookup, func(name string) (string, bool) {
		if name == "target" {
			return t, t != ""
		}
		return x.lookup(name)
	}))
}

// workOut works a switch's target out with its Read steps, over the switching call's flags,
// environment and the files the steps name (kind create cluster --name dev selects kind-dev);
// ${target} in them is the raw target. ok is false when they give nothing; an error wraps
// spec.ErrUnknown when the call makes the value unknowable, as a context's read does.
func (r *Reader) workOut(s *spec.Spec, in spec.Input, sw *spec.Switch, target string) (string, bool, error) {
	steps := &spec.Spec{Name: s.Name, Noun: s.Noun, Context: spec.Context{Read: sw.Read}}
	in.Vars = nil // a switch earlier in the line forced the provider's own Let values, not these
	var seed map[string]string
	if target != "" {
		seed = map[string]string{"target": target}
	}
	a, err := r.resolve(steps, in, seed)
	return a.Value, a.Value != "", err
}

// Exists reports whether value passes one of the spec's exists checks (terraform: "default", or
// a workspace directory). A spec without checks accepts every value. A value that contains a
// path separator, or is . or .., never names a directory entry.
func (r *Reader) Exists(s *spec.Spec, in spec.Input, value string) (bool, error) {
	checks := s.Context.Exists
	if len(checks) == 0 {
		return true, nil
	}
	if value == "" {
		return false, nil
	}
	var x *run
	for _, c := range checks {
		if c.Equals != "" {
			if value == c.Equals || s.Context.CaseInsensitive && strings.EqualFold(value, c.Equals) {
				return true, nil
			}
			continue
		}
		if strings.ContainsAny(value, `/\`) || value == "." || value == ".." {
			continue
		}
		if x == nil {
			var err error
			if x, err = r.start(s, &in); err != nil {
				return false, err
			}
		}
		p, ok, _ := spec.Expand(c.Path, func(name string) (string, bool) {
			if name == "value" {
				return value, true
			}
			return x.lookup(name)
		}, in.Home, in.System.GOOS() == "windows")
		if !ok {
			continue
		}
		abs, err := x.abs(p)
		if err != nil {
			return false, err
		}
		found, err := r.exists(abs)
		if err != nil {
			return false, err
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}

// run is one evaluation of a spec for one call.
type run struct {
	r    *Reader
	s    *spec.Spec
	in   *spec.Input
	vars map[string]string
	lets []spec.Let
}

// start evaluates the Let steps.
func (r *Reader) start(s *spec.Spec, in *spec.Input) (*run, error) { return r.startWith(s, in, nil) }

// startWith evaluates the Let steps after the seed's values, which the templates see as they
// see a Let's.
func (r *Reader) startWith(s *spec.Spec, in *spec.Input, seed map[string]string) (*run, error) {
	x := &run{r: r, s: s, in: in, vars: seed}
	steps := s.Context.Read
	if len(steps) == 0 {
		return nil, fmt.Errorf("provider %s: no read steps", s.Name)
	}
	if len(steps) == 1 {
		return x, nil
	}
	if x.vars == nil {
		x.vars = make(map[string]string, len(steps)-1)
	}
	x.lets = make([]spec.Let, 0, len(steps)-1)
	for i := range steps[:len(steps)-1] {
		st := &steps[i]
		l := spec.Let{Name: st.Let}
		var err error
		if l.Value, l.From, err = x.given(st, true); err != nil {
			return nil, err
		}
		if l.Value == "" && st.Take != "" {
			if l.File, err = x.found(st); err != nil {
				return nil, err
			}
			if l.File != "" {
				l.Value, l.From = taken(l.File, st.Take), spec.From{Kind: spec.FromFile}
			}
		} else if l.Value == "" {
			docs, err := x.read(st, x.topKeys(append([]string{st.Value}, st.Else...)))
			if err != nil {
				return nil, err
			}
			if len(docs) > 0 {
				l.File = docs[0].path
				if v, _ := x.value(st, docs[0].json); v != "" {
					l.Value, l.From = v, spec.From{Kind: spec.FromFile}
				}
			}
		}
		if l.Value == "" {
			l.Value, l.From = x.fallback(st)
		}
		if st.Hash != "" && l.Value != "" {
			l.Value = hashed(l.Value, st.Hash)
		}
		x.vars[st.Let] = l.Value
		x.lets = append(x.lets, l)
	}
	return x, nil
}

func (x *run) final() *spec.Step { return &x.s.Context.Read[len(x.s.Context.Read)-1] }

// lookup resolves a template variable: a Let value (which shadows an environment variable of
// the same name), else the environment.
func (x *run) lookup(name string) (string, bool) {
	if v, ok := x.vars[name]; ok {
		return v, v != ""
	}
	return x.env(name)
}

func (x *run) env(name string) (string, bool) {
	if x.in.Env == nil {
		return "", false
	}
	v, ok := x.in.Env(name)
	if !ok && x.in.System.GOOS() == "windows" {
		if up := strings.ToUpper(name); up != name {
			v, ok = x.in.Env(up)
		}
	}
	return v, ok && v != ""
}

// given returns a step's value from the call itself: a flag, an env var or, for a Let step, a
// value forced by an earlier switch (carried). The error wraps spec.ErrUnknown when an
// OverriddenBy variable or flag is set, or when two Env variables disagree.
func (x *run) given(st *spec.Step, let bool) (string, spec.From, error) {
	if len(st.Flag) > 0 && x.in.Flag != nil {
		if v, ok := x.in.Flag(st.Flag); ok && v != "" && !slices.Contains(st.Unset, v) {
			return v, spec.From{Kind: spec.FromFlag, Name: st.Flag[0]}, nil
		}
	}
	for _, o := range st.OverriddenBy {
		if x.has(o) {
			return "", spec.From{}, fmt.Errorf("%s is set, and %s then ignores its own %s: %w", o, x.s.Name, x.s.Noun, spec.ErrUnknown)
		}
	}
	value, from := "", ""
	for _, name := range st.Env {
		v, ok := x.env(name)
		switch {
		case !ok || slices.Contains(st.Unset, v):
		case from == "":
			value, from = v, name
		case v != value:
			return "", spec.From{}, fmt.Errorf("%s=%s and %s=%s disagree, and versions of %s differ on which wins: %w", from, value, name, v, x.s.Name, spec.ErrUnknown)
		}
	}
	if from != "" {
		return value, spec.From{Kind: spec.FromEnv, Name: from}, nil
	}
	if let {
		if v, ok := x.in.Vars[st.Let]; ok && v != "" {
			return v, spec.From{Kind: spec.FromCarried}, nil
		}
	}
	return "", spec.From{}, nil
}

// replaced returns an error wrapping spec.ErrReplaced when something set on the call or in the
// environment replaces what the value means (the step's Replaced): DOCKER_HOST makes docker's
// default context that host.
func (x *run) replaced(st *spec.Step, value string) error {
	for _, r := range st.Replaced {
		applies := len(r.When) == 0 || slices.ContainsFunc(r.When, func(w string) bool {
			return w == value || x.s.Context.CaseInsensitive && strings.EqualFold(w, value)
		})
		if !applies {
			continue
		}
		for _, by := range r.By {
			if x.has(by) {
				what := x.s.Name + " " + x.s.Noun
				if value != "" {
					what += " " + value
				}
				return fmt.Errorf("%s is set, which replaces what the %s is: %w", by, what, spec.ErrReplaced)
			}
		}
	}
	return nil
}

// has reports whether the call sets an OverriddenBy entry: a variable (non-empty), or a flag,
// whose value may be empty or not literal.
func (x *run) has(o string) bool {
	switch {
	case !strings.HasPrefix(o, "-"):
		_, ok := x.env(o)
		return ok
	case x.in.Has != nil:
		return x.in.Has([]string{o})
	case x.in.Flag != nil:
		_, ok := x.in.Flag([]string{o})
		return ok
	}
	return false
}

// found returns the first of a step's files that exists (with FindUp, in the call's directory
// or the nearest parent that has one), or "" when none does.
func (x *run) found(st *spec.Step) (string, error) {
	paths, err := x.paths(st)
	if err != nil {
		return "", err
	}
	for _, p := range paths {
		ok, err := x.r.exists(p)
		if err != nil || ok {
			return p, err
		}
	}
	return "", nil
}

// taken is what a Take step makes of the file it found.
func taken(path, take string) string {
	if take == "dir" {
		return filepath.Dir(path)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// hashed is value's hash in lower-case hex; Parse admits only the names handled here.
func hashed(value, name string) string {
	switch name {
	case "sha1":
		sum := sha1.Sum([]byte(value))
		return hex.EncodeToString(sum[:])
	}
	panic("providers: unknown hash " + name)
}

func (x *run) fallback(st *spec.Step) (string, spec.From) {
	if st.Default == "" {
		return "", spec.From{}
	}
	v, ok, _ := spec.Expand(st.Default, x.lookup, x.in.Home, x.in.System.GOOS() == "windows")
	if !ok {
		return "", spec.From{}
	}
	return v, spec.From{Kind: spec.FromDefault}
}

// value reads a step's value from one file's JSON: Value's path, else the first of Else's that
// gives one. It returns the path used.
func (x *run) value(st *spec.Step, data []byte) (string, string) {
	for i := -1; i < len(st.Else); i++ {
		path := st.Value
		if i >= 0 {
			path = st.Else[i]
		}
		key := substitute(path, x.lookup)
		if v := x.get(data, key); v != "" && !slices.Contains(st.Unset, v) {
			return v, key
		}
	}
	return "", ""
}

func (x *run) get(data []byte, path string) string {
	if path == "" {
		return gjson.ParseBytes(data).String()
	}
	return gjson.GetBytes(data, path).String()
}

// doc is one existing state file, as JSON.
type doc struct {
	path string
	json []byte
}

// read returns the step's existing files in order: the first one for a plain step, every one for
// a list. keys are the top-level keys that the caller will look at (nil: any).
func (x *run) read(st *spec.Step, keys []string) ([]doc, error) {
	paths, err := x.paths(st)
	if err != nil {
		return nil, err
	}
	var docs []doc
	for _, p := range paths {
		data, exists, err := x.r.load(p, st.Format, keys)
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		docs = append(docs, doc{p, data})
		if !st.List {
			break
		}
	}
	return docs, nil
}

// paths expands the step's path templates for the call's system into absolute paths. A template
// with an unset variable names no file and is skipped.
func (x *run) paths(st *spec.Step) ([]string, error) {
	ts := x.templates(st)
	sep := ":"
	if x.in.System.GOOS() == "windows" {
		sep = ";"
	}
	out := make([]string, 0, len(ts))
	add := func(p string) error {
		p, err := x.abs(p)
		if err == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
		return err
	}
	if st.FindUp {
		return x.up(ts)
	}
	for _, t := range ts {
		p, ok, _ := spec.Expand(t, x.lookup, x.in.Home, x.in.System.GOOS() == "windows")
		if !ok {
			continue
		}
		if !st.List {
			if err := add(p); err != nil {
				return nil, err
			}
			continue
		}
		for _, e := range strings.Split(p, sep) {
			if e == "" {
				continue
			}
			if err := add(e); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// up finds a FindUp step's file: the first directory, from the call's up to the root, in which
// one of the templates names an existing file gives that file alone. When none does, the
// templates are given from the call's directory, where the CLI would create them.
func (x *run) up(ts []string) ([]string, error) {
	var rel []string
	for _, t := range ts {
		if p, ok, _ := spec.Expand(t, x.lookup, x.in.Home, x.in.System.GOOS() == "windows"); ok {
			rel = append(rel, p)
		}
	}
	if x.in.Dir == "" {
		for _, p := range rel {
			if !x.in.System.IsAbs(p) {
				return nil, fmt.Errorf("state path %s is looked for upward: %w", p, spec.ErrNoDir)
			}
		}
	}
	for d := range paths.Up(x.in.Dir) {
		for _, p := range rel {
			if x.in.System.IsAbs(p) {
				continue
			}
			cand := x.in.System.Abs(d, p)
			found, err := x.r.exists(cand)
			if err != nil {
				return nil, err
			}
			if found {
				return []string{cand}, nil
			}
		}
	}
	out := make([]string, 0, len(rel))
	for _, p := range rel {
		abs, err := x.abs(p)
		if err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

// abs makes a state path absolute, from the call's directory.
func (x *run) abs(p string) (string, error) {
	if x.in.System.IsAbs(p) {
		return x.in.System.Abs("", p), nil
	}
	if x.in.Dir == "" {
		return "", fmt.Errorf("state path %s is relative: %w", p, spec.ErrNoDir)
	}
	return x.in.System.Abs(x.in.Dir, p), nil
}

// templates are the step's path templates for the system the call runs on.
func (x *run) templates(st *spec.Step) []string {
	switch x.in.System.GOOS() {
	case "windows":
		if len(st.Windows) > 0 {
			return st.Windows
		}
	case "darwin":
		if len(st.Darwin) > 0 {
			return st.Darwin
		}
	}
	return st.File
}

// topKeys returns the top-level keys that gjson paths start with, once their ${name} references
// are substituted, or nil when one of them may look anywhere (a modifier, a multipath, a
// wildcard, an empty path). The reader then decodes a large YAML state file only in part.
func (x *run) topKeys(paths []string) []string {
	var keys []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		p = substitute(p, x.lookup)
		var b strings.Builder
		i := 0
		for ; i < len(p); i++ {
			c := p[i]
			if c == '\\' && i+1 < len(p) {
				i++
				b.WriteByte(p[i])
				continue
			}
			if c == '.' || c == '|' {
				break
			}
			if strings.IndexByte("*?@[{!#", c) >= 0 {
				return nil
			}
			b.WriteByte(c)
		}
		if b.Len() == 0 {
			return nil
		}
		if !slices.Contains(keys, b.String()) {
			keys = append(keys, b.String())
		}
	}
	return keys
}

// lookupPath evaluates a gjson path on the last step's files.
func (x *run) lookupPath(path string) (string, bool, error) {
	st := x.final()
	docs, err := x.read(st, nil)
	if err != nil {
		return "", false, err
	}
	for _, d := range docs {
		if v := x.get(d.json, path); v != "" {
			return v, true, nil
		}
	}
	return "", false, nil
}

// known lists the contexts in docs, the first file's entry winning for an id listed twice
// (kubectl merges contexts that way).
func (x *run) known(k *spec.KnownList, docs []doc) []spec.Known {
	list := substitute(k.List, x.lookup)
	// The paths an entry is read at: the id, the name, then the fields.
	paths := []string{k.ID, k.Name}
	names := make([]string, 0, len(k.Fields))
	for f, path := range k.Fields {
		names, paths = append(names, f), append(paths, path)
	}
	var out []spec.Known
	for _, d := range docs {
		gjson.GetBytes(d.json, list).ForEach(func(_, e gjson.Result) bool {
			v := members(e, paths)
			id := v[0].String()
			if id == "" {
				return true
			}
			for _, o := range out {
				if o.ID == id {
					return true
				}
			}
			name := id
			if k.Name != "" {
				name = v[1].String()
			}
			kn := spec.Known{ID: id, Name: name}
			for i, f := range names {
				if v := v[2+i]; v.Exists() && v.Type != gjson.Null {
					if kn.Fields == nil {
						kn.Fields = make(map[string]string, len(k.Fields))
					}
					kn.Fields[f] = v.String()
				}
			}
			out = append(out, kn)
			return true
		})
	}
	return out
}

// members is e.Get of each path ("" gets nothing). The paths that are plain keys of an object are
// read in one pass over its members, the first of a repeated key winning as in Get: each Get
// reads the object from its start, and a known list reads most members of each entry (seven of
// an az subscription's dozen).
func members(e gjson.Result, paths []string) []gjson.Result {
	out := make([]gjson.Result, len(paths))
	var keys []int
	for i, p := range paths {
		switch {
		case p == "":
		case e.IsObject() && plainKey(p):
			keys = append(keys, i)
		default:
			out[i] = e.Get(p)
		}
	}
	if len(keys) == 0 {
		return out
	}
	e.ForEach(func(k, v gjson.Result) bool {
		for _, i := range keys {
			if k.Str == paths[i] && !out[i].Exists() {
				out[i] = v
			}
		}
		return true
	})
	return out
}

// plainKey reports whether a gjson path is a key and nothing else: letters, digits, _ and -,
// none of which means anything in gjson's syntax.
func plainKey(p string) bool {
	for _, r := range p {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// maxState bounds a state file's size: the real ones are kilobytes, and the hook must answer in
// milliseconds whatever sits at the path.
const maxState = 16 << 20

// load reads a state file as JSON, once per Reader and set of keys (see codec.ToJSONKeys).
func (r *Reader) load(path string, format spec.Format, keys []string) ([]byte, bool, error) {
	k := fileKey{path, format, strings.Join(keys, "\x00")}
	if keys != nil && k.keys == "" {
		k.keys = "\x00" // one empty key is not every key
	}
	if f, ok := r.files[k]; ok {
		return f.json, f.exists, f.err
	}
	f := new(stateFile)
	f.json, f.exists, f.err = readState(path, format, keys)
	if r.files == nil {
		r.files = make(map[fileKey]*stateFile, 8)
	}
	r.files[k] = f
	return f.json, f.exists, f.err
}

// settle is how long readState waits before each new read of a state file that it found
// unparsable, or empty where the format cannot be. az, kubectl and gcloud rewrite their files in
// place (truncate, then write), so a hook that races a switch can see a file cut short or empty,
// and on a loaded machine a large write takes tens of milliseconds. The pauses double (10, 20,
// 40 ms: 70 ms in all, within the hook's 150 ms budget); a file still broken after the last one
// is reported, never trusted.
var settle = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}

// readState reads a state file as JSON, reading it again after each pause of settle while it
// looks caught mid-write. An empty JSON file is never what a CLI leaves, so it gets every pause;
// an empty YAML, INI or text file may be the CLI's own (gcloud creates a configuration empty, a
// kubeconfig may be touched into being), so it is read once more after the first pause only. A
// file that stays empty holds no context, as the CLIs read it, and the reason that says so names
// it.
func readState(path string, format spec.Format, keys []string) ([]byte, bool, error) {
	out, exists, err := readStateOnce(path, format, keys)
	for i, d := range settle {
		var parse *parseError
		torn := errors.As(err, &parse) || err == nil && empty(out) && (format == spec.FormatJSON || i == 0)
		if !exists || !torn {
			break
		}
		time.Sleep(d)
		out, exists, err = readStateOnce(path, format, keys)
	}
	if parse := (*parseError)(nil); errors.As(err, &parse) {
		err = &StateError{path, parse.err}
	}
	return out, exists, err
}

// parseError is a state file that was read but does not parse: the one failure a concurrent
// writer explains.
type parseError struct{ err error }

func (e *parseError) Error() string { return e.err.Error() }

// empty reports whether a file holds nothing but white space (or, turned into JSON, null).
func empty(out []byte) bool {
	t := bytes.TrimSpace(out)
	return len(t) == 0 || string(t) == "null"
}

func readStateOnce(path string, format spec.Format, keys []string) ([]byte, bool, error) {
	data, err := file.Read(path, maxState)
	if err != nil {
		if missing(err) {
			return nil, false, nil
		}
		return nil, true, &StateError{path, unwrapPath(err)}
	}
	out, err := codec.ToJSONKeys(data, string(format), keys)
	if err != nil {
		return nil, true, &parseError{err}
	}
	// gjson reads what it can of broken JSON; a file cut short by a concurrent write must fail
	// closed instead. The BOM is gone by now, so gjson's own check is safe to use.
	if format == spec.FormatJSON && len(bytes.TrimSpace(out)) > 0 && !gjson.ValidBytes(out) {
		return nil, true, &parseError{jsonError(out)}
	}
	return out, true, nil
}

// unwrapPath drops the *fs.PathError around an error: the StateError names the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// missing reports whether err means there is no file: a state file that does not exist yet is
// the normal state of a CLI that was never used.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// jsonError says where JSON is broken; it runs only on files gjson found invalid.
func jsonError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return errors.New("invalid JSON")
	}
	at := codec.Position(data, int(se.Offset))
	if at.Col > 1 {
		at.Col-- // Offset is just past the byte that broke the JSON
	}
	return fmt.Errorf("invalid JSON at line %d, column %d: %s", at.Line, at.Col, se.Error())
}

func (r *Reader) exists(path string) (bool, error) {
	if found, ok := r.stats[path]; ok {
		return found, nil
	}
	_, err := os.Stat(path)
	found := err == nil
	if err != nil && !missing(err) {
		return false, &StateError{path, unwrapPath(err)}
	}
	if r.stats == nil {
		r.stats = make(map[string]bool, 4)
	}
	r.stats[path] = found
	return found, nil
}
