package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/spec"
)

// starterContext is one provider found on this machine, for the starter policy.
type starterContext struct {
	Name, About, From string
	Found             string         // what the state holds: the active context and the others it lists
	Allow             []starterValue // the contexts allowed, the default first
	Active            starterValue   // the active context, for the commented entry when none is allowed
	Left              []string       // the contexts not allowed, each with why
	summary           string         // the line init prints
}

type starterValue struct{ Quoted, Label string }

// comment is the YAML comment that names the value, when it is an id.
func (v starterValue) comment() string {
	if v.Label == "" {
		return ""
	}
	return "  # " + v.Label
}

func runInit(c *runner, args []string) error {
	if err := parse(flags("init"), args); err != nil {
		return err
	}
	wd, err := c.getwd()
	if err != nil {
		return err
	}
	root := projectRoot(wd)
	file := filepath.Join(root, policy.ProjectFile)
	if _, err := os.Lstat(file); err == nil {
		return exitError{code: exitFailure, msg: fmt.Sprintf("%s already exists; ctxguard init never overwrites a policy: edit it, or move it away to start again", file)}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	cat, err := catalog.Open(c.env)
	if err != nil {
		return fmt.Errorf("%w: correct or move the provider file, then run ctxguard init again (ctxguard validate lists every problem)", err)
	}
	var found []starterContext
	var others []string
	for _, st := range guard.States(cat, root, c.env) {
		a := st.Active
		if st.ListErr != nil {
			fmt.Fprintf(c.stderr, "ctxguard init: %s: %v\n", st.Name, st.ListErr)
		}
		switch {
		case st.Err != nil:
			fmt.Fprintf(c.stderr, "ctxguard init: left %s out: %v\n", st.Name, st.Err)
			continue
		case (a.Value == "" || a.From.Kind == spec.FromDefault || a.From.Kind == "") && len(a.Known) == 0 && len(st.Listed) == 0:
			// Nothing on this machine says the CLI was used: a default is not a context seen.
			others = append(others, st.Name)
			continue
		}
		from := a.From.String()
		if a.From.Kind == spec.FromFile {
			from = c.home(a.File)
			if rel, err := filepath.Rel(root, a.File); err == nil && filepath.IsLocal(rel) {
				from = rel // a file of the project, the same on every clone
			}
			// The policy is the team's, on every system: its comments spell paths with /.
			from = filepath.ToSlash(from)
		}
		found = append(found, starter(st, from))
	}
	out := starterPolicy(builtin.SchemaURL("policy"), found, strings.Join(others, ", "))
	// What is written must load: a value no template foresaw must not leave a policy that
	// denies every command.
	if _, err := policy.Parse(out, file, policy.Project, cat.Names()); err != nil {
		return fmt.Errorf("the starter policy does not load (%w); please report this", err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "wrote %s\n", file)
	if len(found) == 0 {
		fmt.Fprintln(c.stdout, "  no CLI that ctxguard knows has state on this machine yet: add contexts to it by hand")
	}
	for _, f := range found {
		fmt.Fprintf(c.stdout, "  %-10s %s\n", f.Name, f.summary)
	}
	fmt.Fprintln(c.stdout, "next: review it (keep in each allow list only what this repository uses), then ctxguard install HARNESS (ctxguard install --help lists them) and ctxguard doctor")
	return nil
}

// starterPolicy is the commented .ctxguard.yaml init writes, built from the parts in builtin
// (plain replacement, not text/template: the template package would weigh on every hook run).
func starterPolicy(schema string, found []starterContext, others string) []byte {
	return []byte(strings.NewReplacer("{{schema}}", schema, "{{contexts}}", starterContexts(found, others)).Replace(builtin.Starter("policy")))
}

// starterContexts writes what follows "contexts:" in the starter policy: per CLI found, what was
// found and left out, and its entry (commented out when nothing is allowed).
func starterContexts(found []starterContext, others string) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "\n  # %s.\n  # At init: %s.", f.About, f.Found)
		for i, l := range f.Left {
			fmt.Fprintf(&b, "\n  # %s%s", map[bool]string{true: "Left out: ", false: "          "}[i == 0], l)
		}
		if len(f.Allow) > 0 {
			fmt.Fprintf(&b, "\n  %s:\n    allow:", f.Name)
			for _, v := range f.Allow {
				fmt.Fprintf(&b, "\n      - %s%s", v.Quoted, v.comment())
			}
			fmt.Fprintf(&b, "\n    default: %s", f.Allow[0].Quoted)
			continue
		}
		fmt.Fprintf(&b, "\n  # If this repository uses the active one, remove the # of these lines:\n  # %s:\n  #   allow: [%s]%s\n  #   default: %s",
			f.Name, f.Active.Quoted, f.Active.comment(), f.Active.Quoted)
	}
	if len(found) == 0 {
		b.WriteString(" {}\n" + strings.TrimSuffix(builtin.Starter("none"), "\n"))
	}
	if others != "" {
		fmt.Fprintf(&b, "\n  # ctxguard also knows: %s. Add a CLI under contexts the same way.", others)
	}
	return b.String()
}

// starter decides what the starter policy allows of one CLI's contexts. init runs unattended
// (an agent may run it), so it asks nothing; instead it allows only the contexts whose names say
// they are for development or tests (dev, test, staging, sandbox, local clusters: see
// [safeName]) and never one that looks like production, even when it is the active one. A CLI
// with no such context is written commented out, with what was found: the user decides. That
// errs towards an agent being refused in a context a person then allows, never towards an agent
// running in production because production happened to be active during init.
func starter(st guard.State, from string) starterContext {
	a, p := st.Active, st.Spec
	sc := starterContext{Name: st.Name, About: strings.TrimSuffix(p.About, "."), From: from}
	value := func(id, name string) starterValue {
		q, _ := json.Marshal(id)
		v := starterValue{Quoted: string(q)}
		if name != "" && name != id {
			v.Label = name
		}
		return v
	}
	label := func(id, name string) string {
		if name != "" && name != id {
			return fmt.Sprintf("%s (%s)", name, id)
		}
		return id
	}
	type candidate struct{ id, name string }
	var all []candidate
	add := func(id, name string) {
		for i, c := range all {
			if eqFold(c.id, id, p.Context.CaseInsensitive) {
				if c.name == "" || c.name == c.id {
					all[i].name = name // the active one, named where it is listed
				}
				return
			}
		}
		all = append(all, candidate{id, name})
	}
	if a.Value != "" {
		add(a.Value, a.Name)
	}
	for _, k := range append(slices.Clip(a.Known), st.Listed...) {
		add(k.ID, k.Name)
	}
	var left []string
	for _, cand := range all {
		switch safeName(cand.name, cand.id) {
		case nameSafe:
			sc.Allow = append(sc.Allow, value(cand.id, cand.name))
		case nameProduction:
			left = append(left, label(cand.id, cand.name)+", named like production")
		default:
			left = append(left, label(cand.id, cand.name)+", whose name does not say it is for development")
		}
	}
	first := all[0]
	sc.Active = value(first.id, first.name)
	active := fmt.Sprintf("%s %s is active", p.Noun, label(first.id, first.name))
	switch {
	case a.Value == "":
		active = fmt.Sprintf("no %s is active", p.Noun)
		sc.Found = fmt.Sprintf("no %s was active; %d found", p.Noun, len(all))
	case a.From.Kind == spec.FromDefault || a.From.Kind == "":
		sc.Found = fmt.Sprintf("%s %s was active (nothing selects another); %d found", p.Noun, label(a.Value, a.Name), len(all))
	default:
		sc.Found = fmt.Sprintf("%s %s was active, from %s", p.Noun, label(a.Value, a.Name), from)
	}
	sc.Left = limit(left, 8)
	switch {
	case len(sc.Allow) == 0:
		sc.summary = fmt.Sprintf("allows nothing yet: %s, and no %s found is named like a development one (see the file)", active, p.Noun)
	case len(left) == 0:
		sc.summary = "allows " + p.Noun + " " + names(sc.Allow)
	default:
		sc.summary = fmt.Sprintf("allows %s %s; left out %s", p.Noun, names(sc.Allow), strings.Join(sc.Left, "; "))
	}
	return sc
}

func names(vs []starterValue) string {
	var out []string
	for _, v := range vs {
		id, _ := strconv.Unquote(v.Quoted)
		if v.Label != "" {
			id = fmt.Sprintf("%s (%s)", v.Label, id)
		}
		out = append(out, id)
	}
	return strings.Join(out, ", ")
}

func limit(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}

func eqFold(a, b string, fold bool) bool { return a == b || fold && strings.EqualFold(a, b) }

type nameKind int

const (
	nameUnclear nameKind = iota
	nameSafe
	nameProduction
)

// The words of a context's name that say what it is for. A name is split into words at every
// character that is not a letter or a digit and where a lower-case letter meets an upper-case
// one (ContosoDev is contoso, dev).
var (
	safeWords       = []string{"dev", "devel", "develop", "development", "test", "testing", "tst", "qa", "stage", "staging", "stg", "sandbox", "sbx", "local", "localhost", "kind", "minikube", "k3d", "microk8s", "demo", "playground"}
	productionWords = []string{"prod", "production", "prd", "live"}
)

// safeName says whether a context's name or id marks it as one for development (and not also
// for production: pre-prod is production enough, and so is a configuration named dev whose
// project is acme-prod).
func safeName(name, id string) nameKind {
	kind := nameUnclear
	for _, s := range []string{name, id} {
		switch nameOf(s) {
		case nameProduction:
			return nameProduction
		case nameSafe:
			kind = nameSafe
		}
	}
	return kind
}

// nameOf is what the words of one name say.
func nameOf(name string) nameKind {
	var words []string
	var w []rune
	prev := rune(0)
	flush := func() {
		if len(w) > 0 {
			words = append(words, strings.ToLower(string(w)))
			w = w[:0]
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			w = append(w, r)
		default:
			w = append(w, r)
		}
		prev = r
	}
	flush()
	kind := nameUnclear
	for _, word := range words {
		switch {
		case slices.Contains(productionWords, word):
			return nameProduction
		case slices.Contains(safeWords, word):
			kind = nameSafe
		}
	}
	return kind
}
