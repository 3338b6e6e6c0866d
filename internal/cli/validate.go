package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
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
			fmt.Fprintln(c.stderr, "ctxguard validate: no policy or provider file applies here, so there is nothing to check: name the files to check, or write a policy with ctxguard init")
			return nil
		}
	}
	// findings[i] are the problems of files[i], printed in the order the files were named.
	findings := make([][]string, len(files))
	var srcs []source
	for i, f := range files {
		data, err := file.Read(f, codec.MaxFile)
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
			k = fileKind(f, data)
		}
		srcs = append(srcs, source{i, f, k, data})
	}

	// The providers a policy may name: the built-in ones, the user's providers folder as a hook
	// run loads it, and the provider files given. A file is checked where it is given, so that
	// each problem is printed once.
	cat := catalog.New()
	check := func(file string, data []byte) []string {
		s, pos, err := catalog.Decode(data, file)
		if err != nil {
			return sorted(err)
		}
		var clash *catalog.NameError
		if err := cat.AddSpecs([]*spec.Spec{s}); errors.As(err, &clash) {
			return []string{pos.Errorf("name", "%s", clash.Problem()).Error()}
		}
		return nil
	}
	given := map[string]bool{}
	for _, s := range srcs {
		if abs, err := filepath.Abs(s.file); err == nil && s.kind == "provider" {
			given[abs] = true
		}
	}
	userFiles, err := c.userProviders()
	if err != nil {
		fmt.Fprintf(c.stderr, "ctxguard validate: %v: the policies are checked against the built-in providers only\n", err)
	}
	policies := slices.ContainsFunc(srcs, func(s source) bool { return s.kind == "policy" })
	for _, f := range userFiles {
		if given[f] || !policies {
			continue
		}
		data, err := file.Read(f, codec.MaxFile)
		if err == nil && check(f, data) == nil {
			continue
		}
		fmt.Fprintf(c.stderr, "ctxguard validate: %s does not load, so its provider is unknown here (ctxguard validate %s says why)\n", c.home(f), f)
	}
	for _, s := range srcs {
		if s.kind == "provider" {
			findings[s.index] = check(s.file, s.data)
		}
	}
	for _, s := range srcs {
		if s.kind != "policy" {
			continue
		}
		p, err := policy.Parse(s.data, s.file, c.layerOf(s.file), cat.Names())
		if err != nil {
			findings[s.index] = sorted(err)
			continue
		}
		if _, err := policy.Tests(s.data, s.file); err != nil {
			findings[s.index] = sorted(err)
		}
		for _, e := range machineProblems(p, guard.Machine()) {
			findings[s.index] = append(findings[s.index], e.Error())
		}
		for _, note := range p.Notes {
			fmt.Fprintf(c.stderr, "note: %s\n", note)
		}
	}
	n, broken := 0, 0
	for _, fs := range findings {
		for _, f := range fs {
			fmt.Fprintln(c.stdout, f)
			n++
		}
		if len(fs) > 0 {
			broken++
		}
	}
	if n > 0 {
		in := count(len(files), "file")
		if broken < len(files) {
			in = fmt.Sprintf("%d of %d files", broken, len(files))
		}
		them := "them"
		if n == 1 {
			them = "it"
		}
		return exitError{code: exitFailure, msg: fmt.Sprintf("%s in %s: correct %s, then run ctxguard validate again", count(n, "problem"), in, them)}
	}
	var checked []string
	for _, s := range srcs {
		what := s.kind
		if s.kind == "policy" {
			what = c.layerOf(s.file) + " policy"
		}
		checked = append(checked, fmt.Sprintf("%s %s", what, c.home(s.file)))
	}
	fmt.Fprintf(c.stderr, "ctxguard validate: no problem in %s: %s\n", count(len(files), "file"), strings.Join(checked, ", "))
	return nil
}

// layerOf is the layer a policy file is read as ([policy.LayerOf]).
func (c *runner) layerOf(file string) string { return policy.LayerOf(file, c.env) }

// fileKind tells a provider file (in a providers folder, or with a top-level commands: key)
// from a policy file.
func fileKind(file string, data []byte) string {
	if filepath.Base(filepath.Dir(file)) == "providers" || topCommands().Match(data) {
		return "provider"
	}
	return "policy"
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
	more, err := c.userProviders()
	if err != nil {
		return nil, err
	}
	return append(files, more...), nil
}

// userProviders are the files of the user's providers folder that a hook run loads, in the order
// it loads them.
func (c *runner) userProviders() ([]string, error) {
	dir := c.env.ProvidersDir()
	if dir == "" {
		return nil, nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read providers folder %s: %w", dir, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	slices.Sort(files)
	return files, err
}

// sorted lists the problems of one file in the order of their positions.
func sorted(err error) []string {
	var out []string
	for _, e := range codec.Sorted(err) {
		out = append(out, e.Error())
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

// machineProblems reads the facts of this machine that the policy's conditions need (the host
// name, the user's groups), so that one that cannot be read (a group database that cannot be
// opened) is a problem at the rule that needs it, as it is a deny in the hook.
func machineProblems(p *policy.Policy, m rules.Facts) []error {
	var out []error
	for _, r := range p.Rules {
		for _, c := range slices.Concat(r.When, r.Unless) {
			var err error
			what := ""
			switch {
			case len(c.Groups) > 0:
				_, err = m.Groups()
				what = "the user's groups"
			case len(c.Hosts) > 0:
				_, err = m.Host()
				what = "the host name"
			}
			if err != nil {
				out = append(out, &codec.Error{File: r.Src.File, Line: r.Src.Line,
					Msg: fmt.Sprintf("rule %s: cannot read %s (%v): the hook denies the calls this rule is about", r.ID, what, err)})
				break
			}
		}
	}
	return out
}
