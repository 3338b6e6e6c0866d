package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/spec"
)

// starterContext is one provider found on this machine, for the starter policy.
type starterContext struct {
	Name, About, Display, From, Quoted string
	Label                              string // the display name, when the value is an id
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
		return err
	}
	var found []starterContext
	var others []string
	for _, st := range guard.States(cat, root, c.env) {
		a := st.Active
		switch {
		case st.Err != nil:
			fmt.Fprintf(c.stderr, "ctxguard init: left %s out: %v\n", st.Name, st.Err)
			continue
		case a.Value == "" || a.From.Kind == spec.FromDefault || a.From.Kind == "":
			others = append(others, st.Name)
			continue
		}
		q, _ := json.Marshal(a.Value)
		from := a.From.String()
		if a.From.Kind == spec.FromFile {
			from = c.home(a.File)
			if rel, err := filepath.Rel(root, a.File); err == nil && filepath.IsLocal(rel) {
				from = rel // a file of the project, the same on every clone
			}
			// The policy is the team's, on every system: its comments spell paths with /.
			from = filepath.ToSlash(from)
		}
		label := ""
		if a.Name != "" && a.Name != a.Value {
			label = a.Name
		}
		found = append(found, starterContext{
			Name: st.Name, About: strings.TrimSuffix(st.Spec.About, "."), Display: st.Spec.Noun + " " + display(a),
			From: from, Quoted: string(q), Label: label,
		})
	}
	out := []byte(strings.NewReplacer(
		"{{schema}}", builtin.SchemaURL("policy"),
		"{{contexts}}", starterContexts(found, strings.Join(others, ", ")),
	).Replace(builtin.Starter("policy")))
	// What is written must load: a value no template foresaw must not leave a policy that
	// denies every command.
	if _, err := policy.Parse(out, file, policy.Project, cat.Names()); err != nil {
		return fmt.Errorf("the starter policy does not load (%v); please report this", err)
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
		fmt.Fprintf(c.stdout, "  %-10s allows %s\n", f.Name, f.Display)
	}
	fmt.Fprintln(c.stdout, "next: review it, then ctxguard install HARNESS (ctxguard install --help lists them) and ctxguard doctor")
	return nil
}

// starterContexts writes the contexts block of the starter policy (what follows "contexts:"):
// an allow list and a default for each provider found, or a commented example when there is
// none, and the names of the others. A template engine would add some 1.5 MB to a binary whose
// every start the hook pays for, for this one block.
func starterContexts(found []starterContext, others string) string {
	var b strings.Builder
	for _, f := range found {
		label := ""
		if f.Label != "" {
			label = "  # " + f.Label
		}
		b.WriteString("\n")
		strings.NewReplacer("{{about}}", f.About, "{{display}}", f.Display, "{{from}}", f.From, "{{name}}", f.Name,
			"{{quoted}}", f.Quoted, "{{label}}", label).WriteString(&b, strings.TrimSuffix(builtin.Starter("context"), "\n"))
	}
	if len(found) == 0 {
		b.WriteString(" {}\n" + strings.TrimSuffix(builtin.Starter("none"), "\n"))
	}
	if others != "" {
		fmt.Fprintf(&b, "\n  # ctxguard also knows: %s. Add a CLI under contexts the same way.", others)
	}
	return b.String()
}
