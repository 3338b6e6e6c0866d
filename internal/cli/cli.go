package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/spf13/pflag"
)

// Exit codes outside hook mode. In hook mode only 0 and 2 are used (see hook.go).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one subcommand. Its synopsis and examples, shown by --help, are the help text of
// its name (builtin.Help), read only when they are printed.
type command struct {
	name    string
	summary string
	run     func(c *runner, args []string) error
	// exit runs, instead of run, a command that picks its own exit codes: the hook, which may
	// only exit 0 or 2 (see hook.go).
	exit func(c *runner, args []string) int
}

// commands are the subcommands, in the order help lists them: what the harness runs, then what
// a person runs to set ctxguard up, to check it and to see it work.
var commands = []*command{
	{
		name:    "hook",
		summary: "read one hook payload on stdin and answer the harness",
		exit:    (*runner).hook,
	},
	{
		name:    "init",
		summary: "write a starter .ctxguard.yaml from the contexts found here, allowing the development ones",
		run:     runInit,
	},
	{
		name:    "install",
		summary: "wire ctxguard into a harness's hooks (" + strings.Join(harness.Names()[:6], ", ") + ", …)",
		run:     func(c *runner, args []string) error { return c.wire("install", args) },
	},
	{
		name:    "uninstall",
		summary: "take ctxguard's hooks out of a harness's settings, and nothing else",
		run:     func(c *runner, args []string) error { return c.wire("uninstall", args) },
	},
	{
		name:    "doctor",
		summary: "check the policy, the CLIs' contexts and every harness's hook, and run the hook once",
		run:     runDoctor,
	},
	{
		name:    "explain",
		summary: "show the decision the hook would make for a command, and why",
		run:     runExplain,
	},
	{
		name:    "log",
		summary: "show the decisions the hook recorded in the audit trail",
		run:     runLog,
	},
	{
		name:    "lift",
		summary: "let one rule's calls through for a while (from your own terminal only)",
		run:     runLift,
	},
	{
		name:    "validate",
		summary: "check policy and provider files, printing every problem as file:line:col",
		run:     runValidate,
	},
	{
		name:    "test",
		summary: "run the tests in policy files and the examples in provider files",
		run:     runTest,
	},
	{
		name:    "rules",
		summary: "list the destructive entries with their tiers, and the policy's own rules",
		run:     runRules,
	},
	{
		name:    "schema",
		summary: "print the JSON Schema of policy or provider files, for editors",
		run:     runSchema,
	},
	{
		name:    "demo",
		summary: "show ctxguard at work on an embedded example",
		run:     runDemo,
	},
	{
		name:    "version",
		summary: "print the version ctxguard was built from",
		run:     runVersion,
	},
}

// runner is what a subcommand gets: its streams and the environment it runs in.
type runner struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            paths.Env
	getwd          func() (string, error)
	// exit ends the process; the hook's deadline needs it (see hook.go). Nil in process (the
	// demo, tests): the deadline then answers without ending anything.
	exit func(code int)
}

// usageError is a mistake in the command line: it is printed with a pointer to --help, and the
// exit code is 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitError carries a deliberate exit code with an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// Main runs ctxguard with args (without the program name) and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &runner{stdin: stdin, stdout: stdout, stderr: stderr, env: paths.Host(), getwd: os.Getwd, exit: os.Exit}
	return c.main(args)
}

func (c *runner) main(args []string) int {
	if len(args) == 0 && piped(c.stdin) {
		// A harness that runs the exec-form entry ctxguard install writes ("command":
		// ".../ctxguard", "args": ["hook"]) but predates the form (Claude Code before 2.1.139;
		// a harness that reads Claude Code's settings files) runs the command alone, with the
		// payload on stdin: answer it as the hook rather than block every call with the usage.
		return c.hook(nil)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.help()
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, cmd := range commands {
		if cmd.name != args[0] {
			continue
		}
		if cmd.exit != nil {
			return cmd.exit(c, args[1:])
		}
		err := cmd.run(c, args[1:])
		var ue usageError
		var ee exitError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, pflag.ErrHelp):
			fmt.Fprint(c.stdout, builtin.Help(cmd.name))
			return exitOK
		case errors.As(err, &ue):
			// One line for the mistake and one for where the usage is: printed whole, the usage
			// would push the mistake off the screen.
			fmt.Fprintf(c.stderr, "ctxguard %s: %v\nrun 'ctxguard %s --help' for its usage and examples\n", cmd.name, err, cmd.name)
			return exitUsage
		case errors.As(err, &ee):
			if ee.msg != "" {
				fmt.Fprintf(c.stderr, "ctxguard %s: %s\n", cmd.name, ee.msg)
			}
			return ee.code
		default:
			fmt.Fprintf(c.stderr, "ctxguard %s: %v\n", cmd.name, err)
			return exitFailure
		}
	}
	names := make([]string, len(commands))
	for i, cmd := range commands {
		names[i] = cmd.name
	}
	fmt.Fprintf(c.stderr, "ctxguard: %s\nrun 'ctxguard --help' for the commands\n", unknown("command", args[0], names))
	return exitUsage
}

// piped reports whether stdin is a pipe or a file, as a hook's is, rather than a terminal (or
// another character device, such as /dev/null).
func piped(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice == 0
}

func (c *runner) help() {
	var b strings.Builder
	b.WriteString("ctxguard checks AI agents' shell commands against the CLI contexts a repository allows.\n\nUsage:\n  ctxguard <command> [flags]\n\nCommands:\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, "  %-10s %s\n", cmd.name, cmd.summary)
	}
	b.WriteString("\nRun 'ctxguard <command> --help' for a command's flags and examples.\n")
	fmt.Fprint(c.stdout, b.String())
}

// unknown says that word is not one of known: with the word meant when one is close, else with
// the list to pick from.
func unknown(what, word string, known []string) string {
	if hint := codec.DidYouMean(word, known); hint != "" {
		return fmt.Sprintf("unknown %s %q%s", what, word, hint)
	}
	return fmt.Sprintf("unknown %s %q (known: %s)", what, word, strings.Join(known, ", "))
}

// flags returns a flag set for a subcommand that reports errors instead of exiting.
func flags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags, turning pflag's errors into usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	return nil
}
