package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata/sample.jsonl is what `go test -json ./...` printed for a module with a passing package
// (a table, two skips with one reason), a failing subtest, a package that does not build, and a
// package without tests.
func TestFilter(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, log bytes.Buffer
	c := run(f, &out, &log)
	want := `  FAIL  example.com/sample/bad (0.0s): 2 passed, 1 failed
      === RUN   TestTable/wrong
          bad_test.go:8: got 1, want 2
      --- FAIL: TestTable/wrong (0.00s)
  FAIL  example.com/sample/broken (0.0s): the package failed outside its tests
      # example.com/sample/broken [example.com/sample/broken.test]
      broken/broken_test.go:5:28: undefined: undefined
      FAIL	example.com/sample/broken [build failed]
  ok    example.com/sample/good (0.0s): 3 passed, 2 skipped
`
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	// Leaves only: good has TestA, TestTable/one, TestTable/two; bad has TestOK and
	// TestTable/fine. broken counts as one failure.
	if c.passed != 5 || c.failed != 2 || c.skipped != 2 || c.packages != 3 {
		t.Errorf("counts %+v, want 5 passed, 2 failed, 2 skipped, 3 packages", c)
	}
	for _, line := range []string{"--- FAIL: TestTable/wrong", "undefined: undefined", "ok  \texample.com/sample/good"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log lacks %q:\n%s", line, log.String())
		}
	}
}

func TestSummary(t *testing.T) {
	var out bytes.Buffer
	c := summarize(&out, []string{filepath.Join("testdata", "sample.jsonl")}, []string{"go vet=ok", "lint=fail"})
	want := `  FAIL  lint
  skip  needs the network — TestSkipped, TestSkippedToo
6 passed, 3 failed, 2 skipped (go vet, lint, 3 packages)
`
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if c.failed != 3 {
		t.Errorf("failed %d, want 3", c.failed)
	}
}

// A fuzz run counts as a fuzz target, not a package.
func TestFuzzRun(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"FuzzParse"}
{"Action":"output","Package":"p","Test":"FuzzParse","Output":"fuzz: elapsed: 3s, execs: 1000\n"}
{"Action":"pass","Package":"p","Test":"FuzzParse"}
{"Action":"pass","Package":"p","Elapsed":3.1}
`
	c := run(strings.NewReader(in), &bytes.Buffer{}, &bytes.Buffer{})
	if c.fuzzed != 1 || c.packages != 0 || c.passed != 1 {
		t.Errorf("counts %+v, want one fuzz target that passed", c)
	}
}

// A stream cut short (go test killed) leaves a package without a result: that is a failure, and
// what it printed is shown.
func TestCutShort(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}
`
	var out bytes.Buffer
	c := run(strings.NewReader(in), &out, &bytes.Buffer{})
	if c.failed != 1 || !strings.Contains(out.String(), "FAIL  p") || !strings.Contains(out.String(), "=== RUN   TestHang") {
		t.Errorf("counts %+v, output:\n%s", c, out.String())
	}
}
