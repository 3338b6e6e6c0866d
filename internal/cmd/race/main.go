package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	if err := mainErr(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "race: %v\n", err)
		os.Exit(1)
	}
}

func mainErr(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("race", flag.ContinueOnError)
	clis := fs.String("cli", "az,kubectl", "the CLIs to race, comma-separated (az, kubectl)")
	forms := fs.String("form", "one,two", "the forms to run: one (switch and command in one tool call), two (two tool calls)")
	rounds := fs.Int("rounds", 36, "thread A's rounds per CLI, form and mode")
	pause := fs.Duration("pause", 400*time.Millisecond, "thread A's pause between its switch and its command")
	bPause := fs.Duration("b-pause", time.Second, "the longest pause thread B takes between its switches (each pause is random, up to this)")
	seed := fs.Uint64("seed", 1, "the seed of B's pauses")
	bin := fs.String("ctxguard", "", "the ctxguard binary (default: build it from this module)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := config{ctxguard: *bin, rounds: *rounds, pause: *pause, bPause: *bPause, seed: *seed}
	if cfg.ctxguard == "" {
		dir, err := os.MkdirTemp("", "ctxguard-race-bin-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if cfg.ctxguard, err = build(dir); err != nil {
			return err
		}
	}
	var ts []tool
	for _, name := range strings.Split(*clis, ",") {
		t, ok := tools[name]
		if !ok {
			return fmt.Errorf("unknown CLI %q (known: az, kubectl)", name)
		}
		if _, err := exec.LookPath(t.name); err != nil {
			return fmt.Errorf("%s is not on PATH: %w", t.name, err)
		}
		ts = append(ts, t)
	}
	var fs2 []form
	for _, f := range strings.Split(*forms, ",") {
		switch f {
		case "one":
			fs2 = append(fs2, oneCall)
		case "two":
			fs2 = append(fs2, twoCalls)
		default:
			return fmt.Errorf("unknown form %q (known: one, two)", f)
		}
	}
	fmt.Fprintf(w, "two threads, %d rounds of thread A each, A pauses %v between switch and command, B pauses up to %v between switches\n\n", cfg.rounds, cfg.pause, cfg.bPause)
	var results []result
	for _, t := range ts {
		for _, f := range fs2 {
			for _, guarded := range []bool{false, true} {
				r, err := run(cfg, t, f, guarded)
				if err != nil {
					return err
				}
				results = append(results, r)
			}
		}
	}
	report(w, results)
	return nil
}

// report prints the table, then what the first wrong round ran and the last non-allow answer.
func report(w io.Writer, results []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLI\tform\tmode\twrong/total\tdenied\tasked\tfailed\ttime")
	for _, r := range results {
		mode := "unguarded"
		if r.guarded {
			mode = "guarded"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%.0fs\n", r.tool, r.form, mode, r.wrong, r.total, r.denied, r.asked, r.failed, r.elapsed.Seconds())
	}
	tw.Flush()
	for _, r := range results {
		if r.firstWrong != "" {
			fmt.Fprintf(w, "\n%s, %s, guarded=%t: first wrong round: %s", r.tool, r.form, r.guarded, r.firstWrong)
		}
		if r.firstFailed != "" {
			fmt.Fprintf(w, "\n%s, %s, guarded=%t: first failed round: %s", r.tool, r.form, r.guarded, r.firstFailed)
		}
		if r.reason != "" {
			fmt.Fprintf(w, "\n%s, %s, guarded=%t: last ctxguard reason: %s", r.tool, r.form, r.guarded, r.reason)
		}
	}
	fmt.Fprintln(w)
}
