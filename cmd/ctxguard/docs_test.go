package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/testenv"
)

// The README and docs/*.md are checked against the binary they describe, so that a page that
// drifts from what ctxguard prints fails CI. The convention, for whoever edits them:
//
//   - Commands go in ```console blocks: a line that starts with "$ " is a command, the lines
//     after it (up to the next "$ ") are what it prints, stdout and stderr together. Every such
//     command is run, in the order of the page, by bash, in one throwaway machine per page:
//     a file system root $ROOT in which the home is /home/me (seeded with testdata/docs/home:
//     az and kubectl state), the repository /home/me/src/infra (a git work tree) is the working
//     directory of every command, the managed policy is /etc/ctxguard/policy.yaml, and a
//     ctxguard built from this module is /home/me/go/bin/ctxguard, first on PATH. $ROOT is
//     removed from what the commands print, so the page shows /home/me/… paths.
//   - A command must exit 0, unless the next command is `echo $?`, whose output is then the
//     status the first must exit with.
//   - In the expected output, a line that is only "…" stands for any number of lines, and "…"
//     inside a line for any text. A command shown with no output must print nothing.
//   - A block that cannot run here (it needs the network, a harness, a clone of the repository)
//     says so and why: ```console norun: needs the network. It is listed in the test log.
//   - A block with file=PATH in its info string (```yaml file=.ctxguard.yaml) is written to PATH,
//     relative to the repository (or ~/… in the home), before the commands after it run.
//   - Every fence names its language; sh, bash, shell and zsh fences are refused, so that no
//     command is skipped by accident of how its block was written.
//
// The first screen of the README (TestReadmeDemo) holds an excerpt of `ctxguard demo`, checked
// against the demo's real output the same way.

// docsTools are the programs besides ctxguard that the pages' commands may run; nothing else of
// the machine is on their PATH, so a page cannot depend on the CLIs installed here.
var docsTools = []string{"bash", "sh", "cat", "ls", "grep", "head", "tail", "sed", "cp", "mkdir", "rm", "env", "git"}

var built struct {
	once sync.Once
	path string
	err  error
}

// builtBinary builds ctxguard from this module, once per test binary. Where the go command
// cannot run (a Windows test binary under Wine cannot start it, a Linux program), it is the
// ctxguard that testscript.Main put on PATH: this test binary, which runs the same cli.Main.
func builtBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if _, err := exec.LookPath("go"); err != nil {
			built.path, built.err = exec.LookPath("ctxguard")
			return
		}
		dir, err := os.MkdirTemp("", "ctxguard-docs-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "ctxguard")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// machine is the throwaway machine a page's commands run in.
type machine struct {
	root, home, repo string
	bin              string // ctxguard
	env              []string
}

func newMachine(t *testing.T) *machine {
	root := testenv.TempDir(t)
	m := &machine{root: root, home: filepath.Join(root, "home", "me")}
	m.repo = filepath.Join(m.home, "src", "infra")
	for _, dir := range []string{filepath.Join(m.repo, ".git"), filepath.Join(m.home, "go", "bin"), filepath.Join(root, "bin"), filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(m.home, os.DirFS(filepath.Join("..", "..", "testdata", "docs", "home"))); err != nil {
		t.Fatal(err)
	}
	bin := builtBinary(t)
	m.bin = filepath.Join(m.home, "go", "bin", filepath.Base(bin))
	if err := os.Link(bin, m.bin); err != nil && os.Symlink(bin, m.bin) != nil {
		t.Fatal(err)
	}
	for _, tool := range docsTools {
		if runtime.GOOS == "windows" {
			break // the pages' sessions are Unix ones (unixSession); only ctxguard runs here
		}
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("the pages' commands need %s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(root, "bin", tool)); err != nil {
			t.Fatal(err)
		}
	}
	m.env = []string{
		"HOME=" + m.home, "USERPROFILE=" + m.home,
		"PATH=" + filepath.Join(m.home, "go", "bin") + string(os.PathListSeparator) + filepath.Join(root, "bin"),
		"XDG_CONFIG_HOME=" + filepath.Join(m.home, ".config"), "XDG_STATE_HOME=" + filepath.Join(m.home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(m.home, ".local", "share"), "XDG_CACHE_HOME=" + filepath.Join(m.home, ".cache"),
		"CTXGUARD_MANAGED_POLICY=" + filepath.Join(root, "etc", "ctxguard", "policy.yaml"),
		"TMPDIR=" + filepath.Join(root, "tmp"), "LANG=C.UTF-8", "NO_COLOR=1", "TERM=dumb",
		// The hook's budget is for a machine doing nothing else (see TestScript).
		"CTXGUARD_BUDGET=2s",
	}
	return m
}

// unixSession skips a test whose commands are a Unix shell session, as the pages' are (bash, in
// a machine of /home and /etc): a Windows test binary has no bash to run them. The sessions of a
// Windows user are the scripts testdata/script/windows_*.txtar.
func unixSession(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the pages show Unix shell sessions, which need bash; windows_*.txtar are the Windows user's")
	}
}

// run runs one command line with bash and returns what it printed, with the machine's root
// removed.
func (m *machine) run(line string) (string, int, error) {
	return m.output(exec.Command("bash", "-c", line))
}

// ctxguard runs ctxguard with args and stdin (nil for none), without a shell.
func (m *machine) ctxguard(stdin io.Reader, args ...string) (string, int, error) {
	cmd := exec.Command(m.bin, args...)
	cmd.Stdin = stdin
	return m.output(cmd)
}

func (m *machine) output(cmd *exec.Cmd) (string, int, error) {
	cmd.Dir, cmd.Env = m.repo, m.env
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return "", 0, err
		}
		code = ee.ExitCode()
	}
	return strings.ReplaceAll(string(out), m.root, ""), code, nil
}

// expand is where a page's path is on the machine: ~/… in the home, a relative path in the
// repository, an absolute one under the root.
func (m *machine) expand(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(m.home, rest)
	} else if !strings.HasPrefix(path, "/") {
		return filepath.Join(m.repo, path)
	}
	return filepath.Join(m.root, path)
}

// write puts a file=PATH block's content in place.
func (m *machine) write(path, content string) error {
	path = m.expand(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// block is one fenced block of a page.
type block struct {
	line  int      // of the opening fence, 1-based
	lang  string   // the first word of the info string
	info  []string // the rest of it
	lines []string // the content
}

// blocks reads a page's fenced blocks. A fence may be indented (in a list); its content loses
// that indentation.
func blocks(path string) ([]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []block
	var cur *block
	indent := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		trimmed := strings.TrimLeft(text, " ")
		if cur == nil {
			if rest, ok := strings.CutPrefix(trimmed, "```"); ok {
				fields := strings.Fields(rest)
				cur = &block{line: n}
				if len(fields) > 0 {
					cur.lang, cur.info = fields[0], fields[1:]
				}
				indent = text[:len(text)-len(trimmed)]
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.lines = append(cur.lines, strings.TrimPrefix(text, indent))
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the block is never closed", path, cur.line)
	}
	return out, sc.Err()
}

// step is a command of a console block and the output shown for it.
type step struct {
	line    int
	command string
	want    []string
}

func steps(b block) []step {
	var out []step
	for i, l := range b.lines {
		if cmd, ok := strings.CutPrefix(l, "$ "); ok {
			out = append(out, step{line: b.line + 1 + i, command: cmd})
		} else if len(out) > 0 {
			out[len(out)-1].want = append(out[len(out)-1].want, l)
		}
	}
	return out
}

// match reports whether got has the lines of want, where a line "…" matches any number of lines
// and "…" inside a line any text.
func match(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "…" {
		for i := 0; i <= len(got); i++ {
			if match(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(want[0], got[0]) && match(want[1:], got[1:])
}

func lineMatches(want, got string) bool {
	want, got = strings.TrimRight(want, " "), strings.TrimRight(got, " ")
	if !strings.Contains(want, "…") {
		return want == got
	}
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(got)
}

func outputLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// pages are the files TestDocs checks.
func pages(t *testing.T) []string {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "..", "README.md")}, docs...)
}

// TestDocs runs the commands of the README's and docs/*.md's console blocks (see the convention
// above) and compares what they print with what the page shows.
func TestDocs(t *testing.T) {
	unixSession(t)
	for _, page := range pages(t) {
		name, _ := filepath.Rel(filepath.Join("..", ".."), page)
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			bs, err := blocks(page)
			if err != nil {
				t.Fatal(err)
			}
			m := newMachine(t)
			ran := 0
			for _, b := range bs {
				where := fmt.Sprintf("%s:%d", name, b.line)
				switch b.lang {
				case "", "sh", "bash", "shell", "zsh":
					t.Errorf("%s: a ```%s block: put commands in ```console with \"$ \" lines (```console norun: REASON when they cannot run here), output in ```text", where, b.lang)
					continue
				}
				if file, ok := infoValue(b.info, "file="); ok {
					if err := m.write(file, strings.Join(b.lines, "\n")+"\n"); err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					continue
				}
				if b.lang != "console" {
					continue
				}
				info := strings.Join(b.info, " ")
				if reason, ok := strings.CutPrefix(info, "norun:"); ok {
					if reason = strings.TrimSpace(reason); reason == "" {
						t.Errorf("%s: norun without a reason: say why it cannot run here (```console norun: needs the network)", where)
					}
					t.Logf("%s: not run: %s", where, reason)
					continue
				}
				if info != "" {
					t.Errorf("%s: unknown info %q: a console block takes norun: REASON, or nothing", where, info)
					continue
				}
				ss := steps(b)
				if len(ss) == 0 {
					t.Errorf("%s: a console block without a \"$ \" command", where)
				}
				status := 0
				for i, s := range ss {
					at := fmt.Sprintf("%s:%d", name, s.line)
					if s.command == "echo $?" {
						if want := strings.Join(s.want, "\n"); want != strconv.Itoa(status) {
							t.Errorf("%s: the command before exited %d; the page shows %q", at, status, want)
						}
						continue
					}
					got, code, err := m.run(s.command)
					if err != nil {
						t.Fatalf("%s: %s: %v", at, s.command, err)
					}
					ran++
					status = code
					if code != 0 && (i+1 == len(ss) || ss[i+1].command != "echo $?") {
						t.Errorf("%s: $ %s\nexited %d; show the status with `$ echo $?` after it if that is meant. It printed:\n%s", at, s.command, code, got)
					}
					if !match(s.want, outputLines(got)) {
						t.Errorf("%s: $ %s\nthe page shows:\n%s\nit prints:\n%s", at, s.command, indent(s.want), indent(outputLines(got)))
					}
				}
			}
			t.Logf("%s: %d commands run", name, ran)
		})
	}
}

func infoValue(info []string, key string) (string, bool) {
	for _, w := range info {
		if v, ok := strings.CutPrefix(w, key); ok {
			return v, true
		}
	}
	return "", false
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "    (nothing)"
	}
	return "    " + strings.Join(lines, "\n    ")
}

// TestReadmeDemo checks the README's first screen: within its first 40 lines, a ```text block
// that starts with the demo command and shows, from its real output, a rewrite and a denied
// switch (6 to 10 lines, "…" for what it leaves out).
func TestReadmeDemo(t *testing.T) {
	const firstScreen = 40
	bs, err := blocks(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(bs, func(b block) bool { return b.lang == "text" })
	if i < 0 || bs[i].line+len(bs[i].lines)+1 > firstScreen {
		t.Fatalf("README.md: no ```text block with the demo's output in the first %d lines", firstScreen)
	}
	b := bs[i]
	const command = "$ go run ./cmd/ctxguard demo"
	if len(b.lines) == 0 || b.lines[0] != command {
		t.Fatalf("README.md:%d: the excerpt should start with %q", b.line+1, command)
	}
	excerpt := b.lines[1:]
	if n := len(excerpt); n < 6 || n > 10 {
		t.Errorf("README.md:%d: the excerpt has %d lines, want 6 to 10", b.line, n)
	}
	text := strings.Join(excerpt, "\n")
	if !regexp.MustCompile(`(?m)^  rewrite`).MatchString(text) || !regexp.MustCompile(`(?m)^  deny\n.*switch`).MatchString(text) {
		t.Errorf("README.md:%d: the excerpt should show a rewrite and a denied switch:\n%s", b.line, text)
	}
	got, code, err := newMachine(t).ctxguard(nil, "demo")
	if err != nil || code != 0 {
		t.Fatalf("ctxguard demo: exit %d, %v\n%s", code, err, got)
	}
	if want := append(append([]string{"…"}, excerpt...), "…"); !match(want, outputLines(got)) {
		t.Errorf("README.md:%d: the excerpt is not what `ctxguard demo` prints:\n%s\nit prints:\n%s", b.line, indent(excerpt), indent(outputLines(got)))
	}
}

// TestDocsMatch checks the matcher the pages are compared with.
func TestDocsMatch(t *testing.T) {
	got := []string{"a", "b 1234 c", "d", "e"}
	for _, tc := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "b 1234 c", "d", "e"}, true},
		{[]string{"a", "b … c", "…"}, true},
		{[]string{"…", "e"}, true},
		{[]string{"…", "d", "…"}, true},
		{[]string{"a", "…", "b 1234 c", "d", "e"}, true}, // "…" may stand for no line
		{[]string{"a", "b 1234 c", "d"}, false},          // a line left out without "…"
		{[]string{"a", "b … x", "…"}, false},
		{[]string{"…", "f"}, false},
		{nil, false},
	} {
		if ok := match(tc.want, got); ok != tc.ok {
			t.Errorf("match(%q) = %v, want %v", tc.want, ok, tc.ok)
		}
	}
	if !match(nil, nil) || match([]string{"x"}, nil) {
		t.Error("an empty output matches only an empty page")
	}
}

// TestHarnessTable checks that docs/harnesses.md names each hook event and matcher that
// `ctxguard install` writes (the plugin's hooks.json is kept equal to Claude Code's entry by
// TestPlugin), so that the page cannot describe a matcher the files do not have.
func TestHarnessTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "harnesses.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, s := range harness.Setups() {
		if s.Script != nil {
			continue // a file of ctxguard's own, with no entry
		}
		for _, e := range s.Entries("/home/me/go/bin/ctxguard", harness.Options{GOOS: "linux", Rewrite: true}) {
			var v struct{ Matcher string }
			if err := json.Unmarshal(e.Value, &v); err != nil {
				t.Fatalf("%s: %v", s.Harness, err)
			}
			wants := []string{"`" + e.Event + "`"}
			if v.Matcher != "" {
				wants = append(wants, "matcher `"+strings.ReplaceAll(v.Matcher, "|", `\|`)+"`")
			}
			for _, want := range wants {
				if !strings.Contains(page, want) {
					t.Errorf("docs/harnesses.md: the harness table does not say %s for %s", want, s.Harness)
				}
			}
		}
	}
}

// TestDocsLinks checks that every relative link of the README and docs/*.md leads to a file of
// the repository, and a #fragment to a heading of that page (GitHub's anchors), so that each
// section stays one click away.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]*)\)`)
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(filepath.Join("..", ".."), page)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, fragment, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %q: %v", name, m[1], err)
					continue
				}
			}
			if fragment != "" && !slices.Contains(anchors(t, file), fragment) {
				t.Errorf("%s: link %q: no heading with that anchor in %s", name, m[1], filepath.Base(file))
			}
		}
	}
}

// anchors returns the anchors GitHub gives a page's headings: lower case, spaces to dashes,
// punctuation other than - and _ dropped.
func anchors(t *testing.T, file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	var out []string
	fenced := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			fenced = !fenced
		}
		if h, ok := strings.CutPrefix(l, "#"); ok && !fenced {
			h = strings.TrimSpace(strings.TrimLeft(h, "#"))
			out = append(out, strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(h), ""), " ", "-"))
		}
	}
	return out
}

// TestReadmeBudget keeps the README a page a newcomer reads to the end (issue: the first ten
// minutes): what does not fit goes to docs/, linked from the README's "More" table.
func TestReadmeBudget(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(data); n > 15000 {
		t.Errorf("README.md is %d bytes, over its 15000-byte budget: move detail to docs/", n)
	}
}
