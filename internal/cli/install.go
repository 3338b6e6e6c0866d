package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/hookfile"
	"github.com/rogpeppe/go-internal/diff"
)

// wire runs install or uninstall for each harness named in args.
func (c *runner) wire(verb string, args []string) error {
	fs := flags(verb)
	scope := fs.String("scope", "user", "")
	dryRun := fs.Bool("dry-run", false, "")
	rewrite := false
	if verb == "install" {
		fs.BoolVar(&rewrite, "rewrite", false, "")
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"name a harness: " + strings.Join(harness.Names(), ", ")}
	}
	if *scope != "user" && *scope != "project" {
		return usageError{fmt.Sprintf("--scope is user or project, not %q", *scope)}
	}
	var setups []*harness.Setup
	for _, name := range fs.Args() {
		s, ok := harness.SetupFor(name)
		if !ok {
			return usageError{unknown("harness", name, harness.Names())}
		}
		if rewrite && !s.RewriteHook {
			var some []string
			for _, s := range harness.Setups() {
				if s.RewriteHook {
					some = append(some, s.Harness)
				}
			}
			return usageError{fmt.Sprintf("--rewrite is for %s, where it adds the hook that can rewrite; %s has no such second hook", strings.Join(some, ", "), s.Harness)}
		}
		setups = append(setups, s)
	}
	// Uninstall needs the binary only to find its entries under another file name; without it,
	// those named ctxguard are still found.
	self, err := c.self()
	if err != nil && verb == "install" {
		return err
	}
	var failed []error
	for _, s := range setups {
		file, err := c.hookFile(s, *scope)
		if err == nil {
			err = c.wireOne(verb, s, file, self, harness.Options{GOOS: c.env.OS, Rewrite: rewrite}, *dryRun)
		}
		if err != nil {
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

// hookFile is the file a harness reads ctxguard's hooks from in a scope.
func (c *runner) hookFile(s *harness.Setup, scope string) (string, error) {
	if scope == "user" {
		if c.env.Home == "" {
			return "", errors.New("no home directory: set HOME, or use --scope project")
		}
		return filepath.FromSlash(s.UserPath(c.env.Home, c.env.Lookup, c.env.OS)), nil
	}
	wd, err := c.getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(projectRoot(wd), filepath.FromSlash(s.ProjectPath(c.env.OS))), nil
}

func (c *runner) wireOne(verb string, s *harness.Setup, file, self string, o harness.Options, dryRun bool) error {
	if verb == "install" && s.Refuse != nil {
		if err := s.Refuse(self, o); err != nil {
			return err
		}
	}
	old, err := os.ReadFile(file)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", file, err)
	}
	out, remove, err := wired(verb, s, file, old, exists, self, o, c.created(file, false))
	if err != nil {
		return fmt.Errorf("%w\n  %s is left as it is: fix it by hand, then run ctxguard %s %s again", err, file, verb, s.Harness)
	}
	switch {
	case verb == "uninstall" && (!exists || !remove && string(out) == string(old)):
		fmt.Fprintf(c.stdout, "%s: ctxguard is not installed in %s\n", s.Title, file)
		return nil
	case verb == "install" && exists && string(out) == string(old):
		fmt.Fprintf(c.stdout, "%s: ctxguard is already installed in %s\n", s.Title, file)
		return nil
	}
	if remove {
		out = nil
	}
	if dryRun {
		from, to := file, file
		if !exists {
			from = "/dev/null"
		}
		if remove {
			to = "/dev/null"
		}
		c.stdout.Write(diff.Diff(from, old, to, out))
		for _, b := range beside(s, file, verb == "install", remove) {
			if verb == "install" {
				c.stdout.Write(diff.Diff("/dev/null", nil, b.path, []byte(b.content)))
			} else {
				c.stdout.Write(diff.Diff(b.path, []byte(b.content), "/dev/null", nil))
			}
		}
		return nil
	}
	if remove {
		if err := os.Remove(file); err != nil {
			return err
		}
		for _, b := range beside(s, file, false, true) {
			if err := os.Remove(b.path); err != nil {
				return err
			}
		}
		why := "which held only ctxguard's hook"
		if c.created(file, true) && !s.Own {
			why = "which install created and which held only ctxguard's hook"
		}
		fmt.Fprintf(c.stdout, "%s: removed %s, %s\n", s.Title, file, why)
		return nil
	}
	if err := writeFile(file, out); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	if s.Executable {
		if err := os.Chmod(file, 0o755); err != nil {
			return err
		}
	}
	for _, b := range beside(s, file, verb == "install", false) {
		if err := writeFile(b.path, []byte(b.content)); err != nil {
			return fmt.Errorf("write %s: %w", b.path, err)
		}
	}
	if !exists {
		c.remember(file)
	}
	if verb == "uninstall" {
		fmt.Fprintf(c.stdout, "%s: took ctxguard's hooks out of %s\n", s.Title, file)
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: ctxguard runs before every shell command (%s)\n", s.Title, file)
	if s.Note != "" {
		fmt.Fprintf(c.stdout, "  note: %s\n", s.Note)
	}
	fmt.Fprintln(c.stdout, "  check it with: ctxguard doctor")
	return nil
}

// wired is a harness's file after install or uninstall, and whether uninstall removes it: a
// Script file is written whole, and removed when it is ctxguard's; a settings file gets its
// entries put in or taken out, and is removed when nothing else is left in it and the file is
// ctxguard's own (Own) or install created it (created: a `{}` settings file that was not there
// before is clutter).
func wired(verb string, s *harness.Setup, file string, old []byte, exists bool, self string, o harness.Options, created bool) (out []byte, remove bool, err error) {
	if s.Script != nil {
		ours := exists && harness.IsScript(old)
		if verb == "uninstall" {
			return old, ours, nil
		}
		if exists && !ours {
			return nil, false, fmt.Errorf("%s is there and is not ctxguard's: %s runs it, and ctxguard does not replace it", file, s.Title)
		}
		out, err := s.Script(self, o)
		return out, false, err
	}
	layout := hookfile.Layout{Nested: s.Nested, Events: s.Events, Bare: s.Bare, Self: self}
	if verb == "install" {
		var entries []hookfile.Entry
		for _, e := range s.Entries(self, o) {
			entries = append(entries, hookfile.Entry{Event: e.Event, Value: e.Value})
		}
		out, err := hookfile.Install(old, file, layout, []byte(s.Skeleton), entries)
		return out, false, err
	}
	if !exists {
		return nil, false, nil
	}
	out, err = hookfile.Uninstall(old, file, layout)
	return out, err == nil && string(out) != string(old) && (s.Own || created) && hookfile.Same(out, []byte(s.Skeleton)), err
}

// besideFile is a file that goes with a harness's hook file ([harness.Setup.Beside]).
type besideFile struct{ path, content string }

// beside lists the harness's files that go with its hook file at file: for an install, the
// missing ones (written as they are), for a removal the ones still as install wrote them.
func beside(s *harness.Setup, file string, install, removal bool) []besideFile {
	var out []besideFile
	for _, rel := range slices.Sorted(maps.Keys(s.Beside)) {
		p := filepath.Join(filepath.Dir(file), filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		switch {
		case install && errors.Is(err, fs.ErrNotExist), removal && err == nil && string(data) == s.Beside[rel]:
			out = append(out, besideFile{p, s.Beside[rel]})
		}
	}
	return out
}

// remember records that install created file (see [paths.Env.CreatedFiles]). A record that
// cannot be written only means that uninstall leaves an empty file behind, so it fails silently.
func (c *runner) remember(file string) {
	list := c.env.CreatedFiles()
	if list == "" || c.created(file, false) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(list), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(list, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, file)
	f.Close()
}

// created reports whether install created file; forget drops it from the record.
func (c *runner) created(file string, forget bool) bool {
	list := c.env.CreatedFiles()
	data, err := os.ReadFile(list)
	if list == "" || err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	i := slices.Index(lines, file)
	if i >= 0 && forget {
		rest := strings.Join(slices.Delete(lines, i, i+1), "\n")
		if rest != "" {
			rest += "\n"
		}
		_ = writeFile(list, []byte(rest))
	}
	return i >= 0
}
