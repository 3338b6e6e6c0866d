package policy

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/rules"
)

// Self is the set of files through which ctxguard is configured: the policy files that Load
// reads (and any .ctxguard.yaml, since a new one nearer the work would replace the project
// layer), the providers folder, and the harness files that run the hook. An agent that could
// write them could switch the guard off, so the guard denies its writes to them (see
// [rules.Self], which Self implements).
type Self struct {
	entries []selfEntry
	// byName are the harnesses' project files, recognised by name wherever they are.
	byName []harness.File
	// mentions are the folder names that a harness's files are in (".gemini", ".github/hooks"),
	// lower case, for Mentions.
	mentions []string
}

type selfEntry struct {
	path string // clean, absolute
	dir  bool   // everything under path is protected too
	rule string
	what string
}

// Protected returns the protected files for o: the same locations Load looks at, every file
// through which a harness runs hooks ([harness.Files]), as they are for o.Cwd, o.Home and o.OS,
// the audit trail (the default one, and trail's file when the policy names one) and the rest of
// ctxguard's state folder. Files that do not exist are protected too (creating one can change
// the policy or add a hook); the per-directory ones (a project policy, a project's harness
// settings) are protected by name wherever they are.
func Protected(o Options, trail audit.Trail) *Self {
	s := &Self{}
	add := func(p string, dir bool, rule, what string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		s.entries = append(s.entries, selfEntry{path: filepath.Clean(p), dir: dir, rule: rule, what: what})
		if r, err := filepath.EvalSymlinks(p); err == nil && r != filepath.Clean(p) {
			s.entries = append(s.entries, selfEntry{path: r, dir: dir, rule: rule, what: what})
		}
	}
	add(o.ManagedPolicy(), false, "self.policy-write", "ctxguard's managed policy "+o.ManagedPolicy())
	if u := o.UserPolicy(); u != "" {
		add(u, false, "self.policy-write", "ctxguard's user policy "+u)
	}
	if p := o.ProvidersDir(); p != "" {
		add(p, true, "self.policy-write", "ctxguard's providers folder "+p)
	}
	if p := o.Lifts(); p != "" {
		add(p, false, rules.RuleLift, "ctxguard's lift file "+p+" (only a human lifts a rule, with ctxguard lift in their own terminal)")
	}
	// The parsed trees of the policy files: one written there for a file's bytes is believed.
	if p := o.PolicyCache(); p != "" {
		add(p, true, "self.policy-write", "ctxguard's policy cache "+p)
	}
	// The record a security team reads: removing, emptying or linking it away erases what agents
	// did, and a named pipe there would make the hook wait.
	trails := []audit.Trail{{}}
	if trail.Path != "" {
		trails = append(trails, trail)
	}
	for _, a := range trails {
		if l, err := audit.For(a, o.Env); err == nil {
			add(l.Path, false, "self.audit-write", "ctxguard's audit trail "+l.Path)
			add(l.Old(), false, "self.audit-write", "ctxguard's audit trail "+l.Old()+" (its older part)")
		}
	}
	if p := o.AuditFailure(); p != "" {
		add(p, false, "self.audit-write", "the note of ctxguard's last failure to write its audit trail "+p)
	}
	// The rest of the state folder: the session memory, which binds a session's later commands,
	// and whatever else ctxguard keeps there.
	if p := o.Sessions(); p != "" {
		add(p, true, "self.state-write", "ctxguard's session memory "+p)
	}
	if p := o.StateDir(); p != "" {
		add(p, true, "self.state-write", "ctxguard's state folder "+p)
	}
	for _, f := range harness.Files(o.Home, o.Get, o.GOOS()) {
		if f.Project {
			s.byName = append(s.byName, f)
			continue
		}
		p := filepath.FromSlash(f.Path)
		add(p, f.Dir, "self.hook-write", f.What+" "+p+", which can run ctxguard")
	}
	s.mentions = mentions(o.GOOS())
	// The per-directory files on the way up exist or not; those that exist are listed so that
	// removing or moving a directory that holds one is seen (rm -r .claude, mv repo elsewhere).
	if filepath.IsAbs(o.Cwd) {
		for dir := range o.upToHome() {
			for _, f := range append([]harness.File{{Path: ProjectFile}}, s.byName...) {
				if strings.ContainsAny(f.Path, "*?[") {
					continue // a pattern: protected by name
				}
				p := filepath.Join(dir, filepath.FromSlash(f.Path))
				if _, err := os.Lstat(p); err == nil {
					if rule, what, ok := s.named(p); ok {
						add(p, f.Dir, rule, what)
					}
				}
			}
		}
	}
	return s
}

// Match reports whether writing path (or, with tree, removing or moving it whole) changes a
// protected file. The path is compared as given and with its symlinks resolved as far as it
// exists, so that a link to the policy is no way round.
func (s *Self) Match(path string, tree bool, into []string) (rules.Protection, bool) {
	cands := []string{filepath.Clean(path)}
	if r := resolve(path); r != cands[0] {
		cands = append(cands, r)
	}
	for _, c := range cands {
		if pr, ok := s.match(c, tree); ok {
			return pr, true
		}
		if len(into) > 0 {
			if fi, err := os.Stat(c); err == nil && fi.IsDir() {
				for _, n := range into {
					if pr, ok := s.match(filepath.Join(c, n), false); ok {
						return pr, true
					}
				}
			}
		}
	}
	return rules.Protection{}, false
}

func (s *Self) match(p string, tree bool) (rules.Protection, bool) {
	if rule, what, ok := s.named(p); ok {
		return rules.Protection{Rule: rule, What: what}, true
	}
	for _, e := range s.entries {
		switch {
		case s.same(p, e.path), e.dir && s.under(p, e.path):
			return rules.Protection{Rule: e.rule, What: e.what}, true
		case tree && s.under(e.path, p):
			return rules.Protection{Rule: e.rule, What: e.what + " (inside " + p + ")"}, true
		}
	}
	return rules.Protection{}, false
}

// named recognises the per-directory files wherever they are: a project policy, and the
// harnesses' project files (for a folder, anything inside it).
func (s *Self) named(p string) (rule, what string, ok bool) {
	if s.same(filepath.Base(p), ProjectFile) {
		return "self.policy-write", "a ctxguard project policy (" + p + ")", true
	}
	for _, f := range s.byName {
		if m, ok := s.endsIn(p, f); ok {
			return "self.hook-write", f.What + " " + m + ", which can run ctxguard", true
		}
	}
	return "", "", false
}

// endsIn reports whether p's last elements are f's (its last may be a pattern), or for a folder,
// whether p is inside one; it returns the file or folder matched.
func (s *Self) endsIn(p string, f harness.File) (string, bool) {
	elems := strings.Split(f.Path, "/")
	for d := p; ; {
		if s.tail(d, elems) {
			return d, true
		}
		up := filepath.Dir(d)
		if !f.Dir || up == d {
			return "", false
		}
		d = up
	}
}

// tail reports whether p ends in elems.
func (s *Self) tail(p string, elems []string) bool {
	for i := len(elems) - 1; i >= 0; i-- {
		up := filepath.Dir(p)
		if up == p || !s.glob(elems[i], filepath.Base(p)) {
			return false
		}
		p = up
	}
	return true
}

// Mentions reports whether a path's text, which cannot be resolved statically, names something
// that may be protected.
func (s *Self) Mentions(text string) bool {
	t := strings.ToLower(strings.ReplaceAll(text, `\`, "/"))
	if strings.Contains(t, "ctxguard") {
		return true
	}
	// A glob (`rm .ctx*`) may match a protected name.
	if base := t[strings.LastIndexByte(t, '/')+1:]; strings.ContainsAny(base, "*?[") {
		for _, n := range s.names() {
			if s.glob(base, n) {
				return true
			}
		}
	}
	for _, w := range s.mentions {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// Names match in any case: on Windows and macOS .CTXGUARD.yaml is the policy, and elsewhere
// refusing a write to such a name costs nothing.
func (s *Self) same(a, b string) bool { return strings.EqualFold(a, b) }

// under reports whether p lies strictly inside dir.
func (s *Self) under(p, dir string) bool {
	p, dir = strings.ToLower(p), strings.ToLower(dir)
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

func (s *Self) glob(pat, name string) bool {
	ok, _ := filepath.Match(strings.ToLower(pat), strings.ToLower(name))
	return ok
}

// mentions lists the folders the harnesses' files are in: a project file's folder, and the first
// folder under the home of a user file there. The defaults are listed (with no environment), so
// that "$HOME/.codex/hooks.json" counts wherever CODEX_HOME points.
func mentions(goos string) []string {
	var out []string
	add := func(w string) {
		if w = strings.ToLower(w); w != "." && w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	const h = "/home"
	for _, f := range harness.Files(h, func(string) (string, bool) { return "", false }, goos) {
		switch {
		case f.Project && f.Dir:
			add(f.Path)
		case f.Project:
			add(path.Dir(f.Path))
		case strings.HasPrefix(f.Path, h+"/"):
			first, _, _ := strings.Cut(strings.TrimPrefix(f.Path, h+"/"), "/")
			add(first)
		}
	}
	return out
}

// resolve resolves the symlinks of the longest existing prefix of p and appends the rest.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for d := p; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		up := filepath.Dir(d)
		if up == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = up
	}
}

// writersFile is protect.yaml as written.
type writersFile struct {
	Writers []rules.Writer `yaml:"writers"`
}

// ParseWriters reads the list of commands that write files named in their arguments
// (builtin/protect.yaml).
func ParseWriters(data []byte, file string) ([]rules.Writer, error) {
	var f writersFile
	pos, err := codec.Decode(data, file, &f)
	if pos == nil {
		return nil, err
	}
	problems := codec.NewProblems(pos, err)
	for i, w := range f.Writers {
		at := "writers." + strconv.Itoa(i)
		switch w.Operands {
		case rules.OperandsAll, rules.OperandsFirst, rules.OperandsLast:
		default:
			problems.Add(at+".operands", "operands is %q, want %s, %s or %s", w.Operands, rules.OperandsAll, rules.OperandsFirst, rules.OperandsLast)
		}
		if w.Command == "" {
			problems.Add(at, "a writer needs a command")
		}
	}
	if err := problems.Err(); err != nil {
		return nil, err
	}
	return f.Writers, nil
}

// names are the base names of the protected files.
func (s *Self) names() []string {
	out := []string{strings.ToLower(ProjectFile)}
	for _, e := range s.entries {
		if n := strings.ToLower(filepath.Base(e.path)); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
