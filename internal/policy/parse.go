package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/rules"
)

// fileSchema is a policy file as written (the README's "Policy reference"). Optional scalars are
// pointers so that a key written with an empty value is told apart from a key not written, and
// list items are pointers because yaml.v3 silently drops a null item ("-" alone) from a list of
// non-pointers: an empty allow entry or rule would vanish instead of being reported.
type fileSchema struct {
	Version     *int                      `yaml:"version"`
	Contexts    map[string]*contextSchema `yaml:"contexts"`
	Destructive *string                   `yaml:"destructive"`
	Rewrite     *string                   `yaml:"rewrite"`
	Session     *sessionSchema            `yaml:"session"`
	Rules       []*ruleSchema             `yaml:"rules"`
	// Audit is true, false or {path, max_size}; see audit.go.
	Audit any `yaml:"audit"`
	// Tests are run by `ctxguard test` (see tests.go); a hook run decodes them and no more.
	Tests []*testSchema `yaml:"tests"`
}

// sessionSchema is what the policy says about session memory (the switches ctxguard remembers
// for an agent session, to bind that session's later commands to them).
type sessionSchema struct {
	Remember *bool `yaml:"remember"`
}

type contextSchema struct {
	// Allow is nil when not written; written empty (allow: []) it allows no context at all.
	Allow   *[]*string `yaml:"allow"`
	Default *string    `yaml:"default"`
	Unbound *string    `yaml:"unbound"`
}

type ruleSchema struct {
	ID       *string                    `yaml:"id"`
	Match    string                     `yaml:"match"`
	Tool     words                      `yaml:"tool"`
	Path     words                      `yaml:"path"`
	Content  *string                    `yaml:"content"`
	When     oneOrMany[conditionSchema] `yaml:"when"`
	Unless   oneOrMany[conditionSchema] `yaml:"unless"`
	Decision string                     `yaml:"decision"`
	Reason   string                     `yaml:"reason"`
}

// rewriteAllowNote says why rewrite: allow, which older files may hold, is not read.
const rewriteAllowNote = "rewrite: allow is no longer read: a rewrite never approves a command, the harness's own permission rules decide on the bound command as they would have on the original (remove the key; rewrite: ask has a human confirm every rewrite)"

// The words each setting accepts, strictest last.
var (
	unboundWords     = []rules.Setting{rules.SettingAllow, rules.SettingFix, rules.SettingAsk, rules.SettingDeny}
	destructiveWords = []rules.Setting{rules.SettingAllow, rules.SettingAsk, rules.SettingDeny}
	rewriteWords     = []rules.Setting{rules.SettingAsk}
	decisionWords    = []rules.Setting{rules.SettingAllow, rules.SettingAsk, rules.SettingDeny}
)

// Parse reads one policy file of the given layer into a policy of its own, as Load would before
// merging it; `ctxguard validate` uses it on a single file. providers are the known provider
// names. Every problem in the file is reported, each as a [*codec.Error] naming file:line:col;
// several come back joined.
func Parse(data []byte, file, layer string, providers []string) (*Policy, error) {
	return parse(codec.Cache{}, data, file, layer, providers)
}

// parse is Parse with the YAML tree read through a cache (Load's), which gives what Parse gives.
func parse(cache codec.Cache, data []byte, file, layer string, providers []string) (*Policy, error) {
	var s fileSchema
	pos, err := cache.Decode(data, file, &s)
	if pos == nil {
		return nil, err
	}
	c := checker{pos: pos, problems: codec.NewProblems(pos, err)}
	p := &Policy{Policy: rules.Policy{
		Files:    []rules.PolicyFile{{Layer: layer, File: file}},
		Contexts: map[string]*rules.ContextPolicy{},
	}}
	if s.Version != nil && *s.Version != 1 {
		c.errorf("version", "unsupported version %d: this ctxguard reads version 1; write version: 1", *s.Version)
	}
	for name, cs := range s.Contexts {
		if !slices.Contains(providers, name) {
			hint := codec.DidYouMean(name, providers)
			if hint == "" {
				hint = fmt.Sprintf(" (known: %s): name one of them, or add a provider file for %s to the providers folder first", strings.Join(providers, ", "), name)
			}
			c.errorf("contexts."+name, "unknown provider %q%s", name, hint)
			continue
		}
		p.Contexts[name] = c.context("contexts."+name, cs)
	}
	p.Destructive, p.DestructiveSrc = c.setting("destructive", s.Destructive, destructiveWords)
	if s.Rewrite != nil && *s.Rewrite == rules.SettingAllow.String() {
		// rewrite: allow once answered every rewrite with allow, which skipped the harness's own
		// permission rules; a rewrite now leaves them to decide. Old files keep loading.
		p.Notes = append(p.Notes, c.pos.Errorf("rewrite", "%s", rewriteAllowNote).Error())
	} else {
		p.RewriteMode, p.RewriteModeSrc = c.setting("rewrite", s.Rewrite, rewriteWords)
	}
	if s.Session != nil && s.Session.Remember != nil && !*s.Session.Remember {
		p.Forget, p.ForgetSrc = true, c.src("session.remember")
	}
	p.Rules = c.rules(s.Rules, layer, filepath.Dir(file))
	p.Audit = c.audit(s.Audit, layer)
	if err := c.problems.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// checker validates a decoded file against the positions of its items, collecting every problem
// with the decoder's.
type checker struct {
	pos      *codec.Positions
	problems *codec.Problems
}

func (c *checker) errorf(path, format string, args ...any) { c.problems.Add(path, format, args...) }

// src is where the item at path is written.
func (c *checker) src(path string) rules.Source {
	at, _ := c.pos.At(path)
	return rules.Source{File: c.pos.File(), Line: at.Line}
}

// setting reads a setting word that must be one of allowed.
func (c *checker) setting(path string, word *string, allowed []rules.Setting) (rules.Setting, rules.Source) {
	if word == nil {
		return rules.SettingUnset, rules.Source{}
	}
	s, ok := rules.ParseSetting(*word)
	if !ok || !slices.Contains(allowed, s) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = a.String()
		}
		key := path[strings.LastIndexByte(path, '.')+1:]
		c.errorf(path, "%s %q is not one of %s%s", key, *word, strings.Join(names, ", "), codec.DidYouMean(*word, names))
		return rules.SettingUnset, rules.Source{}
	}
	return s, c.src(path)
}

// context reads one provider's settings. A provider written with no settings still gets a
// ContextPolicy: naming it opts its calls into the context check (with unbound fix by default).
func (c *checker) context(path string, cs *contextSchema) *rules.ContextPolicy {
	cp := &rules.ContextPolicy{}
	if cs == nil {
		return cp
	}
	if cs.Allow != nil {
		list := rules.AllowList{Patterns: make([]string, 0, len(*cs.Allow)), Src: c.src(path + ".allow")}
		for i, pat := range *cs.Allow {
			if c.pattern(path+".allow."+strconv.Itoa(i), pat) {
				list.Patterns = append(list.Patterns, *pat)
			}
		}
		cp.Allow = []rules.AllowList{list}
	}
	if cs.Default != nil {
		c.def(path+".default", *cs.Default, cp)
	}
	cp.Unbound, cp.UnboundSrc = c.setting(path+".unbound", cs.Unbound, unboundWords)
	return cp
}

// pattern checks one allow entry. In an allow pattern only * is special (any run of characters,
// slashes included) and the engine compares the rest exactly, so the mistakes worth catching are
// an empty entry and characters no context name has: spaces around it and control characters.
func (c *checker) pattern(path string, p *string) bool {
	pat := ""
	if p != nil {
		pat = *p
	}
	switch {
	case strings.TrimSpace(pat) == "":
		c.errorf(path, "empty allow entry")
	case strings.TrimSpace(pat) != pat:
		c.errorf(path, "invalid allow pattern %q: spaces around it never match", pat)
	case strings.IndexFunc(pat, unicode.IsControl) >= 0:
		c.errorf(path, "invalid allow pattern %q: it has a control character", pat)
	default:
		return true
	}
	return false
}

// def checks a default: one value, and one that the same file's allow list lets through (as
// written: a default named by its id where the list names the context by its name cannot be
// checked without the state file, so it must be written the way the list writes it).
func (c *checker) def(path, value string, cp *rules.ContextPolicy) {
	switch {
	case strings.TrimSpace(value) == "":
		c.errorf(path, "empty default")
		return
	case strings.Contains(value, "*"):
		c.errorf(path, "default %q is a pattern; it must name one context", value)
		return
	case len(cp.Allow) == 1 && !slices.ContainsFunc(cp.Allow[0].Patterns, func(p string) bool { return rules.Glob(p, value, true) }):
		c.errorf(path, "default %q is not in this file's allow list (%s)", value, strings.Join(cp.Allow[0].Patterns, ", "))
		return
	}
	cp.Defaults = []rules.Valued{{Value: value, Src: c.src(path)}}
}

// rules reads the user's own rules. A rule without an id gets "user.<layer>.<n>", n counting from
// 1 in the file, so that a reason can always name the rule that fired. dir is the file's
// directory, which relative path patterns are taken from.
func (c *checker) rules(rs []*ruleSchema, layer, dir string) []rules.UserRule {
	var out []rules.UserRule
	ids := map[string]int{}
	for i, r := range rs {
		path := "rules." + strconv.Itoa(i)
		if r == nil {
			r = &ruleSchema{}
		}
		ok := true
		id := fmt.Sprintf("user.%s.%d", layer, i+1)
		if r.ID != nil {
			id = *r.ID
			switch line, seen := ids[id]; {
			case id == "" || strings.IndexFunc(id, unicode.IsSpace) >= 0:
				c.errorf(path+".id", "rule id %q must be one word", id)
				ok = false
			case seen:
				c.errorf(path+".id", "rule id %q is already used at line %d", id, line)
				ok = false
			default:
				ids[id] = c.src(path).Line
			}
		}
		// The engine splits the CLI word off at the first space, so the pattern is normalised to
		// single spaces.
		match := strings.Join(strings.Fields(r.Match), " ")
		file := len(r.Path) > 0 || r.Content != nil
		switch {
		case match != "" && file:
			c.errorf(path+".match", "a rule is about a command (match) or about what a file tool writes (path, content), not both: split it in two")
			ok = false
		case match == "" && strings.TrimSpace(r.Match) != "":
			c.errorf(path+".match", "empty match")
			ok = false
		case match == "" && !file && len(r.Tool) == 0 && len(r.When) == 0 && len(r.Unless) == 0:
			c.errorf(path, "rule has no match: want the command name and a command pattern (match), what a file tool writes (path, content), or conditions (when, unless) for every guarded call")
			ok = false
		case match != "":
			if name, _, _ := strings.Cut(match, " "); name[0] == '-' || strings.Contains(name, "*") {
				c.errorf(path+".match", "match %q must start with a command name, not a pattern or a flag", r.Match)
				ok = false
			}
		}
		rule := rules.UserRule{ID: id, Match: match, Reason: r.Reason, Src: c.src(path)}
		rule.Tools = c.globs(path+".tool", r.Tool)
		for i, g := range r.Path {
			if pp, good := c.pathPattern(c.item(path+".path", i), g, dir); good {
				rule.Paths = append(rule.Paths, pp)
			}
		}
		rule.Content = c.content(path+".content", r.Content)
		rule.When = c.conditions(path+".when", &r.When, dir)
		rule.Unless = c.conditions(path+".unless", &r.Unless, dir)
		var decision rules.Setting
		if r.Decision == "" {
			c.errorf(path+".decision", "rule has no decision: want ask, deny or allow")
			ok = false
		} else if decision, _ = c.setting(path+".decision", &r.Decision, decisionWords); decision == rules.SettingUnset {
			ok = false
		}
		if ok {
			rule.Decision = decision
			out = append(out, rule)
		}
	}
	return out
}

// DecodeTree reads the tree of a policy file from the cache by hand (see codec.TreeDecoder): the
// version, contexts, settings and session, which are most of a policy and cost yaml.v3's
// reflection the most; rules, audit and tests, whose shapes are many, go through yaml.v3 each.
// A test decodes every policy of the test corpus both ways.
func (s *fileSchema) DecodeTree(n codec.Node) bool {
	return n.Pairs(func(key string, v codec.Node) bool {
		switch key {
		case "version":
			i, ok := v.Int()
			s.Version = &i
			return ok
		case "contexts":
			s.Contexts = map[string]*contextSchema{}
			return v.Pairs(func(name string, v codec.Node) bool {
				cs := &contextSchema{}
				s.Contexts[name] = cs
				return cs.decodeTree(v)
			})
		case "destructive":
			return treeStr(v, &s.Destructive)
		case "rewrite":
			return treeStr(v, &s.Rewrite)
		case "session":
			s.Session = &sessionSchema{}
			return v.Pairs(func(key string, v codec.Node) bool {
				b, ok := v.Bool()
				s.Session.Remember = &b
				return key == "remember" && ok
			})
		case "rules":
			return v.Decode(&s.Rules)
		case "audit":
			return v.Decode(&s.Audit)
		case "tests":
			return v.Decode(&s.Tests)
		}
		return false
	})
}

func (cs *contextSchema) decodeTree(n codec.Node) bool {
	return n.Pairs(func(key string, v codec.Node) bool {
		switch key {
		case "allow":
			items, ok := v.Items()
			allow := make([]*string, len(items))
			for i, it := range items {
				s, isStr := it.Str()
				allow[i], ok = &s, ok && isStr
			}
			cs.Allow = &allow
			return ok
		case "default":
			return treeStr(v, &cs.Default)
		case "unbound":
			return treeStr(v, &cs.Unbound)
		}
		return false
	})
}

// treeStr reads a string scalar into *dst.
func treeStr(v codec.Node, dst **string) bool {
	s, ok := v.Str()
	*dst = &s
	return ok
}
