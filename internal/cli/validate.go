package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/policy"
)

// topCommands finds a top-level commands: key, the mark of a provider file.
var topCommands = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^commands[ \t]*:`) })

// source is one file to validate.
type source struct {
	index int
	file  string
	kind  string // "policy" or "provider"
	data  []byte
}

func runValidate(c *runner, args []string) error {
	fs := flags("validate")
	kind := fs.String("kind", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *kind != "" && *kind != "policy" && *kind != "provider" {
		return usageError{fmt.Sprintf("--kind is policy or provider, not %q", *kind)}
	}
	files := fs.Args()
	if len(files) == 0 {
		var err error
		if files, err = c.defaultFiles(); err != nil {
			return err
		}
		if len(files) == 0 {
			fmt.Fprintln(c.stderr, "ctxguard validate: no policy or provider file applies here; name the files to check")
			return nil
		}
	}
	// findings[i] are the problems of files[i], printed in the order the files were named.
	findings := make([][]string, len(files))
	var srcs []source
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = os.ErrNotExist // the same words on every system
			} else {
				err = errors.Unwrap(err)
			}
			findings[i] = []string{fmt.Sprintf("%s: %v", f, err)}
			continue
		}
		k := *kind
		if k == "" {
			k = "policy"
			if filepath.Base(filepath.Dir(f)) == "providers" || topCommands().Match(data) {
				k = "provider"
			}
		}
		srcs = append(srcs, source{i, f, k, data})
	}

	// Providers first: a policy may name the providers given with it.
	cat, err := catalog.Open(c.env)
	var known []string
	if err == nil {
		known = cat.Names()
	}
	builtins := catalog.New().Names()
	named := map[string]string{}
	for _, s := range srcs {
		if s.kind != "provider" {
			continue
		}
		spec, pos, err := catalog.Decode(s.data, s.file)
		if err != nil {
			findings[s.index] = sorted(err)
			continue
		}
		switch prev, dup := named[spec.Name]; {
		case slices.Contains(builtins, spec.Name):
			findings[s.index] = append(findings[s.index], pos.Errorf("name", "provider %q is built in; a file may add a CLI, not replace one: pick another name", spec.Name).Error())
		case dup:
			findings[s.index] = append(findings[s.index], pos.Errorf("name", "provider %q is also defined in %s", spec.Name, prev).Error())
		default:
			named[spec.Name] = s.file
		}
		if !slices.Contains(known, spec.Name) {
			known = append(known, spec.Name)
		}
	}
	if err != nil {
		// The user's providers folder does not load: the files given are still checked, against
		// the built-in names.
		fmt.Fprintf(c.stderr, "ctxguard validate: %v\n", err)
		known = append(known, builtins...)
	}
	for _, s := range srcs {
		if s.kind != "policy" {
			continue
		}
		p, err := policy.Parse(s.data, s.file, c.layerOf(s.file), known)
		if err != nil {
			findings[s.index] = sorted(err)
			continue
		}
		for _, note := range p.Notes {
			fmt.Fprintf(c.stderr, "note: %s\n", note)
		}
	}
	n := 0
	for _, fs := range findings {
		for _, f := range fs {
			fmt.Fprintln(c.stdout, f)
			n++
		}
	}
	if n > 0 {
		return exitError{code: exitFailure, msg: fmt.Sprintf("%s in %s", count(n, "problem"), count(len(files), "file"))}
	}
	fmt.Fprintf(c.stderr, "ctxguard validate: %s, no problem\n", count(len(files), "file"))
	return nil
}

// layerOf is the layer a policy file is read as: the user's or the managed policy when it is
// that file, else a project's (what a project may not set, such as where the audit trail goes,
// is then an error).
func (c *runner) layerOf(file string) string {
	fi, err := os.Stat(file)
	if err != nil {
		return policy.Project
	}
	for _, l := range []struct{ name, file string }{{policy.Managed, c.env.ManagedPolicy()}, {policy.User, c.env.UserPolicy()}} {
		if other, err := os.Stat(l.file); l.file != "" && err == nil && os.SameFile(fi, other) {
			return l.name
		}
	}
	return policy.Project
}

// defaultFiles are the files a hook run here would read: the policy of each layer and the
// user's provider files.
func (c *runner) defaultFiles() ([]string, error) {
	wd, err := c.getwd()
	if err != nil {
		return nil, err
	}
	layers, err := policy.Layers(policy.Options{Cwd: wd, Env: c.env})
	if err != nil {
		return nil, err
	}
	var files []string
	for _, l := range layers {
		if l.Found {
			files = append(files, l.File)
		}
	}
	if dir := c.env.ProvidersDir(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		files = append(files, more...)
	}
	return files, nil
}

// sorted lists the problems of one file in the order of their positions.
func sorted(err error) []string {
	errs := unjoin(err)
	pos := func(e error) (int, int) {
		var ce *codec.Error
		if errors.As(e, &ce) {
			return ce.Line, ce.Col
		}
		return 0, 0
	}
	slices.SortStableFunc(errs, func(a, b error) int {
		al, ac := pos(a)
		bl, bc := pos(b)
		return cmp.Or(cmp.Compare(al, bl), cmp.Compare(ac, bc))
	})
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func runSchema(c *runner, args []string) error {
	fs := flags("schema")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"name the kind of file: policy or provider"}
	}
	data, ok := builtin.Schema(fs.Arg(0))
	if !ok {
		return usageError{fmt.Sprintf("no schema for %q: want policy or provider", fs.Arg(0))}
	}
	_, err := c.stdout.Write(data)
	return err
}
