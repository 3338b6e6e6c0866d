// Command bench times `ctxguard hook` as a whole process against the floor (a Go binary that
// only reads its stdin) on the same payloads, interleaving the runs (each round in a new order)
// so that a noisy machine disturbs all of them alike, and prints medians and their ratio to the
// floor. A second floor links every third-party package ctxguard links, so that what the
// libraries' start-up costs is told apart from what ctxguard's own code does.
//
//	go run ./internal/cmd/bench [-runs N] [-against BINARY] [-instructions]
//
// -against times another ctxguard binary (an older build) on the same cases in the same run,
// each case's line for it following the line for this build. -instructions counts each case's
// instructions once under valgrind's callgrind instead, which a loaded machine does not disturb.
//
// The machine is internal/guard's testdata: a policy for all six built-in providers and each
// one's state, as the real CLIs write it (and the same policy with rules that use every
// condition). (hyperfine, from Debian's packages, can time the same
// binaries; it must then run them through a shell to feed stdin, and subtract the shell.)
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 300, "runs of each command")
	against := flag.String("against", "", "another ctxguard binary to time on the same cases")
	instructions := flag.Bool("instructions", false, "count each case's instructions once under valgrind's callgrind instead of timing it")
	flag.Parse()
	log.SetFlags(0)
	tmp, err := os.MkdirTemp("", "ctxguard-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	build := func(name, dir string) string {
		out := filepath.Join(tmp, name)
		// Static, as the README installs it: pflag links the net package, and with cgo on that
		// makes a dynamically linked binary whose loader costs ~0.7 ms at every start.
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("go build %s: %v\n%s", dir, err, b)
		}
		return out
	}
	hook := build("ctxguard", "./cmd/ctxguard")
	floor := build("floor", "./internal/cmd/bench/floor")
	libraries := build("libraries", librariesFloor(tmp))
	machine, err := filepath.Abs(filepath.Join("internal", "guard", "testdata", "machine"))
	if err != nil {
		log.Fatal(err)
	}
	// Written as the harnesses' JSON.stringify writes it: & < > as they are, not as \u0026.
	payloadIn := func(dir, line string) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{
			"session_id": "bench", "cwd": filepath.Join(machine, dir), "permission_mode": "default",
			"hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]any{"command": line, "description": "bench", "timeout": 120000},
		})
		return b.Bytes()
	}
	payload := func(line string) []byte { return payloadIn("repo", line) }
	// A guarded call of each built-in provider (the first six, then those added later).
	const seven = "az group list && kubectl get pods && gcloud compute instances list && terraform plan && gh pr list && pac solution list && echo done"
	const every = seven + " && aws s3 ls && docker ps && helm list && oc get pods && doctl compute droplet list && databricks clusters list && azd deploy && pulumi preview && firebase deploy"
	many := make([]string, 1000)
	for i := range many {
		many[i] = "kubectl get pods -n team-a"
	}
	// The audit trail case's managed policy turns the trail on, and nothing else.
	trail := filepath.Join(tmp, "audit.yaml")
	if err := os.WriteFile(trail, []byte("audit: {path: "+filepath.Join(tmp, "audit.jsonl")+"}\n"), 0o600); err != nil {
		log.Fatal(err)
	}
	cases := []benchCase{
		{"floor (reads stdin, exits)", []string{floor}, payload("az group list -o table"), nil},
		{"floor with ctxguard's libraries", []string{libraries}, payload("az group list -o table"), nil},
		{"ctxguard version (start-up alone)", []string{hook, "version"}, payload("az group list -o table"), nil},
		{"hook: one az call, rewritten", []string{hook, "hook", "--harness", "claude"}, payload("az group list -o table"), nil},
		{"hook: the same, audit trail on", []string{hook, "hook", "--harness", "claude"}, payload("az group list -o table"), []string{"CTXGUARD_MANAGED_POLICY=" + trail}},
		{"hook: no guarded call", []string{hook, "hook", "--harness", "claude"}, payload("go test ./..."), nil},
		{"hook: 7 calls, all six CLIs", []string{hook, "hook", "--harness", "claude"}, payload(seven), nil},
		{"hook: 16 calls, every built-in provider", []string{hook, "hook", "--harness", "claude"}, payload(every), nil},
		{"hook: 100 kubectl calls", []string{hook, "hook", "--harness", "claude"}, payload(strings.Join(many[:100], " && ")), nil},
		{"hook: 1000 kubectl calls", []string{hook, "hook", "--harness", "claude"}, payload(strings.Join(many, " && ")), nil},
		// A policy whose rules use every condition (testdata/machine/conditions): the call meets
		// one that evaluates all of them, host name and group database included.
		{"hook: one az call, every condition", []string{hook, "hook", "--harness", "claude"}, payloadIn("conditions", "az group list -o table"), nil},
		{"hook: 7 calls, every condition", []string{hook, "hook", "--harness", "claude"}, payloadIn("conditions", "az group list && kubectl apply -f k8s && gcloud compute instances list && terraform plan && gh pr list && pac solution list && echo done"), nil},
	}
	if *against != "" {
		var both []benchCase
		for _, c := range cases {
			both = append(both, c)
			if c.bin[0] == hook {
				c.name, c.bin = c.name+" (against)", append([]string{*against}, c.bin[1:]...)
				both = append(both, c)
			}
		}
		cases = both
	}
	env := append(os.Environ(),
		"HOME="+filepath.Join(machine, "home"), "XDG_CONFIG_HOME="+filepath.Join(machine, "home", ".config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "CTXGUARD_MANAGED_POLICY="+filepath.Join(tmp, "none.yaml"),
		"KUBECONFIG=", "AZURE_CONFIG_DIR=", "CLOUDSDK_CONFIG=", "GH_CONFIG_DIR=", "TF_WORKSPACE=")
	if *instructions {
		count(cases, env)
		return
	}
	times := make([][]time.Duration, len(cases))
	for r := 0; r < *runs+10; r++ {
		// Each round runs the cases in a new order: a run that follows a heavy one (the
		// thousand-call line, whose exit frees ten megabytes) starts slower, and a fixed order
		// would put that on one case.
		for _, i := range rand.Perm(len(cases)) {
			c := cases[i]
			cmd := exec.Command(c.bin[0], c.bin[1:]...)
			cmd.Env, cmd.Stdin = append(env, c.env...), bytes.NewReader(c.input)
			start := time.Now()
			out, err := cmd.Output()
			d := time.Since(start)
			if err != nil {
				log.Fatalf("%s: %v", c.name, err)
			}
			if r == 0 && strings.HasPrefix(c.name, "hook:") && !bytes.Contains(out, []byte("hookSpecificOutput")) && !strings.HasPrefix(c.name, "hook: no guarded call") {
				log.Fatalf("%s: unexpected answer %q", c.name, out)
			}
			if r >= 10 { // the first runs warm the page cache
				times[i] = append(times[i], d)
			}
		}
	}
	base := median(times[0])
	fmt.Printf("| command | median | p90 | median / floor |\n|---|---:|---:|---:|\n")
	for i, c := range cases {
		m := median(times[i])
		fmt.Printf("| %s | %.2f ms | %.2f ms | %.2f |\n", c.name, ms(m), ms(pct(times[i], 0.9)), float64(m)/float64(base))
	}
	fmt.Printf("\n%d interleaved runs each, %s, %d CPUs.\n", *runs, time.Now().Format("2006-01-02"), nproc())
}

// count runs each case under callgrind and prints the instructions it executed, which depend
// little on the machine's load: the least of three runs, since the runtime's threads still vary
// it by about 1 %. The deadline is lifted (valgrind runs a program some fifty times slower) and
// the runtime kept on one thread without preemption signals.
func count(cases []benchCase, env []string) {
	fmt.Printf("| command | instructions |\n|---|---:|\n")
	for _, c := range cases {
		// A first run writes the policy cache, as every run after the first finds it.
		warm := exec.Command(c.bin[0], c.bin[1:]...)
		warm.Env, warm.Stdin = append(env, c.env...), bytes.NewReader(c.input)
		if err := warm.Run(); err != nil {
			log.Fatalf("%s: %v", c.name, err)
		}
		least := -1
		for range 3 {
			cmd := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=/dev/null"}, c.bin...)...)
			cmd.Env = append(append(env, c.env...), "CTXGUARD_BUDGET=10s", "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1")
			cmd.Stdin = bytes.NewReader(c.input)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				log.Fatalf("%s: %v\n%s", c.name, err, stderr.Bytes())
			}
			if bytes.Contains(out, []byte("too-expensive")) {
				log.Fatalf("%s: the deadline fired under valgrind: %s", c.name, out)
			}
			_, n, _ := strings.Cut(stderr.String(), "Collected : ")
			n, _, _ = strings.Cut(n, "\n")
			v, err := strconv.Atoi(n)
			if err != nil {
				log.Fatalf("%s: no count in valgrind's output:\n%s", c.name, stderr.Bytes())
			}
			if least < 0 || v < least {
				least = v
			}
		}
		fmt.Printf("| %s | %.2f M |\n", c.name, float64(least)/1e6)
	}
}

// librariesFloor writes, under tmp, the floor with every third-party package that ctxguard
// links (each initialised as in ctxguard: yaml.v3's and mvdan.cc/sh's regular expressions,
// pflag's net package, …) and returns its folder: what no hook that uses these libraries can
// start below. It is a module of its own, with ctxguard's go.mod requirements, so that no
// package of the repository imports the libraries beside their one owner each.
func librariesFloor(tmp string) string {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./cmd/ctxguard").Output()
	if err != nil {
		log.Fatalf("go list: %v", err)
	}
	own, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		log.Fatalf("go list -m: %v", err)
	}
	var imports strings.Builder
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, strings.TrimSpace(string(own))) && !strings.Contains(p+"/", "/internal/") {
			fmt.Fprintf(&imports, "\t_ %q\n", p)
		}
	}
	dir := filepath.Join(tmp, "libraries-src")
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		log.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		log.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(mod), "\n")
	files := map[string]string{
		"go.mod":  "module libraries\n" + rest,
		"go.sum":  string(sum),
		"main.go": "package main\n\nimport (\n\t\"io\"\n\t\"os\"\n\n" + imports.String() + ")\n\nfunc main() { io.Copy(io.Discard, os.Stdin) }\n",
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return dir
}

type benchCase struct {
	name  string
	bin   []string
	input []byte
	env   []string // set on top of env
}

func median(d []time.Duration) time.Duration { return pct(d, 0.5) }

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func nproc() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, bytes.Count(b, []byte("processor\t:")))
}
