package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// wordValue returns a word's value after quote removal, and false when the value is not known
// statically: an expansion, a glob, a brace expansion or a tilde the shell would expand. assign
// is set for the value of an assignment, where a `~` after `=` or `:` expands too.
func wordValue(wd *syntax.Word, assign bool) (string, bool) {
	if len(wd.Parts) == 1 {
		if l, ok := wd.Parts[0].(*syntax.Lit); ok && plain(l.Value) {
			return l.Value, true
		}
	}
	var b strings.Builder
	u := unquoted{assign: assign}
	if !assign {
		// bash also expands `~` after the `=` of an argument that looks like an assignment.
		if l, ok := wd.Parts[0].(*syntax.Lit); ok {
			if i := strings.IndexByte(l.Value, '='); i > 0 && isName(l.Value[:i]) {
				u.assign = true
			}
		}
	}
	for i, part := range wd.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if !u.add(&b, p.Value, i == 0) {
				return "", false
			}
		case *syntax.SglQuoted:
			u.prev = 0
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			u.prev = 0
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unquoted scans the unquoted literal parts of one word, removing backslashes and spotting
// globs, brace expansions and tildes (which may span several parts: `{a,"b"}`).
type unquoted struct {
	assign    bool
	braces    int  // unmatched `{` seen
	braceList bool // a `,` or `..` after an unmatched `{`
	prev      byte // previous unquoted byte, 0 after a quoted part
}

func (u *unquoted) add(b *strings.Builder, v string, first bool) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			} else {
				b.WriteByte(c)
			}
			u.prev = 'a'
			continue
		case '*', '?':
			return false
		case '[':
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				return false
			}
		case '~':
			if first && i == 0 || u.assign && (u.prev == '=' || u.prev == ':') {
				return false
			}
		case '{':
			u.braces++
		case ',':
			if u.braces > 0 {
				u.braceList = true
			}
		case '.':
			if u.braces > 0 && u.prev == '.' {
				u.braceList = true
			}
		case '}':
			if u.braces > 0 {
				if u.braceList {
					return false
				}
				u.braces--
			}
		}
		b.WriteByte(c)
		u.prev = c
	}
	return true
}

// plain reports whether bash takes a literal word part as written: no backslash, glob, brace
// or tilde. (A loop of its own: strings.ContainsAny looks each byte of a short string up in the
// set one at a time, and a line has many short words.)
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '*', '?', '[', '{', '~':
			return false
		}
	}
	return true
}

// hasSlash reports whether a word is a path, in either separator.
func hasSlash(s string) bool {
	return strings.IndexByte(s, '/') >= 0 || strings.IndexByte(s, '\\') >= 0
}

// afterSlash is the last element of a path in either separator.
func afterSlash(s string) string {
	return s[max(strings.LastIndexByte(s, '/'), strings.LastIndexByte(s, '\\'))+1:]
}

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// unescapeUnquoted removes the backslashes of an unquoted literal.
func unescapeUnquoted(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that are special inside double quotes.
func unescapeDouble(s string) string { return unescapeSome(s, "$`\"\\\n") }

// unescapeHeredoc removes the backslashes that are special in an unquoted here-document.
func unescapeHeredoc(s string) string { return unescapeSome(s, "$`\\\n") }

func unescapeSome(s, special string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(special, s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a bash $'…' string. A NUL ends it, as in bash.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		c = s[i]
		if e, ok := controlEscape(c); ok {
			b.WriteByte(e)
			continue
		}
		switch c {
		case 'E':
			b.WriteByte(0x1b)
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			i = j - 1
			if n&0xff == 0 {
				return b.String()
			}
			b.WriteByte(byte(n))
		case 'x', 'u', 'U':
			size := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i + 1
			for j < len(s) && j < i+1+size && isHexDigit(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			i = j - 1
			if n == 0 {
				return b.String()
			}
			if c == 'x' {
				b.WriteByte(byte(n))
			} else if n <= utf8.MaxRune {
				b.WriteRune(rune(n))
			}
		case 'c':
			if i+1 < len(s) {
				i++
				if s[i]&0x1f == 0 {
					return b.String()
				}
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// controlEscape is the control character that a backslash (bash's $'…', echo -e) or a backtick
// (PowerShell) and the letter c stand for.
func controlEscape(c byte) (byte, bool) {
	switch c {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'e':
		return 0x1b, true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	}
	return 0, false
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// textBuilder assembles a string that a shell will parse as a script (the argument of
// `bash -c`, the words of `eval`, a here-document body). Expansions the outer shell performs
// first become placeholder words in text; src holds the same string with the expansions'
// source text instead, and is what the nested calls' Src and positions refer to.
type textBuilder struct {
	w      *walker
	sc     *scope // the scope whose known values the outer shell expands, if any
	text   strings.Builder
	src    strings.Builder
	phs    []phSpan
	decode func(string) string // extra decoding of literal text (echo -e, printf)
	// dashTabs strips the leading tabs of each line (a `<<-` here-document); midLine records
	// that the text so far does not end at a line start.
	dashTabs, midLine bool
}

// lit appends literal text, turning the placeholders of an enclosing level back into
// placeholders (so `bash -c "sh -c '$X'"` still knows that $X is unknown).
func (b *textBuilder) lit(s string) {
	if b.decode != nil {
		s = b.decode(s)
	}
	if b.dashTabs {
		s = b.stripTabs(s)
	}
	p := b.w.phPrefix
	for p != "" {
		i := strings.Index(s, p)
		if i < 0 {
			break
		}
		j := i + len(p)
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		id, err := strconv.Atoi(s[j:k])
		if k == j || k >= len(s) || s[k] != '_' || err != nil || id >= len(b.w.phOrig) {
			b.raw(s[:j])
			s = s[j:]
			continue
		}
		b.raw(s[:i])
		b.placeholder(id)
		s = s[k+1:]
	}
	b.raw(s)
}

func (b *textBuilder) raw(s string) {
	b.text.WriteString(s)
	b.src.WriteString(s)
}

// exp appends a placeholder for an expansion whose source text is orig.
func (b *textBuilder) exp(orig string) {
	w := b.w
	if w.phPrefix == "" {
		w.phPrefix = "_CtxgPh"
		for strings.Contains(w.line, w.phPrefix) {
			w.phPrefix += "x"
		}
	}
	w.phOrig = append(w.phOrig, orig)
	b.placeholder(len(w.phOrig) - 1)
}

func (b *textBuilder) placeholder(id int) {
	name := b.w.phPrefix + strconv.Itoa(id) + "_"
	orig := b.w.phOrig[id]
	t, s := b.text.Len(), b.src.Len()
	b.phs = append(b.phs, phSpan{tStart: t, tEnd: t + len(name), sStart: s, sEnd: s + len(orig)})
	b.midLine = true
	b.text.WriteString(name)
	b.src.WriteString(orig)
}

// stripTabs removes the tabs that start a line, as `<<-` does.
func (b *textBuilder) stripTabs(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' && !b.midLine {
			continue
		}
		b.midLine = c != '\n'
		out.WriteByte(c)
	}
	return out.String()
}

// source returns the built string as a text to walk.
func (b *textBuilder) source(parent *source) *source {
	return &source{text: b.text.String(), src: b.src.String(), phs: b.phs, nested: true, depth: parent.depth + 1}
}

type textMode int

const (
	modeWord          textMode = iota // a shell word: quotes and backslashes are removed
	modeHeredoc                       // an unquoted here-document body
	modeHeredocQuoted                 // a here-document with a quoted delimiter: verbatim
)

// word appends the value a shell word (or here-document body) of frame f would have.
func (b *textBuilder) word(f frame, wd *syntax.Word, mode textMode) {
	for _, part := range wd.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			switch mode {
			case modeWord:
				b.lit(unescapeUnquoted(p.Value))
			case modeHeredoc:
				b.lit(unescapeHeredoc(p.Value))
			default:
				b.lit(p.Value)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				b.lit(ansiC(p.Value))
			} else {
				b.lit(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.lit(unescapeDouble(l.Value))
				} else {
					b.expNode(f, q)
				}
			}
		default:
			b.expNode(f, p)
		}
	}
}

func (b *textBuilder) expNode(f frame, n syntax.Node) {
	if part, ok := n.(syntax.WordPart); ok && b.sc != nil {
		if v, ok := b.w.part(f, b.sc, part); ok {
			b.lit(v)
			return
		}
	}
	p, e := f.offsets(n)
	b.exp(f.s.src[p:e])
}
