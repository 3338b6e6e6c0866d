package codec

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Error is a decoding problem at a position in a file. Line and Col are 1-based; Col is 0 when
// the decoder gives no column (YAML syntax errors), and Line is 0 when not even the line is
// known.
type Error struct {
	File      string
	Line, Col int
	Msg       string
	// unknown is the path of an unknown key, failed that of a value of the wrong type: what a
	// check that runs after decoding must not report again (see [Problems]).
	unknown, failed string
}

func (e *Error) Error() string {
	b := make([]byte, 0, len(e.File)+len(e.Msg)+16)
	b = Pos{e.Line, e.Col}.append(b, e.File)
	if len(b) > 0 {
		b = append(b, ": "...)
	}
	return string(append(b, e.Msg...))
}

// Pos is a 1-based line and column.
type Pos struct{ Line, Col int }

// In is the position in file as file:line:col, the form of every message ctxguard prints that
// points into a file (editors and terminals open it there); a part that is 0 is left out.
func (p Pos) In(file string) string { return string(p.append(nil, file)) }

func (p Pos) append(b []byte, file string) []byte {
	b = append(b, file...)
	if p.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(p.Line), 10)
		if p.Col > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(p.Col), 10)
		}
	}
	return b
}

// Position is where the byte at offset off of src is written: its 1-based line, and its column
// counted in bytes from 1, as editors' "go to line:col" and compilers' messages count them. An
// offset past the end is the end. Every file:line:col that ctxguard prints for a file it read
// by offset (JSON settings, state files) comes from here.
func Position(src []byte, off int) Pos {
	off = min(max(off, 0), len(src))
	return Pos{
		Line: 1 + bytes.Count(src[:off], []byte("\n")),
		Col:  off - bytes.LastIndexByte(src[:off], '\n'),
	}
}

// Problems collects every problem of one file: the decoder's ([Decode]'s error) and those the
// caller's own checks find after decoding, so that one run reports them all, in file order. A
// check's problem on a line the decoder already reported is left out: a value that did not
// decode is empty, and "rule has no match" under "match must be a single value, not a list"
// says nothing new; so is a check's "rule has no decision" when the decoder found the unknown
// key "decison" in the same mapping.
type Problems struct {
	pos     *Positions
	errs    []*Error
	decoded map[int]bool
}

// NewProblems starts the problems of the file pos is for with the decoder's error.
func NewProblems(pos *Positions, decodeErr error) *Problems {
	p := &Problems{pos: pos, decoded: map[int]bool{}}
	for _, e := range Unjoin(decodeErr) {
		ce, ok := e.(*Error)
		if !ok {
			ce = &Error{File: pos.File(), Msg: e.Error()}
		}
		p.errs = append(p.errs, ce)
		p.decoded[ce.Line] = true
	}
	return p
}

// Add records a problem at the item at path (see [Positions.Errorf]).
func (p *Problems) Add(path, format string, args ...any) { p.AddNeeds(path, "", format, args...) }

// AddNeeds records a problem that holds because the item at needs is missing ("format needs
// file"); it is left out when that item is written but did not decode.
func (p *Problems) AddNeeds(path, needs, format string, args ...any) {
	e := p.pos.Errorf(path, format, args...)
	if e.Line > 0 && p.decoded[e.Line] {
		return
	}
	_, written := p.pos.At(path)
	for _, d := range p.errs {
		if needs != "" && d.failed == needs || !written && d.unknown != "" && parent(d.unknown) == parent(path) {
			return
		}
	}
	p.errs = append(p.errs, e)
}

func parent(path string) string { return path[:max(strings.LastIndexByte(path, '.'), 0)] }

// Err returns the problems in file order: nil, one as itself, or several joined.
func (p *Problems) Err() error {
	slices.SortStableFunc(p.errs, byPosition)
	switch len(p.errs) {
	case 0:
		return nil
	case 1:
		return p.errs[0]
	}
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// byPosition orders errors by where they are in their file.
func byPosition(a, b *Error) int {
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// Sorted lists the errors err joins ([Unjoin]) in the order of their positions in the file; one
// that is not an [*Error] has none, and comes first.
func Sorted(err error) []error {
	errs := Unjoin(err)
	slices.SortStableFunc(errs, func(a, b error) int {
		var ea, eb *Error
		if !errors.As(a, &ea) {
			ea = &Error{}
		}
		if !errors.As(b, &eb) {
			eb = &Error{}
		}
		return byPosition(ea, eb)
	})
	return errs
}

// Unjoin lists the errors an error joins ([errors.Join], nested joins flattened), or the error
// itself; none for nil.
func Unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Unjoin(e)...)
		}
		return out
	}
	return []error{err}
}
