package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/suite"
)

// runTest runs the tests of policy files and the examples of provider files, conftest-style: one
// PASS or FAIL line each, with what differs under a FAIL, then a count; any failure, or a file
// whose tests do not load, exits 1.
func runTest(c *runner, args []string) error {
	fs := flags("test")
	withBuiltin := fs.Bool("builtin", false, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	files := fs.Args()
	builtins := *withBuiltin
	if len(files) == 0 && !builtins {
		var err error
		if files, err = c.defaultFiles(); err != nil {
			return err
		}
		builtins = true
	}
	cwd, err := c.getwd()
	if err != nil {
		return err
	}
	cat, err := catalog.Open(c.env)
	if err != nil {
		// The user's providers folder does not load: its providers' examples cannot run, the
		// rest still can.
		fmt.Fprintf(c.stderr, "ctxguard test: %v\n", err)
		cat = catalog.New()
	}
	var cases []suite.Case
	shown := map[string]string{} // absolute file -> the name it was given as
	broken := 0
	for _, f := range files {
		got, err := c.casesOf(f, cwd, cat)
		if err != nil {
			for _, line := range sorted(err) {
				fmt.Fprintln(c.stdout, "ERROR "+line)
			}
			broken++
			continue
		}
		for _, cs := range got {
			shown[cs.File] = f
		}
		cases = append(cases, got...)
	}
	if builtins {
		got, err := builtinCases(cwd)
		if err != nil {
			return err
		}
		cases = append(cases, got...)
	}
	failed := 0
	for _, cs := range cases {
		r := suite.Run(cs, c.env)
		file := cs.File
		if name, ok := shown[file]; ok {
			file = name
		}
		word := "PASS"
		if !r.Passed() {
			word = "FAIL"
			failed++
		}
		fmt.Fprintf(c.stdout, "%s %s:%d %s\n", word, file, cs.Line, cs.What)
		for _, p := range r.Problems {
			fmt.Fprintf(c.stdout, "    %s\n", p)
		}
	}
	fmt.Fprintf(c.stdout, "%s, %d passed, %d failed", count(len(cases), "test"), len(cases)-failed, failed)
	if broken > 0 {
		fmt.Fprintf(c.stdout, ", %s with errors", count(broken, "file"))
	}
	fmt.Fprintln(c.stdout)
	if failed > 0 || broken > 0 {
		return exitError{code: exitFailure}
	}
	return nil
}

// casesOf reads the tests of a policy file or the examples of a provider file.
func (c *runner) casesOf(f, cwd string, cat *catalog.Catalog) ([]suite.Case, error) {
	data, err := file.Read(f, codec.MaxFile)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return nil, err
	}
	if fileKind(f, data) == "policy" {
		cases, err := suite.Policy(data, abs, c.layerOf(f), cat.Names())
		return cases, named(err, abs, f)
	}
	s, pos, err := catalog.Decode(data, abs)
	if err != nil {
		return nil, named(err, abs, f)
	}
	// A provider the catalog has (installed in the providers folder) runs as installed; one it
	// does not have is brought in by its examples.
	return suite.Examples(s, pos, cwd, cat.Spec(s.Name) == nil), nil
}

// named names the file in err's problems as the user did: the file is parsed by its absolute
// path, which relative patterns in it are taken from.
func named(err error, abs, given string) error {
	if err == nil {
		return nil
	}
	var out []error
	for _, e := range codec.Unjoin(err) {
		var ce *codec.Error
		if errors.As(e, &ce) && ce.File == abs {
			c := *ce
			c.File = given
			e = &c
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// builtinCases are the examples of the built-in providers.
func builtinCases(cwd string) ([]suite.Case, error) {
	names, err := fs.Glob(builtin.Providers(), "*.yaml")
	if err != nil {
		return nil, err
	}
	var out []suite.Case
	for _, name := range names {
		data, err := fs.ReadFile(builtin.Providers(), name)
		if err != nil {
			return nil, err
		}
		s, pos, err := catalog.Decode(data, "builtin:providers/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, suite.Examples(s, pos, cwd, false)...)
	}
	return out, nil
}
