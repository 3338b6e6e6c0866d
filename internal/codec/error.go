package codec

import "strconv"

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
