package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// trailcheck N PREFIX FILE… checks audit trail files: every line is one whole JSON object with an
// id (a line two hooks interleaved would not parse), no id repeats, and the commands are PREFIX0
// … PREFIX(N-1), each exactly once (a command may go on after the number, past a space). Files
// that do not exist hold no lines.
func trailcheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: trailcheck N PREFIX FILE...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	prefix := args[1]
	ids := map[string]bool{}
	seen := make([]int, n)
	for _, file := range args[2:] {
		data, err := os.ReadFile(ts.MkAbs(file))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ts.Check(err)
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			var e struct{ ID, Command string }
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.ID == "" {
				ts.Fatalf("%s:%d is not one decision: %v: %.200q", file, i+1, err, line)
			}
			if ids[e.ID] {
				ts.Fatalf("%s:%d: id %s twice", file, i+1, e.ID)
			}
			ids[e.ID] = true
			num, _, _ := strings.Cut(strings.TrimPrefix(e.Command, prefix), " ")
			k, err := strconv.Atoi(num)
			if !strings.HasPrefix(e.Command, prefix) || err != nil || k < 0 || k >= n {
				ts.Fatalf("%s:%d: command %.80q is not %s0…%s%d", file, i+1, e.Command, prefix, prefix, n-1)
			}
			seen[k]++
		}
	}
	var missing []string
	for k, c := range seen {
		if c != 1 {
			missing = append(missing, fmt.Sprintf("%s%d ×%d", prefix, k, c))
		}
	}
	if len(missing) > 0 {
		ts.Fatalf("not exactly once: %s", strings.Join(missing, ", "))
	}
	ts.Logf("%d decisions, each once, in %s", n, strings.Join(args[2:], " "))
}
