// Command powershell stands in for powershell.exe in .ci/wine's Wine prefix, whose own
// powershell.exe prints nothing and exits 0 whatever it is given: a hook line "run through
// PowerShell" there would pass without running. This one runs the one kind of line that
// harnesses hand PowerShell for a hook, a program and its arguments, with PowerShell's rules for
// it (about_Parsing, about_Quoting_Rules, about_Operators §Call operator):
//
//	ctxguard.exe hook --harness copilot
//	& 'C:\Users\First Last\go\bin\ctxguard.exe' hook --harness copilot
//
// A line that starts with a quoted string is an expression, so a word after it is a parse
// error, as in PowerShell ("Unexpected token 'hook' in expression or statement."); anything
// else outside these forms ($variables, ;, pipes, redirections) is refused with exit 1, never
// guessed at. It is built and installed by .ci/wine only; it is not part of ctxguard.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	line, err := commandArg(os.Args[1:])
	if err == nil {
		var argv []string
		if argv, err = words(line); err == nil {
			os.Exit(run(argv))
		}
	}
	fmt.Fprintf(os.Stderr, "powershell (ctxguard CI stand-in): %v\n", err)
	os.Exit(1)
}

// commandArg returns the text after -Command (or -c), skipping the switches harnesses pass
// before it.
func commandArg(args []string) (string, error) {
	for i := 0; i < len(args); i++ {
		switch strings.ToLower(args[i]) {
		case "-noprofile", "-nologo", "-noninteractive":
		case "-executionpolicy":
			i++
		case "-command", "-c":
			return strings.Join(args[i+1:], " "), nil
		default:
			return "", fmt.Errorf("unsupported argument %q", args[i])
		}
	}
	return "", errors.New("no -Command")
}

// words splits a line into the program and its arguments.
func words(line string) ([]string, error) {
	s := strings.TrimSpace(line)
	call := false
	if rest, ok := strings.CutPrefix(s, "&"); ok {
		call, s = true, strings.TrimLeft(rest, " \t")
	}
	var out []string
	for s != "" {
		w, rest, err := word(s)
		if err != nil {
			return nil, err
		}
		if len(out) == 0 && !call && (s[0] == '\'' || s[0] == '"') && strings.TrimSpace(rest) != "" {
			next, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
			return nil, fmt.Errorf("ParserError: Unexpected token '%s' in expression or statement", next)
		}
		out = append(out, w)
		s = strings.TrimLeft(rest, " \t")
	}
	if len(out) == 0 {
		return nil, errors.New("empty command")
	}
	return out, nil
}

// word reads one argument: a bare word, or a single- or double-quoted string.
func word(s string) (w, rest string, err error) {
	switch s[0] {
	case '\'':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '\'' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), s[i+1:], nil
		}
		return "", "", errors.New("the string is missing the terminator: '")
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '`':
				if i+1 < len(s) {
					b.WriteByte(s[i+1])
					i++
				}
			case '$':
				return "", "", errors.New("variables are not supported")
			case '"':
				return b.String(), s[i+1:], nil
			default:
				b.WriteByte(s[i])
			}
		}
		return "", "", errors.New(`the string is missing the terminator: "`)
	}
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	w = s[:end]
	if strings.ContainsAny(w, "$;|<>(){}`'\"@") {
		return "", "", fmt.Errorf("unsupported word %q", w)
	}
	return w, s[end:], nil
}

// run runs argv with this process's streams and returns its exit code.
func run(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "%s: The term '%s' is not recognized: %v\n", argv[0], argv[0], err)
		return 1
	}
}
