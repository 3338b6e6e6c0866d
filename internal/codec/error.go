package codec

import (
	"bytes"
	"strconv"
)

// Error is a decoding problem at a position in a file. Line and Col are 1-based; Col is 0 when
// the decoder gives no column (YAML syntax errors), and Line is 0 when not even the line is
// known.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	b := make([]byte, 0, len(e.File)+len(e.Msg)+16)
	b = append(b, e.File...)
	if e.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.Line), 10)
		if e.Col > 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(e.Col), 10)
		}
	}
	if len(b) > 0 {
		b = append(b, ": "...)
	}
	return string(append(b, e.Msg...))
}

// Pos is a 1-based line and column.
type Pos struct{ Line, Col int }

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
