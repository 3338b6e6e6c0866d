package shell

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ctxguard/ctxguard/rules"
)

// Quote shell-quotes a value for bash so that it reaches the command as one word, unchanged.
// Plain words ("prod", "11111111-1111-1111-1111-111111111111") stay bare. A NUL cannot be passed
// in an argument at all, so the value is cut there, as the kernel would.
func Quote(s string) string { return quote(s, syntax.LangBash) }

// QuotePOSIX is [Quote] for a POSIX sh (a hook line that a harness runs with sh -c), which has no
// $'…' for a character that is not printable: such a value is single-quoted as it is.
func QuotePOSIX(s string) string { return quote(s, syntax.LangPOSIX) }

func quote(s string, lang syntax.LangVariant) string {
	s = beforeNUL(s)
	q, err := syntax.Quote(s, lang)
	if err != nil {
		// Single quotes keep every byte but NUL, in every POSIX shell.
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

// Rewrite applies edits (insertions at byte offsets of src, for calls with Nested == false) all
// together, re-parses the result and checks that it has exactly the calls src had, each with the
// same words, plus the inserted words and assignments; an inserted `env VAR=x ` may add an env
// call in front of the call it wraps. A word that contains an edited call (`$(az x)`, or a
// `bash -c "…$(az x)…"` string) changes only in that call's text. Edits at the same offset keep
// their order. Anything else (an edit inside a quoted string, text that adds a command, a
// redirection or an expansion, a word split in two, words that no call receives) is an error:
// the engine must never emit a line whose meaning it did not intend.
func Rewrite(src string, edits []rules.Edit) (string, error) {
	return rewriteParsed(src, nil, edits, Parse, editItems)
}

// RewriteCalls is [Rewrite] for a line already parsed: calls are what [Parse] returned for src,
// and only the edited line is parsed again.
func RewriteCalls(src string, calls []rules.Call, edits []rules.Edit) (string, error) {
	if calls == nil {
		calls = []rules.Call{}
	}
	return rewriteParsed(src, calls, edits, Parse, editItems)
}

// beforeNUL is s up to its first NUL: no argument can hold one, and the kernel would cut it there.
func beforeNUL(s string) string {
	s, _, _ = strings.Cut(s, "\x00")
	return s
}

// rewriteParsed applies and verifies edits with a language's reader: parse for the lines, items
// for the edits' texts. old is src's calls; nil parses src. An edit's text is read once however
// many calls it binds (a line of a thousand kubectl calls gets a thousand " --context dev").
func rewriteParsed(src string, old []rules.Call, edits []rules.Edit, parse func(string) ([]rules.Call, error), itemsOf func(string) ([]string, error)) (string, error) {
	if len(edits) == 0 {
		return src, nil
	}
	if old == nil {
		var err error
		if old, err = parse(src); err != nil {
			return "", fmt.Errorf("rewrite: %w", err)
		}
	}
	read := map[string][]string{}
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b rules.Edit) int { return cmp.Compare(a.At, b.At) })
	var b strings.Builder
	regions := make([]region, len(sorted))
	prev := 0
	for i, e := range sorted {
		if e.At < prev || e.At > len(src) {
			return "", fmt.Errorf("rewrite: edit offset %d outside the line (length %d)", e.At, len(src))
		}
		items, ok := read[e.Text]
		if !ok {
			var err error
			if items, err = itemsOf(e.Text); err != nil {
				return "", fmt.Errorf("rewrite: edit %q at %d: %w", e.Text, e.At, err)
			}
			read[e.Text] = items
		}
		b.WriteString(src[prev:e.At])
		start := b.Len()
		b.WriteString(e.Text)
		regions[i] = region{start: start, end: b.Len(), items: items, edit: e}
		prev = e.At
	}
	b.WriteString(src[prev:])
	res := b.String()
	calls, err := parse(res)
	if err != nil {
		return "", fmt.Errorf("rewrite: the edited line does not parse: %w", err)
	}
	v := &verifier{line: res, regions: regions, found: make([]bool, len(regions)), shift: make([]int, len(regions)+1)}
	for i, r := range regions {
		v.shift[i+1] = v.shift[i] + r.end - r.start
	}
	if err := v.check(old, calls); err != nil {
		return "", fmt.Errorf("rewrite: %w", err)
	}
	return res, nil
}

// region is an inserted text in the edited line, and the words it should become.
type region struct {
	start, end int
	items      []string // "word" or "NAME=value", in order
	edit       rules.Edit
}

// editItems parses an edit's text on its own: it must be plain words and assignments, nothing
// that runs, redirects or expands.
func editItems(text string) ([]string, error) {
	f, err := parseScript(text)
	if err != nil {
		return nil, err
	}
	if len(f.Stmts) != 1 {
		if len(f.Stmts) == 0 {
			return nil, fmt.Errorf("inserts no words")
		}
		return nil, fmt.Errorf("inserts %d commands", len(f.Stmts))
	}
	st := f.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || st.Disown || st.Semicolon.IsValid() || len(st.Redirs) > 0 {
		return nil, fmt.Errorf("is not a list of words")
	}
	var items []string
	for _, a := range ce.Assigns {
		if a.Name == nil || a.Append || a.Array != nil || a.Index != nil {
			return nil, fmt.Errorf("has an assignment that is not NAME=value")
		}
		v := ""
		if a.Value != nil {
			var lit bool
			if v, lit = wordValue(a.Value, true); !lit {
				return nil, fmt.Errorf("has an expansion")
			}
		}
		items = append(items, a.Name.Value+"="+v)
	}
	for _, wd := range ce.Args {
		v, lit := wordValue(wd, false)
		if !lit {
			return nil, fmt.Errorf("has an expansion")
		}
		items = append(items, v)
	}
	return items, nil
}

type verifier struct {
	line    string
	regions []region // sorted and disjoint: a word is placed by binary search, not a scan
	found   []bool
	shift   []int // shift[i] is the length of the first i regions
	hint    int   // the last answer of firstEnd
}

// firstEnd is the index of the first region that ends at or after p (after p, when past is
// set), or len(regions). A line's words are checked in order, five lookups each, so the last
// answer is tried before a binary search.
func (v *verifier) firstEnd(p int, past bool) int {
	ends := func(i int) bool { return v.regions[i].end > p || !past && v.regions[i].end == p }
	if h := v.hint; (h == len(v.regions) || ends(h)) && (h == 0 || !ends(h-1)) {
		return h
	}
	v.hint = sort.Search(len(v.regions), ends)
	return v.hint
}

// overlap says how a word of the edited line relates to the inserted regions.
type overlap int

const (
	outside   overlap = iota
	within            // the word is (part of) an inserted text
	encloses          // the word contains inserted texts: a substitution that holds an edited call
	straddles         // the word mixes inserted and original text: the edit merged with it
)

// place returns how [p, e) relates to the regions, and the region it lies within.
func (v *verifier) place(p, e int) (overlap, int) {
	// A word ends after a line continuation that follows it (`dev\` and a newline): those two
	// bytes are not text of the word, and an edit's last word may meet one.
	for e-2 > p && v.line[e-2:e] == "\\\n" {
		e -= 2
	}
	// The first region that ends at or after p is the first that can touch [p, e).
	first := v.firstEnd(p, false)
	res := outside
	for i := first; i < len(v.regions) && v.regions[i].start <= e; i++ {
		r := v.regions[i]
		switch {
		case p == e:
			// An empty word (the value of `NAME=`) sits right after its `=`.
			if r.start < p && p <= r.end {
				return within, i
			}
		case r.start <= p && e <= r.end:
			return within, i
		case p < r.start && r.end < e:
			res = encloses
		case p < r.end && r.start < e:
			return straddles, -1
		}
	}
	return res, -1
}

// back maps a word of the edited line to the original line. A word enclosing inserted text
// must be non-literal (its value is its source text, from which the insertions are removed).
func (v *verifier) back(w rules.Word) (rules.Word, error) {
	if w.Pos < 0 {
		return w, nil
	}
	switch o, _ := v.place(w.Pos, w.End); o {
	case straddles:
		return w, fmt.Errorf("the edit merges with the word %q", w.Value)
	case encloses:
		if w.Literal {
			return w, fmt.Errorf("the edit lands inside the word %q", w.Value)
		}
		var b strings.Builder
		at := w.Pos
		for _, r := range v.regions {
			if w.Pos < r.start && r.end < w.End {
				b.WriteString(v.line[at:r.start])
				at = r.end
			}
		}
		b.WriteString(v.line[at:w.End])
		w.Value = b.String()
	}
	w.Pos, w.End = v.toOld(w.Pos), v.toOld(w.End)
	return w, nil
}

// toOld maps an offset of the edited line outside the regions back to the original line.
func (v *verifier) toOld(p int) int {
	if p < 0 {
		return p
	}
	return p - v.shift[v.firstEnd(p, true)]
}

func (v *verifier) envEdit() bool {
	return slices.ContainsFunc(v.regions, func(r region) bool { return len(r.items) > 0 && r.items[0] == "env" })
}

// insertedAssign reports whether some edit inserts NAME=value (as a prefix or through env).
func (v *verifier) insertedAssign(a rules.Assign) bool {
	want := a.Name + "=" + a.Value.Value
	for _, r := range v.regions {
		if slices.Contains(r.items, want) {
			return true
		}
	}
	return false
}

func (v *verifier) check(old, calls []rules.Call) error {
	oi := 0
	for _, nc := range calls {
		if !nc.Nested && nc.Src == v.line {
			if o, k := v.place(nc.NameWord.Pos, nc.NameWord.End); o == within && nc.NameWord.End > nc.NameWord.Pos {
				if nc.Name != "env" {
					return fmt.Errorf("edit %q adds the command %q", v.regions[k].edit.Text, nc.NameWord.Value)
				}
				if err := v.items(nc, false); err != nil {
					return err
				}
				continue
			}
		}
		if oi >= len(old) {
			return fmt.Errorf("the edited line runs more commands than the original (%q)", nc.NameWord.Value)
		}
		if err := v.same(old[oi], nc); err != nil {
			return fmt.Errorf("command %d (%s): %w", oi+1, label(old[oi]), err)
		}
		oi++
	}
	if oi != len(old) {
		return fmt.Errorf("the edited line runs fewer commands than the original")
	}
	for i, ok := range v.found {
		if !ok {
			return fmt.Errorf("edit %q at %d does not become words of any command", v.regions[i].edit.Text, v.regions[i].edit.At)
		}
	}
	return nil
}

func label(c rules.Call) string {
	if c.Name != "" {
		return c.Name
	}
	return c.NameWord.Value
}

func (v *verifier) same(was, nc rules.Call) error {
	if was.Name != nc.Name {
		return fmt.Errorf("command word %q became %q", was.NameWord.Value, nc.NameWord.Value)
	}
	if was.Nested != nc.Nested || was.Dir != nc.Dir || was.DirUnknown != nc.DirUnknown || was.ArgsAppended != nc.ArgsAppended {
		return fmt.Errorf("the edit changes where or how the command runs")
	}
	viaEnv := false
	if !slices.Equal(was.Via, nc.Via) {
		i := slices.Index(nc.Via, "env")
		if !v.envEdit() || i < 0 || !slices.Equal(was.Via, slices.Delete(slices.Clone(nc.Via), i, i+1)) {
			return fmt.Errorf("wrappers %q became %q", was.Via, nc.Via)
		}
		viaEnv = true
	}
	if was.Nested {
		// A nested script may differ only inside expansions (an edited call in a `$(…)` that
		// the string contains); its literal words must stay the same. The edit's words must
		// still land in some call of the line, which check verifies.
		loose := was.Src != nc.Src
		if !sameWord(was.NameWord, nc.NameWord, loose) || len(was.Args) != len(nc.Args) {
			return fmt.Errorf("the edit changes a nested script")
		}
		for i := range was.Args {
			if !sameWord(was.Args[i], nc.Args[i], loose) {
				return fmt.Errorf("the edit changes a nested script")
			}
		}
		var keep []rules.Assign
		var dropped []string
		for _, a := range nc.Env {
			if a.Prefix && a.Value.Pos < 0 && v.insertedAssign(a) {
				dropped = append(dropped, a.Name)
				continue
			}
			keep = append(keep, a)
		}
		if loose {
			return sameEnvLoose(was.Env, keep, dropped)
		}
		return sameEnv(was.Env, keep, dropped)
	}

	if nc.Src != v.line {
		return fmt.Errorf("the edit changes a nested script")
	}
	if nw, err := v.back(nc.NameWord); err != nil {
		return err
	} else if nw != was.NameWord {
		return fmt.Errorf("the edit changes the command word")
	}
	if err := v.items(nc, viaEnv); err != nil {
		return err
	}
	ki := 0
	for _, a := range nc.Args {
		if o, _ := v.place(a.Pos, a.End); o == within {
			continue
		}
		old, err := v.back(a)
		if err != nil {
			return err
		}
		if ki >= len(was.Args) || old != was.Args[ki] {
			return fmt.Errorf("the edit changes the argument %q", a.Value)
		}
		ki++
	}
	if ki != len(was.Args) {
		return fmt.Errorf("the edit removes arguments")
	}
	var keep []rules.Assign
	var dropped []string
	for _, a := range nc.Env {
		if a.Prefix && a.Value.Pos >= 0 {
			if o, _ := v.place(a.Value.Pos, a.Value.End); o == within {
				dropped = append(dropped, a.Name)
				continue
			}
		}
		if a.Prefix && a.Value.Pos < 0 && v.insertedAssign(a) {
			dropped = append(dropped, a.Name)
			continue
		}
		var err error
		if a.Value, err = v.back(a.Value); err != nil {
			return err
		}
		keep = append(keep, a)
	}
	return sameEnv(was.Env, keep, dropped)
}

// sameEnv compares environments, ignoring the variables an edit sets.
func sameEnv(old, keep []rules.Assign, dropped []string) error {
	var want []rules.Assign
	for _, a := range old {
		if !slices.Contains(dropped, a.Name) {
			want = append(want, a)
		}
	}
	if !slices.Equal(want, keep) {
		return fmt.Errorf("the edit changes the environment")
	}
	return nil
}

// sameWord compares words; loosely, a non-literal word may have another source text.
func sameWord(a, b rules.Word, loose bool) bool {
	if !loose {
		return a == b
	}
	return a.Literal == b.Literal && (!a.Literal || a.Value == b.Value)
}

func sameEnvLoose(old, keep []rules.Assign, dropped []string) error {
	var want []rules.Assign
	for _, a := range old {
		if !slices.Contains(dropped, a.Name) {
			want = append(want, a)
		}
	}
	if !slices.EqualFunc(want, keep, func(a, b rules.Assign) bool {
		return a.Name == b.Name && a.Prefix == b.Prefix && sameWord(a.Value, b.Value, true)
	}) {
		return fmt.Errorf("the edit changes the environment")
	}
	return nil
}

// items checks that every region's words that landed in this call are exactly the region's
// words (or, for the call an inserted env wraps, the words after "env").
func (v *verifier) items(nc rules.Call, viaEnv bool) error {
	type item struct {
		pos  int
		text string
	}
	// The items by region: a call touches few of the line's regions, mostly one.
	type touched struct {
		k   int
		its []item
	}
	var got []touched
	add := func(w rules.Word, text string) {
		o, k := v.place(w.Pos, w.End)
		if o != within {
			return
		}
		i := slices.IndexFunc(got, func(r touched) bool { return r.k == k })
		if i < 0 {
			i, got = len(got), append(got, touched{k: k})
		}
		got[i].its = append(got[i].its, item{w.Pos, text})
	}
	add(nc.NameWord, nc.NameWord.Value)
	for _, a := range nc.Args {
		add(a, a.Value)
	}
	for _, a := range nc.Env {
		if a.Prefix && a.Value.Pos >= 0 {
			add(a.Value, a.Name+"="+a.Value.Value)
		}
	}
	slices.SortFunc(got, func(a, b touched) int { return cmp.Compare(a.k, b.k) })
	for _, r := range got {
		slices.SortStableFunc(r.its, func(a, b item) int { return cmp.Compare(a.pos, b.pos) })
		is := func(want []string) bool {
			return slices.EqualFunc(r.its, want, func(it item, w string) bool { return it.text == w })
		}
		want := v.regions[r.k].items
		switch {
		case is(want):
		case viaEnv && len(want) > 0 && want[0] == "env" && is(want[1:]):
		default:
			texts := make([]string, len(r.its))
			for i, it := range r.its {
				texts[i] = it.text
			}
			return fmt.Errorf("edit %q becomes %q in %s, not %q", v.regions[r.k].edit.Text, texts, label(nc), want)
		}
		v.found[r.k] = true
	}
	return nil
}
