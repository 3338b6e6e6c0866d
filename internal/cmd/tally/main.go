// Command tally reads the event stream of `go test -json` and prints what a person wants from
// ./test.sh. As a filter it prints one line per package as it finishes, with the output of every
// failing test, and keeps the plain `go test` output in a log file and the events in a file:
//
//	go test -json ./... | tally -log test.log -events tests.json
//
// With -summary it reads such event files back and prints one line per distinct skip reason and
// the final count:
//
//	tally -summary -check "go vet=ok" tests.json fuzz-1.json …
//
// Tests are counted as leaves: a test that ran subtests is not counted itself, each subtest is; a
// package that failed with no failing test (a build error, a panic in TestMain) counts as one
// failure. A skipped test's reason is its first log line: what t.Skip printed for a test that
// skips before it logs anything, and what a testscript `skip` printed for a script. The exit code
// is 1 when anything failed, or when there was no test at all.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// event is one line of `go test -json` (go doc test2json).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output events
	FailedBuild string // a package that did not build: the ImportPath of its build output
}

type test struct {
	action string // pass, fail, skip (or run, for one that never finished)
	output []string
}

type pkg struct {
	tests   map[string]*test
	order   []string
	action  string
	elapsed float64
	output  []string // the package's own output: build errors, a panic outside a test
}

// counts are the leaf tests by outcome, the packages that failed as a whole, and the skipped
// tests by reason.
type counts struct {
	packages, fuzzed, passed, failed, skipped int
	skips                                     map[string][]string // reason → tests
	reasons                                   []string            // in the order first seen
}

const modulePrefix = "github.com/ctxguard/ctxguard/"

func main() {
	logPath := flag.String("log", "", "append the plain `go test` output to this file")
	eventsPath := flag.String("events", "", "write the events to this file, for -summary")
	summary := flag.Bool("summary", false, "read the event files named as arguments and print the skips and the count")
	var checks []string
	flag.Func("check", "with -summary, one more check as NAME=ok or NAME=fail (repeatable)", func(s string) error {
		checks = append(checks, s)
		return nil
	})
	flag.Parse()
	var c counts
	if *summary {
		c = summarize(os.Stdout, flag.Args(), checks)
	} else {
		var err error
		c, err = filter(os.Stdin, os.Stdout, *logPath, *eventsPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tally:", err)
			os.Exit(1)
		}
	}
	if c.failed > 0 || c.passed+c.skipped == 0 {
		os.Exit(1)
	}
}

func filter(in io.Reader, out io.Writer, logPath, eventsPath string) (counts, error) {
	var log, events io.Writer = io.Discard, io.Discard
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return counts{}, err
		}
		defer f.Close()
		log = f
	}
	if eventsPath != "" {
		f, err := os.Create(eventsPath)
		if err != nil {
			return counts{}, err
		}
		defer f.Close()
		events = f
	}
	return run(io.TeeReader(in, events), out, log), nil
}

// summarize reads each event file as the stream it was, and prints the skip reasons and the
// total, with the extra checks (NAME=ok|fail) counted as one test each.
func summarize(out io.Writer, files, checks []string) counts {
	c := counts{skips: map[string][]string{}}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(out, "  FAIL  %v\n", err)
			c.failed++
			continue
		}
		c.add(run(f, io.Discard, io.Discard))
		f.Close()
	}
	var names []string
	for _, check := range checks {
		name, result, _ := strings.Cut(check, "=")
		names = append(names, name)
		if result == "ok" {
			c.passed++
		} else {
			c.failed++
			fmt.Fprintf(out, "  FAIL  %s\n", name)
		}
	}
	for _, r := range c.reasons {
		tests := c.skips[r]
		for i, t := range tests {
			tests[i] = strings.TrimPrefix(t, "TestScript/")
		}
		fmt.Fprintf(out, "  skip  %s — %s\n", r, strings.Join(tests, ", "))
	}
	names = append(names, fmt.Sprintf("%d packages", c.packages))
	if c.fuzzed > 0 {
		names = append(names, fmt.Sprintf("%d fuzz targets", c.fuzzed))
	}
	fmt.Fprintf(out, "%d passed, %d failed, %d skipped (%s)\n", c.passed, c.failed, c.skipped, strings.Join(names, ", "))
	return c
}

// run reads the stream, prints progress to out as packages finish, and returns the counts.
func run(in io.Reader, out, log io.Writer) counts {
	pkgs := map[string]*pkg{}
	get := func(name string) *pkg {
		p := pkgs[name]
		if p == nil {
			p = &pkg{tests: map[string]*test{}}
			pkgs[name] = p
		}
		return p
	}
	built := map[string][]string{} // build output by import path
	c := counts{skips: map[string][]string{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event: go test's own complaint (a bad flag, a missing package) on stderr
			// folded into the stream. Keep it visible.
			fmt.Fprintln(out, sc.Text())
			fmt.Fprintln(log, sc.Text())
			continue
		}
		if e.Action == "build-output" {
			built[e.ImportPath] = append(built[e.ImportPath], e.Output)
			io.WriteString(log, e.Output)
			continue
		}
		p := get(e.Package)
		if e.Output != "" {
			io.WriteString(log, e.Output)
		}
		if e.Test == "" {
			switch e.Action {
			case "output":
				p.output = append(p.output, e.Output)
			case "pass", "fail", "skip":
				p.action, p.elapsed = e.Action, e.Elapsed
				p.output = append(built[e.FailedBuild], p.output...)
				c.add(finish(out, strings.TrimPrefix(e.Package, modulePrefix), p))
			}
			continue
		}
		t := p.tests[e.Test]
		if t == nil {
			t = &test{action: "run"}
			p.tests[e.Test] = t
			p.order = append(p.order, e.Test)
		}
		switch e.Action {
		case "output":
			t.output = append(t.output, e.Output)
		case "pass", "fail", "skip":
			t.action = e.Action
		}
	}
	// Packages whose stream ended without a result (go test was killed) failed.
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		if p := pkgs[name]; p.action == "" && (len(p.tests) > 0 || len(p.output) > 0) {
			p.action = "fail"
			c.add(finish(out, strings.TrimPrefix(name, modulePrefix), p))
		}
	}
	return c
}

func (c *counts) add(o counts) {
	c.passed += o.passed
	c.failed += o.failed
	c.skipped += o.skipped
	c.packages += o.packages
	c.fuzzed += o.fuzzed
	for _, r := range o.reasons {
		if _, ok := c.skips[r]; !ok {
			c.reasons = append(c.reasons, r)
		}
		c.skips[r] = append(c.skips[r], o.skips[r]...)
	}
}

var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: (.*)$`)

// finish prints one finished package: a line with its result and counts, and for a failure the
// output of each failing test (or the package's own output when no test failed: a build error,
// a panic, a TestMain that exited).
func finish(out io.Writer, name string, p *pkg) counts {
	c := counts{skips: map[string][]string{}}
	for _, id := range p.order {
		if slices.ContainsFunc(p.order, func(o string) bool { return strings.HasPrefix(o, id+"/") }) {
			continue // a parent: its subtests are counted
		}
		t := p.tests[id]
		switch t.action {
		case "pass":
			c.passed++
		case "skip":
			c.skipped++
			reason := "(no reason given)"
			for _, l := range t.output {
				if m := logLine.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil {
					reason = m[1]
					break
				}
			}
			if _, ok := c.skips[reason]; !ok {
				c.reasons = append(c.reasons, reason)
			}
			c.skips[reason] = append(c.skips[reason], id)
		default: // fail, or started and never finished
			c.failed++
		}
	}
	if p.action == "skip" && len(p.tests) == 0 {
		return c // no test files
	}
	// A run of one fuzz target (go test -fuzz) is reported as that, not as another package run.
	if len(p.order) == 1 && strings.HasPrefix(p.order[0], "Fuzz") {
		c.fuzzed = 1
	} else {
		c.packages = 1
	}
	took := fmt.Sprintf("%.1fs", p.elapsed)
	switch {
	case p.action == "fail":
		if c.failed == 0 {
			fmt.Fprintf(out, "  FAIL  %s (%s): the package failed outside its tests\n", name, took)
		} else {
			fmt.Fprintf(out, "  FAIL  %s (%s): %d passed, %d failed\n", name, took, c.passed, c.failed)
		}
		shown := false
		for _, id := range p.order {
			if t := p.tests[id]; t.action == "fail" || t.action == "run" {
				if slices.ContainsFunc(p.order, func(o string) bool { return strings.HasPrefix(o, id+"/") && p.tests[o].action == "fail" }) {
					continue // the failing subtest says why
				}
				printIndented(out, t.output)
				shown = true
			}
		}
		if !shown {
			printIndented(out, p.output)
		}
		if c.failed == 0 {
			c.failed = 1 // the package itself
		}
	default:
		skipped := ""
		if c.skipped > 0 {
			skipped = fmt.Sprintf(", %d skipped", c.skipped)
		}
		fmt.Fprintf(out, "  ok    %s (%s): %d passed%s\n", name, took, c.passed, skipped)
	}
	return c
}

// printIndented prints a test's output as go test would, at most 80 lines of it: the log file has
// the rest.
func printIndented(out io.Writer, lines []string) {
	const max = 80
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(out, "        … %d more lines in the log\n", len(lines)-max)
			return
		}
		fmt.Fprint(out, "      ", l)
		if !strings.HasSuffix(l, "\n") {
			fmt.Fprintln(out)
		}
	}
}
