package audit

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

// The log shippers' configurations in docs/audit.md are the files in testdata/shipping, word for
// word; the OpenTelemetry Collector's is run (TestShipOtelcol). Fluent Bit and Vector have no
// package that installs here (Debian has neither; they are C and Rust, on no registry this
// project reaches), so their files are checked against the keys their references document.
const shipping = "../../testdata/shipping"

// defaultTrail is where the configurations read the trail: the default for a user "me".
var defaultTrail = paths.Env{OS: "linux", Home: "/home/me"}.AuditLog()

func TestShippingConfigsInDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/audit.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fluent-bit.yaml", "otelcol.yaml", "vector.yaml"} {
		data, err := os.ReadFile(filepath.Join(shipping, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+string(data)+"```\n") {
			t.Errorf("docs/audit.md does not show testdata/shipping/%s as it is", name)
		}
		if !strings.Contains(string(data), defaultTrail) {
			t.Errorf("%s does not read %s", name, defaultTrail)
		}
	}
}

// TestFluentBitConfig checks the Fluent Bit file against the keys of its YAML configuration
// (https://docs.fluentbit.io/manual/administration/configuring-fluent-bit/yaml): the tail input
// on the trail, parsed as JSON with the trail's time, and an output.
func TestFluentBitConfig(t *testing.T) {
	type plugin struct {
		Name         string `yaml:"name"`
		Tag          string `yaml:"tag"`
		Path         string `yaml:"path"`
		Parser       string `yaml:"parser"`
		ReadFromHead bool   `yaml:"read_from_head"`
		DB           string `yaml:"db"`
		Match        string `yaml:"match"`
		Format       string `yaml:"format"`
	}
	var c struct {
		Service struct {
			Flush int `yaml:"flush"`
		} `yaml:"service"`
		Parsers []struct {
			Name       string `yaml:"name"`
			Format     string `yaml:"format"`
			TimeKey    string `yaml:"time_key"`
			TimeFormat string `yaml:"time_format"`
			TimeKeep   string `yaml:"time_keep"`
		} `yaml:"parsers"`
		Pipeline struct {
			Inputs  []plugin `yaml:"inputs"`
			Outputs []plugin `yaml:"outputs"`
		} `yaml:"pipeline"`
	}
	decode(t, "fluent-bit.yaml", &c)
	in := c.Pipeline.Inputs
	if len(in) != 1 || in[0].Name != "tail" || in[0].Path != defaultTrail || !in[0].ReadFromHead || in[0].DB == "" {
		t.Errorf("input: %+v; want tail on %s from the head, with a db", in, defaultTrail)
	}
	if len(c.Parsers) != 1 || c.Parsers[0].Name != in[0].Parser || c.Parsers[0].Format != "json" || c.Parsers[0].TimeKey != "time" {
		t.Errorf("parser: %+v; want the input's, json, with the time key", c.Parsers)
	}
	// The time format must read what the trail writes.
	if got, want := c.Parsers[0].TimeFormat, "%Y-%m-%dT%H:%M:%S.%L%z"; got != want {
		t.Errorf("time_format %q, want %q", got, want)
	}
	if out := c.Pipeline.Outputs; len(out) != 1 || !strings.HasPrefix(in[0].Tag, strings.TrimSuffix(out[0].Match, "*")) {
		t.Errorf("output %+v does not match the input's tag %q", out, in[0].Tag)
	}
}

// TestVectorConfig checks the Vector file against the keys of its reference
// (https://vector.dev/docs/reference/configuration/): a file source on the trail and its
// rotated file, a remap that parses each line as JSON, and a sink fed by it.
func TestVectorConfig(t *testing.T) {
	var c struct {
		Sources map[string]struct {
			Type     string   `yaml:"type"`
			Include  []string `yaml:"include"`
			ReadFrom string   `yaml:"read_from"`
		} `yaml:"sources"`
		Transforms map[string]struct {
			Type   string   `yaml:"type"`
			Inputs []string `yaml:"inputs"`
			Source string   `yaml:"source"`
		} `yaml:"transforms"`
		Sinks map[string]struct {
			Type     string   `yaml:"type"`
			Inputs   []string `yaml:"inputs"`
			Encoding struct {
				Codec string `yaml:"codec"`
			} `yaml:"encoding"`
		} `yaml:"sinks"`
	}
	decode(t, "vector.yaml", &c)
	src, ok := c.Sources["ctxguard_audit"]
	if !ok || src.Type != "file" || len(src.Include) != 2 || src.Include[0] != defaultTrail || src.Include[1] != defaultTrail+".1" || src.ReadFrom != "beginning" {
		t.Errorf("source: %+v; want a file source on the trail and its rotated file, from the beginning", c.Sources)
	}
	tr, ok := c.Transforms["ctxguard_decisions"]
	if !ok || tr.Type != "remap" || len(tr.Inputs) != 1 || tr.Inputs[0] != "ctxguard_audit" || !strings.Contains(tr.Source, "parse_json!(string!(.message))") {
		t.Errorf("transform: %+v; want a remap of the source that parses the line", c.Transforms)
	}
	for name, s := range c.Sinks {
		if len(s.Inputs) != 1 || s.Inputs[0] != "ctxguard_decisions" {
			t.Errorf("sink %s: inputs %v, want the transform", name, s.Inputs)
		}
	}
}

func decode(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(shipping, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := codec.DecodeStrict(data, name, v); err != nil {
		t.Fatal(err)
	}
}

// TestShipOtelcol runs the OpenTelemetry Collector on the configuration of docs/audit.md (its
// path pointed at a trail of the test's) while the trail is written and rotated, and checks that
// every decision comes out once, its fields parsed. The collector is built from
// testdata/shipping/otelcol (the filelog receiver and the debug exporter from the Go module
// proxy: some 250 modules and minutes of compiling), so the test runs only when asked:
// CTXGUARD_SHIPPING=1 (CI sets it), or CTXGUARD_OTELCOL naming a collector already built.
func TestShipOtelcol(t *testing.T) {
	bin := os.Getenv("CTXGUARD_OTELCOL")
	if bin == "" && os.Getenv("CTXGUARD_SHIPPING") != "1" {
		t.Skip("CTXGUARD_SHIPPING=1 builds the OpenTelemetry Collector of testdata/shipping/otelcol and ships a trail with it")
	}
	dir := testenv.TempDir(t)
	if bin == "" {
		bin = filepath.Join(dir, "otelcol")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = filepath.Join(shipping, "otelcol")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build the collector: %v\n%s", err, out)
		}
	}
	l := Log{Path: filepath.Join(dir, "state", "audit.jsonl")}
	conf, err := os.ReadFile(filepath.Join(shipping, "otelcol.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "otelcol.yaml")
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(string(conf), defaultTrail, l.Path)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := redactor(t)
	write := func(i int) string {
		e := entry(i)
		e.ID = NewID()
		e.Command = fmt.Sprintf("az login -u app -p S3cret%d && az group delete -n rg-%d", i, i)
		e.Decision, e.Rule = "deny", "az.destructive.group-delete"
		r.Entry(e)
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, write(i))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config", cfg)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	seen := collect(out)

	seen.wait(t, ids)
	// Rotate: the next line takes the file past its limit.
	fi, err := os.Stat(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	l.MaxSize = fi.Size() + 10
	for i := 3; i < 5; i++ {
		ids = append(ids, write(i))
	}
	if _, err := os.Stat(l.Old()); err != nil {
		t.Fatalf("the trail did not rotate: %v", err)
	}
	seen.wait(t, ids)
	time.Sleep(time.Second) // a decision read twice would show up by now
	seen.mu.Lock()
	defer seen.mu.Unlock()
	for _, id := range ids {
		if seen.ids[id] != 1 {
			t.Errorf("decision %s shipped %d times, want once", id, seen.ids[id])
		}
	}
	for _, want := range []string{"-> decision: Str(deny)", "-> rule: Str(az.destructive.group-delete)", "-p [REDACTED] &&"} {
		if !strings.Contains(seen.text.String(), want) {
			t.Errorf("the collector's output has no %q", want)
		}
	}
	if strings.Contains(seen.text.String(), "S3cret") {
		t.Error("a secret was shipped")
	}
}

// shipped is what the collector printed: every line, and how often each decision's id was
// parsed out as an attribute.
type shipped struct {
	mu   sync.Mutex
	ids  map[string]int
	text strings.Builder
}

var idAttr = regexp.MustCompile(`-> id: Str\(([a-z2-7]{12})\)`)

func collect(r interface{ Read([]byte) (int, error) }) *shipped {
	s := &shipped{ids: map[string]int{}}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.text.WriteString(sc.Text() + "\n")
			if m := idAttr.FindStringSubmatch(sc.Text()); m != nil {
				s.ids[m[1]]++
			}
			s.mu.Unlock()
		}
	}()
	return s
}

// wait waits until every id has been shipped.
func (s *shipped) wait(t *testing.T, ids []string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		missing := 0
		for _, id := range ids {
			if s.ids[id] == 0 {
				missing++
			}
		}
		s.mu.Unlock()
		if missing == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("not every decision was shipped within a minute; the collector printed:\n%s", s.text.String())
}
