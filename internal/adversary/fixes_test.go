//go:build unix

package adversary

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/internal/suite"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/rules"
)

// builtins are the shell commands a fix may run besides the guarded CLIs: moving to the
// directory the call ran in, and bash's env wrapper.
var builtins = map[string][]string{
	rules.ShellBash:       {"cd", "pushd", "env"},
	rules.ShellPowerShell: {"cd", "set-location", "sl", "chdir", "push-location", "pushd"},
}

// offered is one command a reason offered, and what it answered; decide decides a line where
// and as that line was decided.
type offered struct {
	where, dialect, line, fix string
	decide                    func(line string) []rules.CallTrace
}

// TestFixes collects every command that ctxguard's reasons offer to run instead (a trace's
// fixes) across the corpus (the adversarial families and the benign lines, each in its case's
// machine, in its own shell and, where the line also parses in the other, in that one too) and
// across every built-in provider's examples (in both shells the same way), and checks each: it
// parses in the shell of the line it answers; it runs where the line's calls did (after their
// `cd`); every command it runs is a shell builtin that
// moves to a directory, or one of the line's own calls (the same CLI and subcommand), or a
// switch, as ctxguard reads the fix where the line was decided (not `kubectl kubectx dev`); and
// one for a PowerShell line has no && or || (Windows PowerShell 5.1 has neither) and no
// `VAR=value cmd` (no PowerShell has it: such a word is a command name there).
func TestFixes(t *testing.T) {
	var got []offered
	got = append(got, corpusFixes(t)...)
	got = append(got, exampleFixes(t)...)
	per := map[string]int{}
	for _, o := range got {
		per[o.dialect]++
		if problem := checkFix(o); problem != "" {
			t.Errorf("%s (%s): %s\nline: %s\nfix:  %s", o.where, o.dialect, problem, o.line, o.fix)
		}
	}
	t.Logf("%d fixes checked: %d for bash lines, %d for PowerShell lines", len(got), per[rules.ShellBash], per[rules.ShellPowerShell])
	// The corpus and the examples are made to be refused with a way forward, in both shells.
	if per[rules.ShellBash] < 100 || per[rules.ShellPowerShell] < 50 {
		t.Errorf("only %d bash and %d PowerShell fixes: the collection is broken", per[rules.ShellBash], per[rules.ShellPowerShell])
	}
}

// checkFix says what is wrong with a fix, or "".
func checkFix(o offered) string {
	parse := shell.Parse
	if o.dialect == rules.ShellPowerShell {
		parse = shell.ParsePowerShell
		if chained(o.fix) {
			return "&& or || in a PowerShell line: Windows PowerShell 5.1 reads neither"
		}
	}
	calls, err := parse(o.fix)
	if err != nil {
		return fmt.Sprintf("it does not parse as %s: %v", o.dialect, err)
	}
	if len(calls) == 0 {
		return "it runs no command"
	}
	own, _ := parse(o.line)
	// A line whose calls all run after one `cd DIR` is answered with fixes that go there too.
	dirs := map[string]bool{}
	for _, l := range own {
		if l.Name != "" && !slices.Contains(builtins[o.dialect], strings.ToLower(l.Name)) {
			dirs[l.Dir] = true
		}
	}
	if len(dirs) == 1 && !dirs[""] && !slices.Contains(builtins[o.dialect], strings.ToLower(calls[0].Name)) {
		return "the line's calls run after a cd, and the fix does not go there first"
	}
	var switches []string
	for _, t := range o.decide(o.fix) {
		if t.Kind == rules.KindSwitch {
			switches = append(switches, strings.Join(t.Argv, " "))
		}
	}
	for _, c := range calls {
		name := strings.ToLower(c.Name)
		argv := []string{c.Name}
		for _, a := range c.Args {
			argv = append(argv, a.Value)
		}
		switch {
		case slices.Contains(builtins[o.dialect], name):
		case slices.ContainsFunc(own, func(l rules.Call) bool { return sameCommand(l, c) }):
		case slices.Contains(switches, strings.Join(argv, " ")):
		default:
			return fmt.Sprintf("it runs `%s`, which is neither a call of the line nor a switch ctxguard knows", strings.Join(argv, " "))
		}
	}
	return ""
}

// sameCommand reports whether the fix's call b is the line's call a, bound: the same command
// word, and every word of a but one (a value the fix replaced) among b's.
func sameCommand(a, b rules.Call) bool {
	if a.Name == "" || !strings.EqualFold(a.Name, b.Name) {
		return false
	}
	missing := 0
	for _, w := range a.Args {
		if !slices.ContainsFunc(b.Args, func(x rules.Word) bool { return x.Value == w.Value }) {
			missing++
		}
	}
	return missing <= 1
}

// chained reports whether a PowerShell line has && or || outside its quotes ('…' doubles its
// quote; "…" escapes with a backtick).
func chained(s string) bool {
	var q byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case q == '"' && c == '`':
			i++
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case q == 0 && i+1 < len(s) && (c == '&' || c == '|') && s[i+1] == c:
			return true
		}
	}
	return false
}

// dialects are the shells a line is decided in: its own, and the other where it parses there.
func dialects(line, own string) []string {
	out := []string{own}
	switch own {
	case rules.ShellPowerShell:
		if _, err := shell.Parse(line); err == nil {
			out = append(out, rules.ShellBash)
		}
	default:
		if _, err := shell.ParsePowerShell(line); err == nil {
			out = append(out, rules.ShellPowerShell)
		}
	}
	return out
}

// corpusFixes decides every corpus line in its case's machine (one machine per state a case
// asks for: the lines are decided, never run) and returns the fixes the answers offer.
func corpusFixes(t *testing.T) []offered {
	root := testenv.TempDir(t)
	testbin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := buildTemplate(filepath.Join(root, "template"), buildCtxguard(t, root))
	if err != nil {
		t.Fatal(err)
	}
	machines := map[string]*sandbox{}
	var out []offered
	for _, f := range loadCorpus(t) {
		for _, c := range f.Cases {
			key := fmt.Sprint(c.Start, c.Allow, c.Env)
			sb := machines[key]
			if sb == nil {
				if sb, err = newSandbox(tpl, filepath.Join(root, fmt.Sprintf("machine%03d", len(machines))), testbin, c); err != nil {
					t.Fatal(err)
				}
				machines[key] = sb
			}
			env := sandboxPaths(sb)
			own := rules.ShellBash
			if c.Dialect == "powershell" {
				own = rules.ShellPowerShell
			}
			for _, d := range dialects(c.Line, own) {
				decide := func(line string) []rules.CallTrace {
					return guard.Decide(rules.Request{Command: line, Cwd: sb.repo, Shell: d}, env).Calls
				}
				out = append(out, fixesOf(c.key(), d, c.Line, decide(c.Line), decide)...)
			}
		}
	}
	return out
}

// sandboxPaths is the sandbox's environment as the guard reads it.
func sandboxPaths(sb *sandbox) paths.Env {
	vars := map[string]string{}
	for _, kv := range sb.env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return paths.Env{OS: "linux", Home: sb.home, Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

// exampleFixes runs every built-in provider's examples, as `ctxguard test --builtin` does, in
// the example's shell and the other where its line parses there.
func exampleFixes(t *testing.T) []offered {
	names, err := fs.Glob(builtin.Providers(), "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	home := testenv.TempDir(t)
	env := testenv.Home(home, map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state")})
	var out []offered
	for _, name := range names {
		data, err := fs.ReadFile(builtin.Providers(), name)
		if err != nil {
			t.Fatal(err)
		}
		s, pos, err := catalog.Decode(data, "builtin:providers/"+name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range suite.Examples(s, pos, home, false) {
			for _, d := range dialects(c.Request.Command, c.Request.Shell) {
				decide := func(line string) []rules.CallTrace {
					run := c
					run.Request.Command, run.Request.Shell, run.Env = line, d, maps.Clone(c.Env)
					return suite.Run(run, env).Outcome.Calls
				}
				out = append(out, fixesOf(fmt.Sprintf("%s:%d", c.File, c.Line), d, c.Request.Command, decide(c.Request.Command), decide)...)
			}
		}
	}
	return out
}

func fixesOf(where, dialect, line string, calls []rules.CallTrace, decide func(string) []rules.CallTrace) []offered {
	var out []offered
	for _, c := range calls {
		for _, f := range c.Fixes {
			out = append(out, offered{where: where, dialect: dialect, line: line, fix: f, decide: decide})
		}
	}
	return out
}
