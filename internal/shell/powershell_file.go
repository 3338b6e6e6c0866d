package shell

import (
	"encoding/base64"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxguard/ctxguard/rules"
)

// Files a PowerShell line writes are tracked within the line as bash's are (bash_file.go), in the
// same table: what Set-Content, Add-Content, Out-File, Tee-Object, New-Item and a redirection
// write from literals, a copy or a link of a program (`Copy-Item (Get-Command az).Source ./x`),
// a copy of a tracked file. Running such a file (`./s.ps1`, `& ./s.ps1`, `. ./s.ps1`,
// `pwsh -File s.ps1`) reads that content; a file the line wrote by other means is unknown, and
// running it is asked about. Paths are compared without regard to case or to the kind of
// slash, as Windows compares them: the stricter reading on other systems.

// fileKey is the tracking key of a path word, "" when the word or the location is not known.
func (p *psParser) fileKey(wd rules.Word) string {
	if !wd.Literal || wd.Value == "" {
		return ""
	}
	d, _, ok := psLocation(p.dir, wd.Value)
	if !ok || p.dirUnk && !path.IsAbs(d) && !isDrivePath(d) {
		return ""
	}
	return strings.ToLower(d)
}

func (p *psParser) file(wd rules.Word) (fileState, bool) {
	k := p.fileKey(wd)
	if k == "" {
		return fileState{}, false
	}
	fs, ok := p.w.files[k]
	return fs, ok
}

func (p *psParser) setFile(wd rules.Word, fs fileState) {
	k := p.fileKey(wd)
	if k == "" {
		return
	}
	if p.w.files == nil {
		p.w.files = map[string]fileState{}
	}
	p.w.files[k] = fs
}

// psFileCmdlet is a cmdlet whose effect on a file is plain: which of its parameters take a
// value (aliases after the name), which are bound by position, and what it does.
type psFileCmdlet struct {
	op         string // write, append, out (Out-File, Tee-Object: -Append appends), new, copy, move, remove
	valued     [][]string
	positional []string
}

// psFileCmdlets is built on first use, as the other tables of this package: a hook run whose
// line is read in bash never needs it.
var psFileCmdlets = sync.OnceValue(func() map[string]*psFileCmdlet {
	content := &psFileCmdlet{valued: [][]string{{"path", "pspath"}, {"literalpath", "lp"}, {"value"}, {"encoding"}, {"stream"},
		{"filter"}, {"include"}, {"exclude"}, {"credential"}}, positional: []string{"path", "value"}}
	set, add := *content, *content
	set.op, add.op = "write", "append"
	out := &psFileCmdlet{op: "out", valued: [][]string{{"filepath", "path"}, {"literalpath", "lp", "pspath"}, {"encoding"},
		{"inputobject"}, {"width"}, {"variable"}}, positional: []string{"filepath", "encoding"}}
	item := func(op string) *psFileCmdlet {
		return &psFileCmdlet{op: op, valued: [][]string{{"path"}, {"literalpath", "lp", "pspath"}, {"destination"}, {"filter"},
			{"include"}, {"exclude"}, {"credential"}, {"tosession"}, {"fromsession"}}, positional: []string{"path", "destination"}}
	}
	newItem := &psFileCmdlet{op: "new", valued: [][]string{{"path"}, {"name"}, {"itemtype", "type"}, {"value", "target"},
		{"credential"}}, positional: []string{"path"}}
	m := map[string]*psFileCmdlet{"set-content": &set, "sc": &set, "add-content": &add, "ac": &add,
		"out-file": out, "tee-object": out, "tee": out, "new-item": newItem, "ni": newItem}
	for _, n := range []string{"copy-item", "cp", "copy", "cpi"} {
		m[n] = item("copy")
	}
	for _, n := range []string{"move-item", "mv", "move", "mi"} {
		m[n] = item("move")
	}
	for _, n := range []string{"remove-item", "rm", "del", "erase", "ri", "rd", "rmdir"} {
		m[n] = item("remove")
	}
	return m
})

// bind reads a cmdlet's arguments: the value of each parameter by its name's canonical form,
// and the switches given. ok is false when the arguments cannot be read plainly (a parameter
// that is not literal, a value missing).
func (c *psFileCmdlet) bind(args []rules.Word) (vals map[string]rules.Word, switches []string, ok bool) {
	vals = map[string]rules.Word{}
	pos := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !psFlag(a) {
			for pos < len(c.positional) {
				if _, set := vals[c.positional[pos]]; !set {
					break
				}
				pos++
			}
			if pos >= len(c.positional) {
				return nil, nil, false
			}
			vals[c.positional[pos]] = a
			continue
		}
		name, val, attached := strings.Cut(a.Value[1:], ":")
		name = strings.ToLower(name)
		k := slices.IndexFunc(c.valued, func(names []string) bool {
			return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, name) })
		})
		switch {
		case k < 0:
			switches = append(switches, name)
		case attached:
			vals[c.valued[k][0]] = rules.Word{Value: val, Literal: a.Literal, Pos: a.Pos, End: a.End}
		case i+1 < len(args):
			i++
			vals[c.valued[k][0]] = args[i]
		default:
			return nil, nil, false
		}
	}
	return vals, switches, true
}

// trackFile records what a command does to the files it writes: its redirections (with out, the
// literal output of the command, when known) and the file cmdlets. in is the literal piped into
// it, piped whether anything is.
func (p *psParser) trackFile(name string, words, writes []rules.Word, out, in *rules.Word, piped bool) {
	for _, t := range writes {
		fs := fileState{}
		if out != nil && len(writes) == 1 {
			fs = fileState{content: out.Value + "\n", known: true}
		}
		p.write(t, fs, p.appends(t))
	}
	c, ok := psFileCmdlets()[name]
	if !ok {
		return
	}
	vals, switches, ok := c.bind(words[1:])
	target := func(key string) rules.Word {
		if lp, ok := vals["literalpath"]; ok {
			return lp
		}
		return vals[key]
	}
	content := func(v rules.Word, given bool) fileState {
		switch {
		case given && v.Literal:
			return fileState{content: v.Value + "\n", known: true}
		case !given && in != nil:
			return fileState{content: in.Value + "\n", known: true}
		case !given && !piped:
			return fileState{content: "", known: true}
		}
		return fileState{}
	}
	appending := slices.ContainsFunc(switches, func(s string) bool { return strings.HasPrefix("append", s) })
	switch c.op {
	case "write", "append":
		v, given := vals["value"]
		p.written(target("path"), ok, content(v, given), c.op == "append")
	case "out":
		v, given := vals["inputobject"]
		p.written(target("filepath"), ok, content(v, given), appending)
	case "new":
		t := target("path")
		if n, has := vals["name"]; has {
			t = rules.Word{Value: t.Value + "/" + n.Value, Literal: t.Literal && n.Literal}
		}
		v, given := vals["value"]
		kind := strings.ToLower(vals["itemtype"].Value)
		switch {
		case kind == "symboliclink" || kind == "hardlink" || kind == "junction":
			fs := fileState{}
			if given && v.Literal {
				fs.link = v.Value
			}
			fs.program = p.programOf(v)
			p.written(t, ok, fs, false)
		case kind == "" || kind == "file":
			p.written(t, ok, content(v, given), false)
		}
	case "copy", "move":
		src, dst := target("path"), vals["destination"]
		fs, tracked := p.file(src)
		switch {
		case !ok:
		case tracked:
		case p.programOf(src) != "":
			fs = fileState{program: p.programOf(src)}
		default:
			fs = fileState{}
		}
		p.written(dst, ok, fs, false)
		if c.op == "move" && ok {
			if k := p.fileKey(src); k != "" {
				delete(p.w.files, k)
			}
		}
	case "remove":
		if k := p.fileKey(target("path")); ok && k != "" {
			delete(p.w.files, k)
		}
	}
}

// written records a write by a cmdlet: unknown when its arguments could not be read.
func (p *psParser) written(t rules.Word, ok bool, fs fileState, appending bool) {
	if !ok {
		fs = fileState{}
	}
	p.write(t, fs, appending)
}

func (p *psParser) write(t rules.Word, fs fileState, appending bool) {
	if strings.EqualFold(t.Value, "$null") {
		return // > $null discards
	}
	if appending {
		old, ok := p.file(t)
		if fs.known && ok && old.known {
			fs.content = old.content + fs.content
		} else {
			fs = fileState{}
		}
	}
	p.setFile(t, fs)
}

// appends reports whether a redirection's target word follows >> rather than >.
func (p *psParser) appends(t rules.Word) bool {
	if t.Pos <= 0 || t.Pos > len(p.src) {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(p.src[:t.Pos], " \t"), ">>")
}

// psLookup is the path of a program as PowerShell looks it up: (Get-Command az).Source, .Path or
// .Definition, also with gcm, $( ) and quotes. Compiled on first use, like the other expressions
// here: every hook run would pay for it at start-up.
var psLookup = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\$?\(\s*(?:get-command|gcm)\s+(?:-name\s+)?['"]?([\w.-]+)['"]?\s*\)\.(?:source|path|definition)$`)
})

// programOf is the program a copy's or a link's source names: a program the line copied, a
// literal path, or a lookup.
func (p *psParser) programOf(src rules.Word) string {
	if fs, ok := p.file(src); ok {
		return fs.program
	}
	if src.Literal {
		if strings.ContainsAny(src.Value, `/\`) {
			return psCommandName(src)
		}
		return ""
	}
	if m := psLookup().FindStringSubmatch(strings.TrimSpace(src.Value)); m != nil {
		return psCommandName(rules.Word{Value: m[1], Literal: true})
	}
	return ""
}

// program is the program a command word runs when the line made it a copy or a link of one.
func (p *psParser) program(wd rules.Word) (string, bool) {
	if !wd.Literal || !strings.ContainsAny(wd.Value, `/\`) {
		return "", false
	}
	fs, ok := p.file(wd)
	if !ok || fs.program == "" {
		return "", false
	}
	return fs.program, true
}

// runFile reads a script the line wrote when the command runs it by its path (`./s.ps1`,
// `& ./s.ps1`, `. ./s.ps1`): in PowerShell, or in bash for a .sh. Content the line does not show
// is asked about.
func (p *psParser) runFile(wd rules.Word, ch chain, call int) {
	if !wd.Literal || !strings.ContainsAny(wd.Value, `/\`) {
		return
	}
	fs, ok := p.file(wd)
	switch {
	case !ok || fs.program != "" || fs.link != "":
	case !fs.known:
		p.w.unknownScript(call, wd.Value)
	default:
		d := psDialect
		if strings.HasSuffix(strings.ToLower(wd.Value), ".sh") {
			d = bashDialect
		}
		p.w.readScript(d, p.s.child(fs.content), wd.Value, ch, nil, p.nest)
	}
}

// psDecode is text PowerShell decodes from a literal: [Text.Encoding]::UTF8 (or Unicode,
// ASCII, Default) .GetString([Convert]::FromBase64String('…')), also with System. and in a group.
// Compiled on first use.
var psDecode = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^\[(?:system\.)?text\.encoding\]::(utf8|unicode|ascii|default)\.getstring\(\s*\[(?:system\.)?convert\]::frombase64string\(\s*'([A-Za-z0-9+/=\s]*)'\s*\)\s*\)$`)
})

// decoded returns the text a decoding expression gives, when it decodes a literal.
func decoded(expr string) (string, bool) {
	expr = strings.TrimSpace(expr)
	if strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, "))") {
		expr = strings.TrimSpace(expr[1 : len(expr)-1])
	}
	m := psDecode().FindStringSubmatch(expr)
	if m == nil {
		return "", false
	}
	if strings.EqualFold(m[1], "unicode") {
		return decodeEncoded(rules.Word{Value: m[2], Literal: true})
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(m[2]), ""))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// psItems is what a foreach collection or a pipeline may hold, as the line writes it: the items
// of a list of strings, what Get-ChildItem lists (a folder's children, `folder/*`, or what a
// pattern matches), else the text itself.
func psItems(text string) []string {
	text = strings.TrimSpace(text)
	f := strings.Fields(text)
	if len(f) >= 2 && slices.Contains([]string{"get-childitem", "gci", "ls", "dir"}, strings.ToLower(f[0])) {
		p := strings.Trim(f[len(f)-1], `'"`)
		if strings.ContainsAny(p[strings.LastIndexAny(p, `/\`)+1:], "*?[") {
			return []string{p}
		}
		return []string{strings.TrimRight(p, `/\`) + "/*", p}
	}
	var out []string
	for _, it := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(text, "@("), ")"), ",") {
		out = append(out, strings.Trim(strings.TrimSpace(it), `'"`))
	}
	return out
}
