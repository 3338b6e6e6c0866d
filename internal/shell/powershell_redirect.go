package shell

import "github.com/ctxguard/ctxguard/rules"

// redirect reads a redirection; a file written is added to writes.
func (p *psParser) redirect(writes *[]rules.Word) {
	if p.peek(0) == '<' {
		p.fail("the '<' operator is reserved for future use")
	}
	j := p.i
	if p.src[j] != '>' {
		j++ // a stream number or *
	}
	j++ // >
	if j < len(p.src) && p.src[j] == '>' {
		j++
	}
	if j < len(p.src) && p.src[j] == '&' {
		// 2>&1: a stream merge, no file.
		j++
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		p.i = j
		return
	}
	p.i = j
	p.space(false)
	if p.atEnd() {
		p.fail("missing file after redirection")
	}
	w := p.word()
	if writes != nil {
		*writes = append(*writes, w)
	}
}

// writesOnly reports an expression whose output is redirected (`'x' > f`) as a call with no
// command word at at, so that the files it writes are seen, as bash's `> f` is.
func (p *psParser) writesOnly(at int, writes []rules.Word) {
	if len(writes) == 0 {
		return
	}
	p.w.calls = append(p.w.calls, rules.Call{
		NameWord: rules.Word{Pos: at, End: at}, Env: convertEnv(p.s, p.env), Dir: p.dir, DirUnknown: p.dirUnk,
		Via: p.via, Src: p.s.src, Nested: p.s.nested, Start: at, End: at, Writes: writes,
	})
}
