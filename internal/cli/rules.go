package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
)

// runRules lists the destructive entries and the policy's own rules: what can ask about or deny
// a command here besides the context check. A reason names an entry by its id and tier; this is
// where a user looks it up (`destructive: ask` keeps the deny tier, which surprises).
func runRules(c *runner, args []string) error {
	fs := flags("rules")
	if err := parse(fs, args); err != nil {
		return err
	}
	cat, err := catalog.Open(c.env)
	if err != nil {
		return fmt.Errorf("%w: correct or move the provider file (ctxguard validate lists every problem)", err)
	}
	names := cat.Names()
	for _, a := range fs.Args() {
		if !slices.Contains(names, a) {
			return usageError{unknown("provider", a, names)}
		}
	}
	if fs.NArg() > 0 {
		names = fs.Args()
	}
	wd, err := c.getwd()
	if err != nil {
		return err
	}
	var b strings.Builder
	pol, err := policy.Load(policy.Options{Cwd: wd, Env: c.env, Providers: cat.Names()})
	switch {
	case err != nil:
		fmt.Fprintf(&b, "the policy here does not load, so the hook denies every command (ctxguard validate lists why)\n")
		pol = nil
	case len(pol.Files) == 0:
		b.WriteString("no policy applies here, so none of these applies (ctxguard init writes one)\n")
	default:
		b.WriteString(capLine(pol) + "\n")
	}
	for _, name := range names {
		p := cat.Spec(name)
		if len(p.Destructive) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s destructive entries (%s)\n", name, c.home(p.Source))
		for _, d := range p.Destructive {
			fmt.Fprintf(&b, "  %-4s  %s %s  [%s]\n", d.Tier, p.Commands[0], d.Match, rules.DestructiveRule(p.Name, d.Match))
			why := d.Why
			if len(d.Unless) > 0 {
				why += " (not with " + strings.Join(d.Unless, ", ") + ")"
			}
			fmt.Fprintf(&b, "        %s\n", why)
		}
	}
	if pol != nil {
		writeUserRules(&b, pol, names, cat, fs.NArg() > 0)
	}
	_, err = fmt.Fprint(c.stdout, b.String())
	return err
}

// capLine says what the policy does with the destructive entries.
func capLine(pol *policy.Policy) string {
	from := " (not set: ask)"
	if pol.DestructiveSrc.File != "" {
		from = " (" + pol.DestructiveSrc.String() + ")"
	}
	switch pol.Destructive {
	case rules.SettingAllow:
		return "destructive: allow" + from + ": none of the entries below applies here"
	case rules.SettingDeny:
		return "destructive: deny" + from + ": every entry below is denied here, whatever its tier"
	}
	return "destructive: ask" + from + ": here an ask entry asks a human, a deny entry is denied"
}

// writeUserRules lists the policy's own rules; with providers named, those whose command is one
// of theirs.
func writeUserRules(b *strings.Builder, pol *policy.Policy, names []string, cat *catalog.Catalog, only bool) {
	var words []string
	for _, n := range names {
		words = append(words, cat.Spec(n).Commands...)
	}
	first := true
	for _, r := range pol.Rules {
		cmd, _, _ := strings.Cut(r.Match, " ")
		if only && !slices.ContainsFunc(words, func(w string) bool { return strings.EqualFold(w, cmd) }) {
			continue
		}
		if first {
			b.WriteString("\nthe policy's own rules\n")
			first = false
		}
		fmt.Fprintf(b, "  %-4s  %s  [%s]\n", r.Decision, r.Match, r.ID)
		why := r.Reason
		if why == "" {
			why = "(no reason given)"
		}
		fmt.Fprintf(b, "        %s (%s)\n", why, r.Src)
	}
}
