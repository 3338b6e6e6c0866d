package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/rules"
)

// Self is the set of files through which ctxguard is configured: the policy files that Load
// reads (and any .ctxguard.yaml, since a new one nearer the work would replace the project
// layer), the providers folder, and the harness files that run the hook. An agent that could
// write them could switch the guard off, so the guard denies its writes to them (see
// [rules.Self], which Self implements).
type Self struct {
	goos    string
	entries []selfEntry
}

type selfEntry struct {
	path string // clean, absolute
	dir  bool   // everything under path is protected too
	rule string
	what string
}

// Protected returns the protected files for o: the same locations Load looks at, and the hook
// files of the harnesses ctxguard installs into, as they are for o.Cwd and o.Home. Files that do
// not exist are protected too (creating one can change the policy), except the per-directory
// ones on the way up from o.Cwd, which are protected by name wherever they are.
func Protected(o Options) *Self {
	if o.Env == nil {
		o.Env = func(string) (string, bool) { return "", false }
	}
	if o.OS == "" {
		o.OS = runtime.GOOS
	}
	s := &Self{goos: o.OS}
	add := func(p string, dir bool, rule, what string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		s.entries = append(s.entries, selfEntry{path: filepath.Clean(p), dir: dir, rule: rule, what: what})
		if r, err := filepath.EvalSymlinks(p); err == nil && r != filepath.Clean(p) {
			s.entries = append(s.entries, selfEntry{path: r, dir: dir, rule: rule, what: what})
		}
	}
	add(managedFile(o), false, "self.policy-write", "ctxguard's managed policy "+managedFile(o))
	if u := userFile(o); u != "" {
		add(u, false, "self.policy-write", "ctxguard's user policy "+u)
		p := filepath.Join(filepath.Dir(u), "providers")
		add(p, true, "self.policy-write", "ctxguard's providers folder "+p)
	}
	if v, ok := o.Env("XDG_CONFIG_HOME"); ok && v != "" && !filepath.IsAbs(v) && o.Cwd != "" {
		// The providers folder is read from a relative XDG_CONFIG_HOME too.
		p := filepath.Join(o.Cwd, v, "ctxguard", "providers")
		add(p, true, "self.policy-write", "ctxguard's providers folder "+p)
	}
	if o.Home != "" {
		claude := filepath.Join(o.Home, ".claude")
		if v, ok := o.Env("CLAUDE_CONFIG_DIR"); ok && filepath.IsAbs(v) {
			claude = v
		}
		for _, f := range []string{"settings.json", "settings.local.json"} {
			add(filepath.Join(claude, f), false, "self.hook-write", "Claude Code's settings "+filepath.Join(claude, f)+", which run ctxguard")
		}
		copilot := filepath.Join(o.Home, ".copilot")
		if v, ok := o.Env("COPILOT_HOME"); ok && filepath.IsAbs(v) {
			copilot = v
		}
		add(filepath.Join(copilot, "hooks"), true, "self.hook-write", "Copilot CLI's hooks folder "+filepath.Join(copilot, "hooks")+", which runs ctxguard")
		add(filepath.Join(copilot, "settings.json"), false, "self.hook-write", "Copilot CLI's settings "+filepath.Join(copilot, "settings.json")+", which may run ctxguard")
	}
	// The per-directory files on the way up exist or not; those that exist are listed so that
	// removing or moving a directory that holds one is seen (rm -r .claude, mv repo elsewhere).
	if filepath.IsAbs(o.Cwd) {
		for dir := filepath.Clean(o.Cwd); ; {
			for _, f := range []string{ProjectFile, ".claude/settings.json", ".claude/settings.local.json", ".github/hooks"} {
				p := filepath.Join(dir, filepath.FromSlash(f))
				if _, err := os.Lstat(p); err == nil {
					if rule, what, ok := s.byName(p); ok {
						add(p, f == ".github/hooks", rule, what)
					}
				}
			}
			parent := filepath.Dir(dir)
			if parent == dir || o.Home != "" && dir == filepath.Clean(o.Home) {
				break
			}
			dir = parent
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
	if rule, what, ok := s.byName(p); ok {
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

// byName recognises the per-directory files wherever they are: a project policy, Claude Code's
// project settings, Copilot CLI's repository hooks and settings.
func (s *Self) byName(p string) (rule, what string, ok bool) {
	base := filepath.Base(p)
	parent := filepath.Base(filepath.Dir(p))
	eq := func(a, b string) bool { return a == b || s.fold() && strings.EqualFold(a, b) }
	switch {
	case eq(base, ProjectFile):
		return "self.policy-write", "a ctxguard project policy (" + p + ")", true
	case eq(parent, ".claude") && s.glob("settings*.json", base):
		return "self.hook-write", "Claude Code's settings " + p + ", which run ctxguard", true
	case eq(parent, "copilot") && eq(filepath.Base(filepath.Dir(filepath.Dir(p))), ".github") && s.glob("settings*.json", base):
		return "self.hook-write", "Copilot CLI's repository settings " + p + ", which may run ctxguard", true
	}
	for d := p; ; {
		up := filepath.Dir(d)
		if eq(filepath.Base(d), "hooks") && eq(filepath.Base(up), ".github") {
			return "self.hook-write", "Copilot CLI's repository hooks " + d + ", which run ctxguard", true
		}
		if up == d {
			break
		}
		d = up
	}
	return "", "", false
}

// Mentions reports whether a path's text, which cannot be resolved statically, names something
// that may be protected.
func (s *Self) Mentions(text string) bool {
	t := strings.ToLower(strings.ReplaceAll(text, `\`, "/"))
	for _, w := range []string{"ctxguard", ".claude", ".copilot", ".github/hooks", ".github/copilot"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

func (s *Self) fold() bool { return s.goos == "windows" || s.goos == "darwin" }

func (s *Self) same(a, b string) bool { return a == b || s.fold() && strings.EqualFold(a, b) }

// under reports whether p lies strictly inside dir.
func (s *Self) under(p, dir string) bool {
	if s.fold() {
		p, dir = strings.ToLower(p), strings.ToLower(dir)
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

func (s *Self) glob(pat, name string) bool {
	if s.fold() {
		pat, name = strings.ToLower(pat), strings.ToLower(name)
	}
	ok, _ := filepath.Match(pat, name)
	return ok
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
	if err := codec.DecodeStrict(data, file, &f); err != nil {
		return nil, err
	}
	for i, w := range f.Writers {
		switch w.Operands {
		case "all", "first", "last":
		default:
			return nil, fmt.Errorf("%s: writer %d (%s): operands is %q, want all, first or last", file, i+1, w.Command, w.Operands)
		}
		if w.Command == "" {
			return nil, fmt.Errorf("%s: writer %d has no command", file, i+1)
		}
	}
	return f.Writers, nil
}
