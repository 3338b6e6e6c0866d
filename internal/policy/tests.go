package policy

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// testSchema is one of a policy file's tests, as written (`ctxguard test`): a command line, or
// what a file tool writes, with the state and the facts it runs with, and the expected answer.
type testSchema struct {
	Command *string                        `yaml:"command"`
	Shell   *string                        `yaml:"shell"`
	Tool    *string                        `yaml:"tool"`
	Path    *string                        `yaml:"path"`
	Content *string                        `yaml:"content"`
	Active  map[string]*spec.ContextValue  `yaml:"active"`
	Known   map[string][]spec.ContextValue `yaml:"known"`
	When    *factsSchema                   `yaml:"when"`
	Expect  *spec.Expect                   `yaml:"expect"`
}

// factsSchema are the facts a test gives the conditions. What it leaves out is not known (see
// rules.Facts), except the environment, which holds exactly the variables given.
type factsSchema struct {
	PermissionMode *string           `yaml:"permission_mode"`
	Agent          *string           `yaml:"agent"`
	Harness        *string           `yaml:"harness"`
	Unattended     *bool             `yaml:"unattended"`
	Now            *string           `yaml:"now"`
	Host           *string           `yaml:"host"`
	Groups         *words            `yaml:"groups"`
	Env            map[string]string `yaml:"env"`
	Cwd            *string           `yaml:"cwd"`
}

// Test is one of a policy file's tests, checked and ready to run.
type Test struct {
	Line int
	// Request is the call: its command or file write, the directory (the file's own unless the
	// test gives one) and the harness's facts.
	Request rules.Request
	// Active and Known fake each provider's state.
	Active map[string]spec.ContextValue
	Known  map[string][]spec.ContextValue
	// Now, Host and Groups are the facts the test gives (zero, nil: not known), Env the
	// environment.
	Now    time.Time
	Host   *string
	Groups []string
	Env    map[string]string
	Expect spec.Expect
	// path is the written file as the test names it, for String.
	path string
}

// Tests reads the tests of a policy file. Every problem is reported at file:line:col, as Parse
// reports the rest of the file; a file without tests has none, and no error.
func Tests(data []byte, file string) ([]Test, error) {
	var s fileSchema
	pos, err := codec.Decode(data, file, &s)
	if pos == nil {
		return nil, err
	}
	c := checker{pos: pos, problems: codec.NewProblems(pos, err)}
	dir := filepath.Dir(file)
	var out []Test
	for i, ts := range s.Tests {
		path := "tests." + strconv.Itoa(i)
		if t, ok := c.test(path, ts, dir); ok {
			out = append(out, t)
		}
	}
	if err := c.problems.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *checker) test(path string, ts *testSchema, dir string) (Test, bool) {
	if ts == nil {
		c.errorf(path, "empty test: want a command (or tool, path and content) and expect")
		return Test{}, false
	}
	ok := true
	fail := func(p, format string, args ...any) {
		c.errorf(p, format, args...)
		ok = false
	}
	t := Test{Line: c.src(path).Line, Request: rules.Request{Cwd: dir, Shell: rules.ShellBash}, Env: map[string]string{}}
	req := &t.Request
	switch {
	case ts.Command != nil && (ts.Path != nil || ts.Content != nil):
		fail(path, "a test is a command or a file tool's write (tool, path, content), not both")
	case ts.Command != nil:
		req.Command = *ts.Command
		if req.Command == "" {
			fail(path+".command", "empty command")
		}
	case ts.Path != nil:
		if *ts.Path == "" {
			fail(path+".path", "empty path")
		}
		req.Shell = ""
		req.Paths, t.path = []string{abs(dir, *ts.Path)}, *ts.Path
		req.Changes = []rules.Change{{New: deref(ts.Content)}}
		if ts.Tool == nil {
			fail(path, "a file tool's write needs the tool (Write, Edit, create, write_file, …)")
		}
	default:
		fail(path, "a test needs a command, or a tool, path and content")
	}
	if ts.Tool != nil {
		req.Tool = *ts.Tool
	}
	if ts.Shell != nil {
		switch *ts.Shell {
		case rules.ShellBash, rules.ShellPowerShell:
			if req.Shell != "" {
				req.Shell = *ts.Shell
			}
		default:
			fail(path+".shell", "shell %q is not bash or powershell", *ts.Shell)
		}
	}
	t.Active = map[string]spec.ContextValue{}
	for _, name := range slices.Sorted(maps.Keys(ts.Active)) {
		v := ts.Active[name]
		if v == nil || v.ID == "" {
			fail(path+".active."+name, "active %s needs an id (or name)", name)
			continue
		}
		t.Active[name] = *v
	}
	t.Known = ts.Known
	for name, list := range ts.Known {
		for j, k := range list {
			if k.ID == "" {
				fail(path+".known."+name+"."+strconv.Itoa(j), "a known context needs an id")
			}
		}
	}
	if ts.When != nil {
		ok = c.facts(path+".when", ts.When, &t, dir) && ok
	}
	if req.Unattended == nil {
		req.Unattended = harness.Unattended(req.Harness, req.Mode, req.Tool)
	}
	if ts.Expect == nil {
		fail(path, "a test needs expect: {decision, command, rule, reason}")
	} else {
		for _, p := range spec.CheckExpect(path+".expect", *ts.Expect) {
			fail(p.Path, "%s", p.Msg)
		}
		t.Expect = *ts.Expect
	}
	return t, ok
}

// facts reads a test's when: the harness's facts go into the request, the clock and the
// machine's into the test.
func (c *checker) facts(path string, f *factsSchema, t *Test, dir string) bool {
	ok := true
	req := &t.Request
	if f.Harness != nil {
		if _, known := harness.Lookup(*f.Harness); !known {
			c.errorf(path+".harness", "harness %q is not one of %s", *f.Harness, harness.Names())
			ok = false
		}
		req.Harness = *f.Harness
	}
	if f.PermissionMode != nil {
		req.Mode = *f.PermissionMode
	}
	if f.Agent != nil {
		switch *f.Agent {
		case rules.AgentMain, rules.AgentSubagent:
			sub := *f.Agent == rules.AgentSubagent
			req.Subagent = &sub
		default:
			c.errorf(path+".agent", "agent %q is not main or subagent", *f.Agent)
			ok = false
		}
	}
	req.Unattended = f.Unattended
	if f.Now != nil {
		now, err := time.Parse(time.RFC3339, *f.Now)
		if err != nil {
			c.errorf(path+".now", "now %q is not an RFC 3339 time (2026-12-04T15:00:00+01:00)", *f.Now)
			ok = false
		}
		t.Now = now
	}
	t.Host = f.Host
	if f.Groups != nil {
		t.Groups = append([]string{}, (*f.Groups)...)
	}
	maps.Copy(t.Env, f.Env)
	if f.Cwd != nil {
		req.Cwd = abs(dir, *f.Cwd)
	}
	return ok
}

// abs is p taken from dir, as a test's paths are from its file's directory.
func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// String renders what a test runs, for its PASS or FAIL line.
func (t Test) String() string {
	if t.Request.Command != "" {
		return t.Request.Command
	}
	return fmt.Sprintf("%s %s", t.Request.Tool, t.path)
}
