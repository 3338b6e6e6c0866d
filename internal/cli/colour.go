package cli

import (
	"io"
	"os"
)

// colour paints text for a person: only when stdout is a terminal, and never when NO_COLOR is set
// to anything (https://no-color.org), so that a pipe, a file or a CI log gets plain text.
type colour bool

func (c *runner) colour() colour {
	if v, ok := c.env.Lookup("NO_COLOR"); ok && v != "" {
		return false
	}
	return terminal(c.stdout)
}

func terminal(w io.Writer) colour {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
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
