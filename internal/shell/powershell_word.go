package shell

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxguard/ctxguard/rules"
)

// Typographic quotes: PowerShell reads them as the ASCII ones.
func isSingleQuote(r rune) bool {
	return r == '\'' || r == '‘' || r == '’' || r == '‚' || r == '‛'
}

func isDoubleQuote(r rune) bool { return r == '"' || r == '“' || r == '”' || r == '„' }

func (p *psParser) runeAt(i int) (rune, int) {
	if i >= len(p.src) {
		return 0, 0
	}
	return utf8.DecodeRuneInString(p.src[i:])
}

// space skips blanks, line continuations and comments; with newlines, line ends too.
func (p *psParser) space(newlines bool) {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			p.i++
		case c == '\r' || c == '\n':
			if !newlines {
				return
			}
			p.i++
		case c == '`' && (p.peek(1) == '\n' || p.peek(1) == '\r'):
			p.i += 2
			if p.src[p.i-1] == '\r' && p.peek(0) == '\n' {
				p.i++
			}
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
				p.i++
			}
		case c == '<' && p.peek(1) == '#':
			end := strings.Index(p.src[p.i+2:], "#>")
			if end < 0 {
				p.fail("unterminated block comment")
			}
			p.i += 2 + end + 2
		default:
			if r, n := p.runeAt(p.i); r == '\u00a0' || r == '\u2028' || r == '\u2029' {
				p.i += n
				continue
			}
			return
		}
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// stopParsing reads `--%`: the rest of the line goes to the command as written. The words are
// split on blanks, non-literal (cmd-style %VAR% expands on Windows), and end at a newline or `|`.
func (p *psParser) stopParsing() []rules.Word {
	p.i += 3
	var out []rules.Word
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\n' || c == '\r' || c == '|' {
			break
		}
		if c == ' ' || c == '\t' {
			p.i++
			continue
		}
		s := p.i
		for p.i < len(p.src) && !strings.ContainsRune(" \t\n\r|", rune(p.src[p.i])) {
			p.i++
		}
		out = append(out, rules.Word{Value: p.src[s:p.i], Pos: s, End: p.i})
	}
	return out
}

// isBareByte reports whether c continues a bare word.
func isBareByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '|', '&', '(', ')', '{', '}', '>', '<', 0:
		return false
	}
	return true
}

// psNumber matches a bare word that PowerShell reads as a number (`0x10`, `1kb`, `1e3`, `7l`). It
// is compiled on first use, not at package init: compiling it cost every hook run 84 µs, and
// only a word that starts like a number needs it.
var psNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^[+-]?(0x[0-9a-f]+|0b[01]+|[0-9]+\.?[0-9]*(e[+-]?[0-9]+)?|\.[0-9]+(e[+-]?[0-9]+)?)(ul|us|uy|u|l|d|n|s|y)?(kb|mb|gb|tb|pb)?$`)
})

// numberKeepsText reports whether PowerShell passes the bare number s on as the text s: a decimal
// integer without a sign or a leading zero does (`--index 1` passes "1"); 0x10, 1kb, 007, 1e3
// and 1.50 do not (they pass 16, 1024, 7, 1000 and 1.5).
func numberKeepsText(s string) bool {
	if s == "0" {
		return true
	}
	return len(s) <= 18 && s[0] >= '1' && s[0] <= '9' && strings.Trim(s, "0123456789") == ""
}

// isPSNumber reports whether a bare word is a number to PowerShell.
func isPSNumber(s string) bool {
	t := s
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if t == "" || !(t[0] >= '0' && t[0] <= '9' || t[0] == '.') {
		return false
	}
	return psNumber().MatchString(s)
}

// word reads one argument: bare text, quoted strings and expansions, up to a blank or an
// operator. Groups and subexpressions in it are read for their calls, which run first.
func (p *psParser) word() rules.Word {
	start := p.i
	var b strings.Builder
	lit, quoted := true, false
	for p.i < len(p.src) {
		c := p.src[p.i]
		r, n := p.runeAt(p.i)
		switch {
		case c == '`':
			if p.i+1 >= len(p.src) {
				p.i++
				b.WriteByte('`')
				continue
			}
			if nc := p.src[p.i+1]; nc == '\n' || nc == '\r' {
				goto done // a line continuation ends the word
			}
			p.i++
			p.escape(&b)
		case isSingleQuote(r):
			p.i += n
			quoted = true
			p.single(&b)
		case isDoubleQuote(r):
			p.i += n
			quoted = true
			if !p.double(&b, false) {
				lit = false
			}
		case c == '@' && p.i == start && (p.peek(1) == '\'' || p.peek(1) == '"') && herestringStart(p.src[p.i+2:]):
			quoted = true
			if !p.herestring(&b) {
				lit = false
			}
		case c == '$' || c == '@' && p.i == start && (p.peek(1) == '(' || p.peek(1) == '{' || isWordByte(p.peek(1))):
			if v, end, ok := p.knownString(false); ok && c == '$' {
				b.WriteString(v)
				p.i = end
				continue
			}
			lit = false
			p.dollar()
		case c == '(' && p.i > start:
			// `a(b)`: the group is a separate value in PowerShell; read it, as part of this word.
			lit = false
			p.group()
		case c == '(' || c == '{' && p.i == start:
			lit = false
			if c == '(' {
				p.group()
			} else {
				p.block()
			}
			if p.i < len(p.src) && isBareByte(p.src[p.i]) && p.src[p.i] != ',' {
				continue
			}
			goto done
		case c == ',':
			lit = false // an array
			p.i++
		case !isBareByte(c):
			goto done
		case c == '#' && p.i == start:
			goto done
		case r == '\u00a0' || r == '\u2028' || r == '\u2029':
			goto done
		default:
			b.WriteString(p.src[p.i : p.i+n])
			p.i += n
		}
	}
done:
	w := rules.Word{Value: b.String(), Literal: lit, Pos: start, End: p.i}
	if p.i == start {
		if p.i >= len(p.src) {
			p.fail("unexpected end of line")
		}
		p.fail("unexpected " + strconv.Quote(string(p.src[p.i])))
	}
	if lit && !quoted && isPSNumber(w.Value) && !numberKeepsText(w.Value) {
		lit = false // PowerShell passes the number's value, not its text (0x10 is 16)
	}
	if !lit {
		w.Value, w.Literal = p.src[start:p.i], false
	}
	return w
}

// escape reads a backtick escape, the backtick already consumed.
func (p *psParser) escape(b *strings.Builder) {
	c := p.src[p.i]
	if e, ok := controlEscape(c); ok {
		b.WriteByte(e)
		p.i++
		return
	}
	switch c {
	case '0':
		b.WriteByte(0)
	case 'u':
		if p.peek(1) == '{' {
			end := strings.IndexByte(p.src[p.i:], '}')
			if end > 2 {
				if v, err := strconv.ParseUint(p.src[p.i+2:p.i+end], 16, 32); err == nil && v <= utf8.MaxRune {
					b.WriteRune(rune(v))
					p.i += end + 1
					return
				}
			}
		}
		b.WriteByte('u')
	default:
		_, n := p.runeAt(p.i)
		b.WriteString(p.src[p.i : p.i+n])
		p.i += n
		return
	}
	p.i++
}

// single reads a single-quoted string after its opening quote: no escapes, a doubled quote is one.
func (p *psParser) single(b *strings.Builder) {
	for p.i < len(p.src) {
		r, n := p.runeAt(p.i)
		if isSingleQuote(r) {
			if r2, n2 := p.runeAt(p.i + n); isSingleQuote(r2) {
				b.WriteString(p.src[p.i+n : p.i+n+n2])
				p.i += n + n2
				continue
			}
			p.i += n
			return
		}
		b.WriteString(p.src[p.i : p.i+n])
		p.i += n
	}
	p.fail("unterminated string")
}

// double reads a double-quoted string after its opening quote (or a here-string's body, until
// its terminator when here is set); false when it expands something.
func (p *psParser) double(b *strings.Builder, here bool) bool {
	lit := true
	for p.i < len(p.src) {
		c := p.src[p.i]
		r, n := p.runeAt(p.i)
		switch {
		case here && (c == '\n' || c == '\r') && herestringEnd(p.src[p.i:], '"'):
			return lit
		case !here && isDoubleQuote(r):
			if r2, n2 := p.runeAt(p.i + n); isDoubleQuote(r2) {
				b.WriteString(p.src[p.i+n : p.i+n+n2])
				p.i += n + n2
				continue
			}
			p.i += n
			return lit
		case c == '`' && p.i+1 < len(p.src):
			p.i++
			p.escape(b)
		case c == '$' && p.i+1 < len(p.src) && (p.peek(1) == '(' || p.peek(1) == '{' || isWordByte(p.peek(1)) || p.peek(1) == ':' || p.peek(1) == '$' || p.peek(1) == '?' || p.peek(1) == '^'):
			if v, end, ok := p.knownString(true); ok {
				b.WriteString(v)
				p.i = end
				continue
			}
			lit = false
			p.dollar()
		default:
			b.WriteString(p.src[p.i : p.i+n])
			p.i += n
		}
	}
	p.fail("unterminated string")
	return false
}

func herestringStart(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, "\n") || strings.HasPrefix(s, "\r\n")
}

// herestringEnd reports whether s, at a line end, ends a here-string: the next line starts
// with the quote and @.
func herestringEnd(s string, q byte) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
	return len(s) >= 2 && s[0] == q && s[1] == '@'
}

// herestring reads @'…'@ or @"…"@; false when it expands something.
func (p *psParser) herestring(b *strings.Builder) bool {
	q := p.src[p.i+1]
	p.i += 2
	for p.src[p.i] != '\n' {
		p.i++
	}
	p.i++
	lit := true
	if q == '\'' {
		end := -1
		for k := p.i - 1; k < len(p.src); k++ {
			if (p.src[k] == '\n') && herestringEnd(p.src[k:], '\'') {
				end = k
				break
			}
		}
		if end < 0 {
			p.fail("unterminated here-string")
		}
		if end > p.i {
			b.WriteString(strings.TrimSuffix(p.src[p.i:end], "\r"))
		}
		p.i = end
	} else {
		if herestringEnd(p.src[p.i-1:], '"') {
			p.i--
		} else {
			lit = p.double(b, true)
		}
	}
	// At the line end before the terminator.
	if p.src[p.i] == '\r' {
		p.i++
	}
	p.i += 3 // \n, quote, @
	return lit
}

// dollar reads a variable or a subexpression from its `$` (or `@`).
func (p *psParser) dollar() {
	p.i++
	switch c := p.peek(0); {
	case c == '(':
		p.i--
		p.group()
	case c == '{' && p.src[p.i-1] == '@':
		// A hashtable @{ … }: its values may hold calls, read as statements.
		p.block()
	case c == '{':
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			p.fail("unterminated variable")
		}
		if name, e, ok := p.varAt(p.i - 1); ok {
			p.plainRead(name, e)
		}
		p.i += end + 1
	case c == '$' || c == '?' || c == '^':
		p.i++
	default:
		if name, end, ok := p.varAt(p.i - 1); ok {
			p.plainRead(name, end)
		}
		for p.i < len(p.src) && (isWordByte(p.src[p.i]) || p.src[p.i] == ':' && isWordByte(p.peek(1))) {
			p.i++
		}
	}
}
