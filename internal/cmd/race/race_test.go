package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

// TestRace runs a short race with the real kubectl (fast enough for a test; az takes a third of
// a second per call) and fails if a guarded command runs in a context its session did not
// select. The unguarded runs are logged: they show the race, but how often it hits is chance.
// It runs only with CTXGUARD_RACE=1, since it takes about half a minute.
func TestRace(t *testing.T) {
	if os.Getenv("CTXGUARD_RACE") != "1" {
		t.Skip("set CTXGUARD_RACE=1 to run the two-thread race with the real kubectl")
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is not on PATH: %v", err)
	}
	bin, err := build(testenv.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{ctxguard: bin, rounds: 6, pause: 300 * time.Millisecond, bPause: 300 * time.Millisecond, seed: 1}
	var results []result
	for _, f := range []form{oneCall, twoCalls} {
		for _, guarded := range []bool{false, true} {
			r, err := run(cfg, tools["kubectl"], f, guarded)
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, r)
			if guarded && (r.wrong > 0 || r.denied > 0 || r.asked > 0) {
				t.Errorf("%s, guarded: %d/%d wrong, %d denied, %d asked (%s; %s)", f, r.wrong, r.total, r.denied, r.asked, r.firstWrong, r.reason)
			}
		}
	}
	var b strings.Builder
	report(&b, results)
	t.Log("\n" + b.String())
}
