package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/hookfile"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// probeCommand is the harmless command the self-test sends through each installed hook. It
// calls no CLI that a provider guards, so any answer but silence means the hook is broken (a
// policy that does not load denies every command).
const probeCommand = "echo ctxguard-self-test"

// probeTimeout bounds one self-test run; the harnesses' own limits are 30 s and more, but a hook
// that needs seconds is already a problem.
const probeTimeout = 10 * time.Second

// doctor collects findings and prints them as it goes.
type doctor struct {
	c                  *runner
	p                  colour
	problems, warnings int
}

func (d *doctor) section(title string) { fmt.Fprintf(d.c.stdout, "\n%s\n", title) }

func (d *doctor) line(status, msg string) {
	fmt.Fprintf(d.c.stdout, "  %s %s\n", status, strings.ReplaceAll(msg, "\n", "\n         "))
}

func (d *doctor) ok(format string, args ...any) {
	d.line(d.p.good("ok   "), fmt.Sprintf(format, args...))
}
func (d *doctor) info(format string, args ...any) {
	d.line(d.p.dim("-    "), fmt.Sprintf(format, args...))
}

func (d *doctor) warn(msg, fix string) {
	d.warnings++
	d.line(d.p.warn("warn "), msg)
	d.fix(fix)
}

func (d *doctor) fail(msg, fix string) {
	d.problems++
	d.line(d.p.bad("FAIL "), msg)
	d.fix(fix)
}

func (d *doctor) fix(fix string) {
	if fix != "" {
		fmt.Fprintf(d.c.stdout, "         fix: %s\n", strings.ReplaceAll(fix, "\n", "\n              "))
	}
}

func runDoctor(c *runner, args []string) error {
	if err := parse(flags("doctor"), args); err != nil {
		return err
	}
	wd, err := c.getwd()
	if err != nil {
		return err
	}
	d := &doctor{c: c, p: c.colour()}
	self, err := c.self()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s at %s\nchecking %s\n", version(), self, wd)

	cat, catErr := catalog.Open(c.env)
	pol, applies := d.policies(wd, cat)
	d.auditTrail()
	d.lifts(wd, cat)
	d.providers(wd, cat, catErr, pol, applies)
	hooks := d.harnesses(wd, self)
	d.selfTest(wd, self, hooks)

	fmt.Fprintln(c.stdout)
	switch {
	case d.problems > 0:
		return exitError{code: exitFailure, msg: fmt.Sprintf("%s, %s: see the fixes above", count(d.problems, "problem"), count(d.warnings, "warning"))}
	case d.warnings > 0:
		fmt.Fprintf(c.stdout, "%s, no problem\n", count(d.warnings, "warning"))
	default:
		fmt.Fprintln(c.stdout, d.p.good("everything is in order"))
	}
	return nil
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// policies lists the policy files per layer, and parses each one found on its own so that the
// one that fails names itself. It returns the merged policy when every file loads (nil when one
// does not, or none applies), and whether any policy applies here.
func (d *doctor) policies(wd string, cat *catalog.Catalog) (*policy.Policy, bool) {
	d.section("policy")
	var names []string
	if cat != nil {
		names = cat.Names()
	}
	opts := policy.Options{Cwd: wd, Env: d.c.env, Providers: names}
	layers, err := policy.Layers(opts)
	if err != nil {
		d.fail(err.Error(), "make the file readable; until then the hook denies every command")
		return nil, true
	}
	found, broken := 0, false
	for _, l := range layers {
		if !l.Found {
			where := l.File
			if l.Name == policy.Project {
				where = fmt.Sprintf("no %s from here up", policy.ProjectFile)
			}
			d.info("%-8s %s (none)", l.Name, d.c.home(where))
			continue
		}
		found++
		data, err := file.Read(l.File, codec.MaxFile)
		if err == nil && cat == nil {
			d.info("%-8s %s (not checked: the providers do not load, see below)", l.Name, d.c.home(l.File))
			broken = true
			continue
		}
		var p *policy.Policy
		if err == nil {
			p, err = policy.Parse(data, l.File, l.Name, names)
		}
		if err != nil {
			d.fail(fmt.Sprintf("%-8s %s", l.Name, strings.Join(messages(err), "\n")),
				fmt.Sprintf("correct the file: ctxguard validate %s lists every problem; until then the hook denies every command", d.c.quote(l.File)))
			broken = true
			continue
		}
		d.ok("%-8s %s", l.Name, d.c.home(l.File))
		for _, note := range p.Notes {
			d.warn(note, "")
		}
	}
	if found == 0 {
		d.warn("no policy applies here, so the hook allows every command",
			"write one for this repository: ctxguard init")
		return nil, false
	}
	if broken {
		return nil, true
	}
	pol, err := policy.Load(opts)
	if err != nil { // cannot happen: every file parsed
		d.fail(err.Error(), "ctxguard validate lists every problem")
		return nil, true
	}
	var checked, unchecked []string
	for _, n := range names {
		if pol.Contexts[n] != nil {
			checked = append(checked, n)
		} else {
			unchecked = append(unchecked, n)
		}
	}
	switch {
	case len(checked) == 0:
		d.info("names no CLI under contexts, so only the destructive entries and rules apply (ctxguard rules)")
	case len(unchecked) == 0:
		d.info("checks the contexts of %s", strings.Join(checked, ", "))
	case len(unchecked) > 4:
		d.info("checks the contexts of %s; the %d other CLIs ctxguard knows are unchecked: the policy says nothing about their contexts",
			strings.Join(checked, ", "), len(unchecked))
	default:
		d.info("checks the contexts of %s; %s unchecked: the policy says nothing about their contexts",
			strings.Join(checked, ", "), plural(unchecked, "is", "are"))
	}
	return pol, true
}

// plural joins names and puts the verb that agrees with them after.
func plural(names []string, one, many string) string {
	if len(names) == 1 {
		return names[0] + " " + one
	}
	return strings.Join(names, ", ") + " " + many
}

// messages splits an error into its lines: every problem of a joined error.
func messages(err error) []string {
	var out []string
	for _, e := range codec.Unjoin(err) {
		out = append(out, e.Error())
	}
	return out
}

// providers shows each provider's active context here, where it came from in words, and what
// the policy says of it: allowed, forbidden (with the command that switches to an allowed one),
// or unchecked.
func (d *doctor) providers(wd string, cat *catalog.Catalog, catErr error, pol *policy.Policy, applies bool) {
	d.section("providers (the context a command run here would use)")
	if catErr != nil {
		if applies {
			d.fail(catErr.Error(), "correct or remove the provider file (ctxguard validate lists every problem); until then the hook denies every command")
		} else {
			d.warn(catErr.Error(), "correct or remove the provider file (ctxguard validate lists every problem); the hook ignores it while no policy applies here, and denies every command once one does")
		}
		return
	}
	for _, st := range guard.States(cat, wd, d.c.env) {
		var se *providers.StateError
		var cp *rules.ContextPolicy
		if pol != nil {
			cp = pol.Contexts[st.Name]
		}
		head := fmt.Sprintf("%-10s ", st.Name)
		switch {
		case errors.As(st.Err, &se):
			d.fail(head+st.Err.Error(),
				fmt.Sprintf("repair %s with the CLI's own commands, or move it away; until then the hook denies this CLI's commands", d.c.home(se.File)))
		case st.Err != nil:
			d.fail(head+st.Err.Error(), "correct the provider file (ctxguard validate lists every problem)")
		case cp != nil:
			d.checked(head, st, cp)
		case st.Active.Value == "" || st.Active.From.Kind == spec.FromDefault:
			d.info("%s%s", head, d.active(st))
		case pol != nil:
			d.ok("%s%s; unchecked: the policy says nothing about %s's contexts", head, d.active(st), st.Name)
		default:
			d.ok("%s%s", head, d.active(st))
		}
	}
}

// checked reports a provider the policy names: its active context against the allow lists,
// and, for one the policy forbids, where commands go instead and the command that switches to
// an allowed one.
func (d *doctor) checked(head string, st guard.State, cp *rules.ContextPolicy) {
	p, a := st.Spec, st.Active
	fold := p.Context.CaseInsensitive
	lists := allowLists(cp, a.Known, d.c.home)
	if a.Value != "" && cp.Allows(a.Value, a.Known, fold) {
		d.ok("%s%s\nthe policy allows %s", head, d.active(st), lists)
		return
	}
	what := "not allowed here"
	if a.Value == "" {
		what = "the policy needs one"
	}
	msg := fmt.Sprintf("%s%s: %s\nthe policy allows only %s", head, d.active(st), what, lists)
	// Where the engine binds such a command: the first allowed default, else the only context
	// the lists name.
	fix := fmt.Sprintf("commands of %s that name no %s are denied here", st.Name, p.Noun)
	target := ""
	for _, def := range cp.Defaults {
		if cp.Allows(def.Value, a.Known, fold) {
			target = def.Value
			fix = fmt.Sprintf("commands of %s that name no %s are bound to the default, %s", st.Name, p.Noun, target)
			break
		}
	}
	lits := cp.Literals(a.Known, fold)
	if target == "" && len(lits) == 1 {
		target = lits[0]
		fix = fmt.Sprintf("commands of %s that name no %s are bound to %s, the only one allowed", st.Name, p.Noun, target)
	}
	if target == "" && len(lits) > 0 {
		target = lits[0]
	}
	switch sw := rules.SwitchCommand(p, target, d.c.quote); {
	case target != "" && sw != "":
		fix += fmt.Sprintf("; to switch the shared %s to an allowed one: %s", p.Noun, sw)
	case target == "":
		fix += fmt.Sprintf("; select a %s that the allow list matches, or allow this one in the policy", p.Noun)
	}
	d.warn(msg, fix)
}

// allowLists renders the policy's allow lists with where each is written, an id the state
// file knows by its name too.
func allowLists(cp *rules.ContextPolicy, known []spec.Known, home func(string) string) string {
	if len(cp.Allow) == 0 {
		return "any (the policy has no allow list)"
	}
	var out []string
	for _, l := range cp.Allow {
		var pats []string
		for _, p := range l.Patterns {
			if i := slices.IndexFunc(known, func(k spec.Known) bool { return k.ID == p && k.Name != "" && k.Name != p }); i >= 0 {
				p = fmt.Sprintf("%s (%s)", known[i].Name, p)
			}
			pats = append(pats, p)
		}
		list := strings.Join(pats, ", ")
		if list == "" {
			list = "none"
		}
		out = append(out, fmt.Sprintf("%s (%s:%d)", list, home(l.Src.File), l.Src.Line))
	}
	return strings.Join(out, ", and ")
}

// active says what a provider's active context is and where it came from, in words.
func (d *doctor) active(st guard.State) string {
	a, p := st.Active, st.Spec
	switch {
	case a.Value == "" && a.File != "":
		return fmt.Sprintf("no active %s (%s sets none)", p.Noun, d.c.home(a.File))
	case a.Value == "":
		return fmt.Sprintf("no active %s (no state file)", p.Noun)
	case a.From.Kind == spec.FromDefault:
		return fmt.Sprintf("%s %s, the CLI's default (no state sets one)", p.Noun, display(a))
	case a.From.Kind == spec.FromEnv:
		return fmt.Sprintf("%s %s, from the environment variable %s", p.Noun, display(a), a.From.Name)
	case a.From.Kind == spec.FromFile:
		return fmt.Sprintf("%s %s, %s", p.Noun, display(a), stateWords(p, d.c.home(a.File)))
	}
	return fmt.Sprintf("%s %s, from %s", p.Noun, display(a), a.From)
}

// stateWords says in words where a provider keeps its context, naming the file as shown: the
// part of its about after the dash, "the default subscription in azureProfile.json", with the
// file's name made its path ("… in ~/.azure/azureProfile.json"), or followed by it.
func stateWords(p *spec.Spec, file string) string {
	_, what, ok := strings.Cut(p.About, " — ")
	what = strings.TrimSuffix(what, ".")
	if !ok || what == "" {
		return "from " + file
	}
	if base := filepath.Base(file); strings.HasSuffix(what, " "+base) {
		return strings.TrimSuffix(what, base) + file
	}
	return what + " (" + file + ")"
}

func display(a spec.Active) string {
	if a.Name != "" && a.Name != a.Value {
		return fmt.Sprintf("%s (%s)", a.Name, a.Value)
	}
	return a.Value
}

// installed is one of ctxguard's hooks found in a harness's file.
type installed struct {
	setup  *harness.Setup
	file   string
	hook   hookfile.Hook
	plugin bool // the hook of ctxguard's plugin, which the settings file only enables
	script bool // a Script file of ctxguard's, as install writes it for this binary
}

// harnesses finds the files of every harness that run ctxguard, and the ones that would run it
// twice.
func (d *doctor) harnesses(wd, self string) []installed {
	d.section("harnesses")
	root := projectRoot(wd)
	var all []installed
	for _, s := range harness.Setups() {
		var here []installed
		for _, f := range d.hookFiles(s, root) {
			data, err := os.ReadFile(f)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil && s.Script != nil {
				if in, ok := d.script(s, f, data, self); ok {
					here = append(here, in)
				}
				continue
			}
			if err == nil {
				var hooks []hookfile.Hook
				if hooks, err = hookfile.Find(data, f, hookfile.Layout{Nested: s.Nested, Events: s.Events, Bare: s.Bare, Self: self}); err == nil {
					for _, h := range hooks {
						here = append(here, installed{setup: s, file: f, hook: h})
					}
					continue
				}
			}
			d.fail(fmt.Sprintf("%-8s %v", s.Harness, err), fmt.Sprintf("%s cannot read this file either: correct it by hand", s.Title))
		}
		plugins := d.plugins(s, root)
		if len(here) == 0 && len(plugins) == 0 {
			d.info("%-8s not installed (ctxguard install %s)", s.Harness, s.Harness)
		}
		for _, in := range here {
			if in.script {
				d.ok("%-8s %s runs %s", s.Harness, d.c.home(in.file), describe(in.hook, d.c.env.OS))
				continue
			}
			d.ok("%-8s %s runs %s", s.Harness, in.hook.Pos().In(d.c.home(in.file)), describe(in.hook, d.c.env.OS))
		}
		if len(here) > 0 && len(plugins) > 0 {
			d.warn(fmt.Sprintf("%s runs ctxguard twice for every command: from the plugin and from %s", s.Title, d.c.home(here[0].file)),
				fmt.Sprintf("keep one: ctxguard uninstall %s, or disable the plugin (/plugin)", s.Harness))
		}
		found := append(here, plugins...)
		d.matchers(s, found)
		d.client(s, found)
		all = append(all, found...)
	}
	if len(all) == 0 {
		d.fail("no harness on this machine runs ctxguard", "wire it in: ctxguard install NAME, one of "+strings.Join(harness.Names(), ", "))
		return nil
	}
	d.twice(all, root)
	return all
}

// matchers warns about an entry whose matcher keeps some of the tools ctxguard checks from
// reaching it (a hand-written entry, or one from an older ctxguard).
func (d *doctor) matchers(s *harness.Setup, found []installed) {
	for _, in := range found {
		tools, effects := s.Uncovered(in.hook.Matcher)
		if len(tools) == 0 {
			continue
		}
		d.warn(fmt.Sprintf("%-8s %s: the matcher %q leaves out %s: %s", s.Harness, in.hook.Pos().In(d.c.home(in.file)),
			in.hook.Matcher, strings.Join(tools, ", "), strings.Join(effects, "; ")), "ctxguard install "+s.Harness+" (it replaces its entry)")
	}
}

// clientTimeout bounds `PROGRAM --version`; Copilot CLI unpacks itself on its first run.
const clientTimeout = 20 * time.Second

// client finds the harness's program on PATH, asks it for its version, and says whether the
// entries found work with that version.
func (d *doctor) client(s *harness.Setup, found []installed) {
	if s.Client == nil || len(found) == 0 {
		return
	}
	prog, err := exec.LookPath(s.Client.Program)
	if err != nil {
		d.info("%-8s %s is not on PATH here, so doctor cannot tell which version of %s runs these entries", s.Harness, s.Client.Program, s.Title)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, "--version").Output()
	version := versionRE().FindString(string(out))
	if err != nil || version == "" {
		d.warn(fmt.Sprintf("%-8s %s --version gave no version (%v): doctor cannot tell whether these entries work with it", s.Harness, prog, cmp.Or(err, errors.New(truncate(strings.TrimSpace(string(out)), 80)))), "")
		return
	}
	for _, in := range found {
		note, ok := "", true
		if s.Client.Check != nil {
			argv, line := in.hook.Command(d.c.env.OS)
			note, ok = s.Client.Check(version, argv, line, d.c.env.OS)
		}
		msg := fmt.Sprintf("%-8s %s %s (%s) runs %s", s.Harness, s.Title, version, prog, in.hook.Pos().In(d.c.home(in.file)))
		if !ok {
			d.fail(msg+": "+note, "upgrade "+s.Title)
			continue
		}
		if note == "" {
			note = "the entry works with this version"
		}
		d.ok("%s: %s", msg, note)
	}
}

// versionRE finds a version in a program's --version output.
var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+\.\d+(\.\d+)*`) })

// script reads a harness's Script file: one that ctxguard wrote for this binary is installed,
// and runs `ctxguard hook --harness NAME`; one it wrote for another binary (or an older ctxguard)
// is reported and not run, and a file of the user's own is not ctxguard's.
func (d *doctor) script(s *harness.Setup, file string, data []byte, self string) (installed, bool) {
	if !harness.IsScript(data) {
		d.info("%-8s %s is not ctxguard's", s.Harness, d.c.home(file))
		return installed{}, false
	}
	want, err := s.Script(self, harness.Options{GOOS: d.c.env.OS})
	if err != nil || string(want) != string(data) {
		d.fail(fmt.Sprintf("%-8s %s was written by another ctxguard binary or version", s.Harness, d.c.home(file)),
			"write it for this one: ctxguard install "+s.Harness)
		return installed{}, false
	}
	argv, _ := json.Marshal(map[string]any{"command": self, "args": []string{"hook", "--harness", s.Harness}})
	doc, err := hookfile.Parse(argv, file)
	if err != nil {
		return installed{}, false
	}
	return installed{setup: s, file: file, hook: hookfile.Hook{Handler: doc.Root}, script: true}, true
}

// plugins finds ctxguard's plugin enabled in the harness's settings (for Claude Code,
// enabledPlugins: {"ctxguard@MARKETPLACE": true}), and returns the hook it runs.
func (d *doctor) plugins(s *harness.Setup, root string) []installed {
	if s.Plugin == nil {
		return nil
	}
	var out []installed
	for _, f := range d.hookFiles(s, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		doc, err := hookfile.Parse(data, f)
		if err != nil {
			continue // reported with the file's hooks
		}
		enabled := doc.Root.Get(s.Plugin.Enabled)
		if enabled == nil || enabled.Kind != hookfile.Object {
			continue
		}
		for _, p := range enabled.Children {
			if !strings.HasPrefix(p.Key, s.Plugin.Name+"@") || string(p.Raw()) != "true" {
				continue
			}
			hooks, _ := hookfile.Find(s.Plugin.Hooks, "plugin", hookfile.Layout{Nested: s.Nested, Events: s.Events})
			d.ok("%-8s %s enables the plugin %s, which runs ctxguard hook from PATH", s.Harness, p.Pos().In(d.c.home(f)), p.Key)
			for _, h := range hooks {
				out = append(out, installed{setup: s, file: f, hook: h, plugin: true})
			}
		}
	}
	return out
}

// hookFiles are the files a harness reads hooks from (see [harness.Setup.HookFiles]), and for a
// harness that reads a whole folder, every *.json file there.
func (d *doctor) hookFiles(s *harness.Setup, root string) []string {
	files := s.HookFiles(d.c.env.Home, d.c.env.Lookup, root, d.c.env.OS)
	if s.Glob {
		for _, f := range slices.Clone(files) {
			more, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "*.json"))
			files = append(files, more...)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

func describe(h hookfile.Hook, goos string) string {
	argv, line := h.Command(goos)
	if argv != nil {
		return strings.Join(argv, " ")
	}
	return line
}

// twice warns about harnesses that would run ctxguard twice for one command: one that also runs
// another harness's hook files ([harness.AlsoRuns]; Copilot CLI and Cursor run Claude Code's),
// where ctxguard is installed for both.
func (d *doctor) twice(all []installed, root string) {
	for _, s := range harness.Setups() {
		also := s.AlsoRuns
		if also == nil {
			continue
		}
		other, _ := harness.SetupFor(also.Harness)
		var own, shared []string
		for _, in := range all {
			switch {
			case in.setup == s:
				own = append(own, d.c.home(in.file))
			case in.setup.Harness == also.Harness && (!also.ProjectOnly || strings.HasPrefix(in.file, root+string(filepath.Separator))):
				shared = append(shared, d.c.home(in.file))
			}
		}
		if len(own) == 0 || len(shared) == 0 {
			continue
		}
		d.warn(fmt.Sprintf("%s runs ctxguard twice for every command: from %s and from %s (%s)",
			s.Harness, strings.Join(slices.Compact(own), ", "), strings.Join(slices.Compact(shared), ", "), also.Why),
			fmt.Sprintf("keep one: ctxguard uninstall %s (the %s entry answers %s in its own protocol)", s.Harness, path.Dir(other.ProjectFile), s.Harness))
	}
}

// selfTest feeds each distinct installed hook command a payload for a harmless command, as its
// harness would, and checks that it answers with silence.
func (d *doctor) selfTest(wd, self string, hooks []installed) {
	if len(hooks) == 0 {
		return
	}
	d.section("self-test (" + probeCommand + " through each installed hook)")
	seen := map[string]bool{}
	for _, in := range hooks {
		argv, line := in.hook.Command(d.c.env.OS)
		key := in.setup.Harness + "\x00" + in.hook.Event + "\x00" + strings.Join(argv, "\x00") + "\x00" + line
		if seen[key] {
			continue
		}
		seen[key] = true
		where := fmt.Sprintf("%-8s %s", in.setup.Harness, d.c.home(in.file))
		if argv == nil && line == "" {
			d.fail(where+": the entry has no command", "ctxguard install "+in.setup.Harness)
			continue
		}
		// A repository's files are not the user's: the self-test runs an entry from one only
		// when it is exactly what ctxguard install writes for this binary, so that doctor in a
		// freshly cloned repository never runs a command the repository chose.
		if !in.plugin && !in.script && !d.userFile(in.setup, in.file) && !d.expected(in, self) {
			d.warn(fmt.Sprintf("%s: not run: the repository's entry differs from what ctxguard install writes for this binary", where),
				fmt.Sprintf("if it is yours: ctxguard install %s --scope project", in.setup.Harness))
			continue
		}
		prog := hookfile.Program(argv, line)
		if !filepath.IsAbs(prog) {
			if p, err := exec.LookPath(prog); err == nil {
				prog, _ = filepath.Abs(p)
			}
		}
		if _, err := os.Stat(prog); err != nil {
			d.fail(fmt.Sprintf("%s runs %s, which is not there", where, prog), "point it at this binary: ctxguard install "+in.setup.Harness)
			continue
		}
		if !sameFile(prog, self) {
			d.warn(fmt.Sprintf("%s runs %s, not this binary (%s)", where, prog, self),
				fmt.Sprintf("to run this one: ctxguard install %s", in.setup.Harness))
		}
		payload := in.setup.Probe(in.hook.Event, probeCommand, wd)
		msg, err := d.probe(wd, argv, line, in.setup, payload)
		if ns := (noShell{}); errors.As(err, &ns) {
			d.fail(fmt.Sprintf("%s: %v", where, err), fmt.Sprintf("put %s on PATH where %s runs", ns.shell, ns.title))
			continue
		}
		if err != nil {
			d.fail(fmt.Sprintf("%s: %v", where, err), fmt.Sprintf("run ctxguard install %s from the ctxguard binary you want the hook to use", in.setup.Harness))
			continue
		}
		if msg != "" {
			d.fail(fmt.Sprintf("%s: the hook refuses a harmless command: %s", where, msg),
				"the reason says what is wrong (most often a policy that does not load: see policy above)")
			continue
		}
		d.ok("%s: allowed, silently (exit 0)", where)
	}
}

// userFile reports whether a harness's file is the user's own (its user-scope file, or a file
// in that file's folder for a harness that reads the whole folder) rather than a project's.
func (d *doctor) userFile(s *harness.Setup, file string) bool {
	if d.c.env.Home == "" {
		return false
	}
	own := filepath.FromSlash(s.UserPath(d.c.env.Home, d.c.env.Lookup, d.c.env.OS))
	return file == own || s.Glob && filepath.Dir(file) == filepath.Dir(own)
}

// expected reports whether a found handler is one that ctxguard install writes for the binary
// at self (with or without --rewrite).
func (d *doctor) expected(in installed, self string) bool {
	for _, e := range in.setup.Entries(self, harness.Options{GOOS: d.c.env.OS, Rewrite: true}) {
		doc, err := hookfile.Parse(e.Value, "entry")
		if err != nil {
			continue
		}
		h := doc.Root
		if in.setup.Nested {
			if hs := h.Get("hooks"); hs != nil && len(hs.Children) == 1 {
				h = hs.Children[0]
			}
		}
		if hookfile.Same(h.Raw(), in.hook.Handler.Raw()) {
			return true
		}
	}
	return false
}

// probe runs one hook command with a payload on stdin, as the harness would: argv directly, a
// line through the shell the harness hands it to (Setup.LineShell), or the line's words where
// that shell is the harness's own. It returns the reason of a refusal ("" for silence) or an
// error when the hook cannot run or answers something that is not an answer.
func (d *doctor) probe(wd string, argv []string, line string, s *harness.Setup, payload []byte) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if argv == nil {
		if sh := s.LineShell(d.c.env.OS, exec.LookPath); sh != nil {
			if _, err := exec.LookPath(sh[0]); err != nil {
				return "", noShell{s.Title, sh[0]}
			}
			argv = append(sh, line)
		} else if argv = words(line); argv == nil {
			return "", fmt.Errorf("the line %q is not one command with literal words, which is all %s's own shell runs of ctxguard's", line, s.Title)
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = wd
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("the hook did not answer within %v, and harnesses let a command run when their hook times out", probeTimeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() == 2 && s.Refusal == nil {
			return strings.TrimSpace(stderr.String()), nil // a harness that reads only the exit code
		}
		return "", fmt.Errorf("the hook exits %d: %s", ee.ExitCode(), strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return "", fmt.Errorf("the hook cannot start: %w", err)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if len(out) == 0 {
		return "", nil
	}
	if s.Refusal == nil {
		return "", fmt.Errorf("the hook printed %q, and %s reads nothing but its exit code", truncate(string(out), 200), s.Title)
	}
	reason, err := s.Refusal(out)
	if err != nil {
		return "", fmt.Errorf("the hook printed something that is not an answer: %q", truncate(string(out), 200))
	}
	return reason, nil
}

// noShell is a self-test that cannot run because the shell the harness runs its hook line with
// is not on PATH: the harness cannot run the hook either.
type noShell struct{ title, shell string }

func (e noShell) Error() string {
	return fmt.Sprintf("%s runs hook lines with %s, which is not on PATH here, so it cannot run this hook either", e.title, e.shell)
}

// words are the program and arguments of a POSIX line that is one simple command with literal
// words, as ctxguard install writes them; nil for any other line.
func words(line string) []string {
	calls, err := shell.Parse(line)
	if err != nil || len(calls) != 1 || !calls[0].NameWord.Literal || len(calls[0].Via) > 0 {
		return nil
	}
	out := []string{calls[0].NameWord.Value}
	for _, a := range calls[0].Args {
		if !a.Literal {
			return nil
		}
		out = append(out, a.Value)
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
