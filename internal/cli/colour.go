package cli

import (
	"os"

	"golang.org/x/term"
)

// colour paints text for a person: only when stdout is a terminal, and never when NO_COLOR is set
// to anything (https://no-color.org), so that a pipe, a file or a CI log gets plain text.
type colour bool

func (c *runner) colour() colour {
	if v, ok := c.env.Lookup("NO_COLOR"); ok && v != "" {
		return false
	}
	return colour(terminal(c.stdout))
}

// terminal reports whether a stream is a terminal. A character device is not enough: /dev/null
// is one.
func terminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p colour) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p colour) good(s string) string { return p.paint("32", s) }
func (p colour) warn(s string) string { return p.paint("33", s) }
func (p colour) bad(s string) string  { return p.paint("31", s) }
func (p colour) dim(s string) string  { return p.paint("2", s) }
