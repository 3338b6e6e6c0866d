package policy

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// words is a list of strings that YAML may also write as one string (tool: Write), as in
// provider files.
type words = spec.Strings

// oneOrMany is a list that YAML may also write as its one item (when: {…} or when: [{…}, …]).
type oneOrMany[T any] []*T

// UnmarshalYAML decodes a list, or else one item. A mapping given for the list fails at once,
// before any of its content is decoded, with a message that names the list's type; any other
// failure is the list's own and is returned as it is. (Probing the node's kind by decoding it
// into an interface first cost a second decode of every condition at every hook run.)
func (o *oneOrMany[T]) UnmarshalYAML(unmarshal func(any) error) error {
	err := unmarshal((*[]*T)(o))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("cannot unmarshal !!map into []*%T", *new(T))) {
		return err
	}
	one := new(T)
	if err := unmarshal(one); err != nil {
		return err
	}
	*o = oneOrMany[T]{one}
	return nil
}

// conditionSchema is one item of a rule's when or unless (the README's "Conditions").
type conditionSchema struct {
	Unattended     *bool                      `yaml:"unattended"`
	PermissionMode words                      `yaml:"permission_mode"`
	Agent          words                      `yaml:"agent"`
	Harness        words                      `yaml:"harness"`
	Cwd            words                      `yaml:"cwd"`
	Context        contextMatch               `yaml:"context"`
	Env            map[string]words           `yaml:"env"`
	Host           words                      `yaml:"host"`
	Groups         words                      `yaml:"groups"`
	Time           oneOrMany[windowSchema]    `yaml:"time"`
	Dates          oneOrMany[dateRangeSchema] `yaml:"dates"`
}

// contextMatch is a context condition: a pattern or a list of them, each one an id or name glob
// or a mapping of fields to globs ({type: Production}).
type contextMatch []map[string]words

func (c *contextMatch) UnmarshalYAML(unmarshal func(any) error) error {
	var probe any
	if err := unmarshal(&probe); err != nil {
		return err
	}
	var items []any
	switch p := probe.(type) {
	case []any:
		items = p
	default:
		items = []any{p}
	}
	for _, it := range items {
		switch v := it.(type) {
		case string:
			*c = append(*c, map[string]words{"": {v}})
		case map[string]any:
			m := map[string]words{}
			for k, x := range v {
				var ws words
				switch y := x.(type) {
				case string:
					ws = words{y}
				case []any:
					for _, z := range y {
						s, ok := z.(string)
						if !ok {
							return fmt.Errorf("context field %s: want a string or a list of strings", k)
						}
						ws = append(ws, s)
					}
				default:
					return fmt.Errorf("context field %s: want a string or a list of strings", k)
				}
				m[k] = ws
			}
			*c = append(*c, m)
		default:
			return fmt.Errorf("context: want a pattern, a list of patterns or a mapping of fields to patterns")
		}
	}
	return nil
}

// windowSchema is a weekly time window.
type windowSchema struct {
	Days words   `yaml:"days"`
	From *string `yaml:"from"`
	To   *string `yaml:"to"`
	TZ   *string `yaml:"tz"`
}

// dateRangeSchema is a change freeze.
type dateRangeSchema struct {
	From *string `yaml:"from"`
	To   *string `yaml:"to"`
	TZ   *string `yaml:"tz"`
}

// The words of the conditions that take words.
var (
	agentWords = []string{rules.AgentMain, rules.AgentSubagent}
	dayNames   = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
)

// conditions compiles a when or unless list. dir is the policy file's directory, which relative
// path patterns are taken from.
func (c *checker) conditions(path string, cs *oneOrMany[conditionSchema], dir string) []rules.Condition {
	var out []rules.Condition
	for i, s := range *cs {
		p := c.item(path, i)
		if s == nil {
			c.errorf(p, "empty condition: leave it out, or give it a key")
			continue
		}
		out = append(out, c.condition(p, s, dir))
	}
	return out
}

func (c *checker) condition(path string, s *conditionSchema, dir string) rules.Condition {
	cond := rules.Condition{
		Unattended: s.Unattended,
		Modes:      c.nonEmpty(path+".permission_mode", s.PermissionMode),
		Agents:     c.oneOf(path+".agent", s.Agent, agentWords),
		Harnesses:  c.oneOf(path+".harness", s.Harness, harness.Names()),
		Hosts:      c.globs(path+".host", s.Host),
		Groups:     c.nonEmpty(path+".groups", s.Groups),
	}
	for i, g := range s.Cwd {
		if p, ok := c.pathPattern(c.item(path+".cwd", i), g, dir); ok {
			cond.Cwd = append(cond.Cwd, p)
		}
	}
	for i, m := range s.Context {
		p := c.item(path+".context", i)
		var cp rules.ContextPattern
		for _, field := range slices.Sorted(maps.Keys(m)) {
			fp := p
			if field != "" {
				fp += "." + field
				if !validField(field) {
					c.errorf(fp, "context field %q must be lowercase letters, digits and _ (id, name, or a field the provider names)", field)
					continue
				}
			}
			cp = append(cp, rules.FieldPattern{Field: field, Globs: c.globs(fp, m[field])})
		}
		cond.Context = append(cond.Context, cp)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Env)) {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "= \t") {
			c.errorf(path+".env."+name, "env %q is not a variable name", name)
			continue
		}
		cond.Env = append(cond.Env, rules.EnvPattern{Name: name, Globs: c.globs(path+".env."+name, s.Env[name])})
	}
	for i, w := range s.Time {
		if win, ok := c.window(c.item(path+".time", i), w); ok {
			cond.Times = append(cond.Times, win)
		}
	}
	for i, d := range s.Dates {
		if r, ok := c.dateRange(c.item(path+".dates", i), d); ok {
			cond.Dates = append(cond.Dates, r)
		}
	}
	return cond
}

// item is the position path of item i of a list that YAML may write as its one item.
func (c *checker) item(path string, i int) string {
	p := path + "." + strconv.Itoa(i)
	if _, ok := c.pos.At(p); ok {
		return p
	}
	return path
}

func validField(f string) bool {
	if f == "" || f[0] < 'a' || f[0] > 'z' {
		return false
	}
	return strings.IndexFunc(f, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') }) < 0
}

// nonEmpty checks that no item of a list is empty.
func (c *checker) nonEmpty(path string, ws words) []string {
	var out []string
	for i, w := range ws {
		if strings.TrimSpace(w) == "" {
			c.errorf(c.item(path, i), "empty value")
			continue
		}
		out = append(out, w)
	}
	return out
}

// globs checks * patterns as the allow lists are checked.
func (c *checker) globs(path string, ws words) []string {
	var out []string
	for i, w := range ws {
		if c.pattern(c.item(path, i), &w) {
			out = append(out, w)
		}
	}
	return out
}

// oneOf checks that every item is one of allowed.
func (c *checker) oneOf(path string, ws words, allowed []string) []string {
	var out []string
	for i, w := range ws {
		if !slices.Contains(allowed, w) {
			key := path[strings.LastIndexByte(path, '.')+1:]
			c.errorf(c.item(path, i), "%s %q is not one of %s", key, w, strings.Join(allowed, ", "))
			continue
		}
		out = append(out, w)
	}
	return out
}

// pathPattern checks a path glob (cwd, path) and records the directory it is relative to.
func (c *checker) pathPattern(path, glob, dir string) (rules.PathPattern, bool) {
	switch {
	case strings.TrimSpace(glob) == "":
		c.errorf(path, "empty path pattern")
	case strings.TrimSpace(glob) != glob:
		c.errorf(path, "invalid path pattern %q: spaces around it never match", glob)
	default:
		if err := rules.ValidPath(glob); err != nil {
			c.errorf(path, "invalid path pattern %q: %v", glob, err)
			break
		}
		return rules.PathPattern{Glob: glob, Dir: filepath.ToSlash(dir)}, true
	}
	return rules.PathPattern{}, false
}

// content compiles a content pattern (RE2 syntax, https://golang.org/s/re2syntax).
func (c *checker) content(path string, re *string) *regexp.Regexp {
	if re == nil {
		return nil
	}
	if *re == "" {
		c.errorf(path, "empty content pattern: it would match every write")
		return nil
	}
	x, err := regexp.Compile(*re)
	if err != nil {
		c.errorf(path, "invalid content pattern %q: %v", *re, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return x
}

// location loads a time zone. An unknown zone is an error here, at the policy's line, and never
// a window that silently never holds.
func (c *checker) location(path string, tz *string) (*time.Location, bool) {
	if tz == nil {
		return time.Local, true
	}
	if *tz == "" || *tz == "Local" {
		c.errorf(path, "tz %q: name an IANA time zone (Europe/Berlin, UTC), or leave tz out for the machine's local time", *tz)
		return nil, false
	}
	loc, err := time.LoadLocation(*tz)
	if err != nil {
		c.errorf(path, "unknown time zone %q (want an IANA name such as Europe/Berlin or UTC): %v", *tz, err)
		return nil, false
	}
	return loc, true
}

// window checks a weekly time window: days (default every day), from and to as HH:MM (to may be
// 24:00), tz.
func (c *checker) window(path string, w *windowSchema) (rules.Window, bool) {
	if w == nil {
		c.errorf(path, "empty time window: want days, from, to and tz")
		return rules.Window{}, false
	}
	ok := true
	win := rules.Window{Days: 0x7f}
	if len(w.Days) > 0 {
		win.Days = 0
		for i, d := range w.Days {
			mask, good := days(d)
			if !good {
				c.errorf(c.item(path+".days", i), "day %q is not one of %s, or a range such as mon-fri", d, strings.Join(dayNames, ", "))
				ok = false
			}
			win.Days |= mask
		}
	}
	clock := func(key string, v *string, limit int) int {
		if v == nil {
			c.errorf(path, "a time window needs %s (HH:MM)", key)
			ok = false
			return 0
		}
		m, good := minutes(*v, limit)
		if !good {
			c.errorf(path+"."+key, "%s %q is not a time of day (HH:MM, 00:00 to %02d:00)", key, *v, limit/60)
			ok = false
		}
		return m
	}
	win.From = clock("from", w.From, 23*60+59)
	win.To = clock("to", w.To, 24*60)
	if ok && win.From == win.To {
		c.errorf(path+".to", "from and to are both %s: the window is empty", *w.From)
		ok = false
	}
	loc, good := c.location(path+".tz", w.TZ)
	win.Loc, ok = loc, ok && good
	win.Text = windowText(w)
	return win, ok
}

func windowText(w *windowSchema) string {
	var b strings.Builder
	if len(w.Days) > 0 {
		b.WriteString(strings.Join(w.Days, ","))
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "%s-%s", deref(w.From), deref(w.To))
	if w.TZ != nil {
		b.WriteString(" " + *w.TZ)
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// days reads a day name or a range of them (mon-fri, fri-mon) as a mask of time.Weekday bits.
func days(s string) (uint8, bool) {
	from, to, isRange := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "-")
	a := slices.Index(dayNames, from)
	if !isRange {
		if a < 0 {
			return 0, false
		}
		return 1 << a, true
	}
	b := slices.Index(dayNames, to)
	if a < 0 || b < 0 {
		return 0, false
	}
	var mask uint8
	for d := a; ; d = (d + 1) % 7 {
		mask |= 1 << d
		if d == b {
			return mask, true
		}
	}
}

// minutes reads HH:MM as minutes after midnight, at most limit.
func minutes(s string, limit int) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) != 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 {
		return 0, false
	}
	v := hh*60 + mm
	return v, v <= limit
}

// dateRange checks a change freeze: from and to as YYYY-MM-DD, to not before from.
func (c *checker) dateRange(path string, d *dateRangeSchema) (rules.DateRange, bool) {
	if d == nil {
		c.errorf(path, "empty date range: want from, to and tz")
		return rules.DateRange{}, false
	}
	ok := true
	date := func(key string, v *string) rules.Date {
		if v == nil {
			c.errorf(path, "a date range needs %s (YYYY-MM-DD)", key)
			ok = false
			return rules.Date{}
		}
		t, err := time.Parse(time.DateOnly, *v)
		if err != nil {
			c.errorf(path+"."+key, "%s %q is not a date (YYYY-MM-DD)", key, *v)
			ok = false
			return rules.Date{}
		}
		return rules.Date{Year: t.Year(), Month: t.Month(), Day: t.Day()}
	}
	r := rules.DateRange{From: date("from", d.From), To: date("to", d.To)}
	if ok && *d.To < *d.From {
		c.errorf(path+".to", "to %s is before from %s", *d.To, *d.From)
		ok = false
	}
	loc, good := c.location(path+".tz", d.TZ)
	r.Loc, ok = loc, ok && good
	r.Text = deref(d.From) + ".." + deref(d.To)
	if d.TZ != nil {
		r.Text += " " + *d.TZ
	}
	return r, ok
}
