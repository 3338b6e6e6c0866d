package guard

import (
	"sync"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// parse reads the request: the line in its shell's language, or, for a tool that is not a shell
// but writes files (Request.Paths), one call with no command word that writes them, so that the
// rules that protect ctxguard's own files see them.
func parse(req rules.Request) ([]rules.Call, error) {
	if req.Command == "" && len(req.Paths) > 0 {
		c := rules.Call{NameWord: rules.Word{Value: req.Tool, Pos: -1, End: -1}}
		for _, p := range req.Paths {
			c.Writes = append(c.Writes, rules.Word{Value: p, Literal: true, Pos: -1, End: -1})
		}
		return []rules.Call{c}, nil
	}
	if req.Shell == rules.ShellPowerShell {
		return shell.ParsePowerShell(req.Command)
	}
	return shell.Parse(req.Command)
}

// quoter is the quoting function for the request's shell.
func quoter(req rules.Request) func(string) string {
	if req.Shell == rules.ShellPowerShell {
		return shell.QuotePowerShell
	}
	return shell.Quote
}

// rewrite applies the engine's edits in the request's shell.
func rewrite(req rules.Request, edits []rules.Edit) (string, error) {
	if req.Shell == rules.ShellPowerShell {
		return shell.RewritePowerShell(req.Command, edits)
	}
	return shell.Rewrite(req.Command, edits)
}

// protection is what keeps an agent from changing ctxguard's own policy, providers and hooks:
// the files, found from the same places policy discovery looks, and the commands that write
// files named in their arguments.
func protection(o policy.Options) (rules.Self, []rules.Writer) {
	return &lazySelf{get: sync.OnceValue(func() *policy.Self { return policy.Protected(o) })}, catalog.Writers()
}

// lazySelf finds the protected files only when a line writes a file: most lines do not, and
// finding them costs a walk up the directory tree.
type lazySelf struct{ get func() *policy.Self }

func (l *lazySelf) Match(path string, tree bool, into []string) (rules.Protection, bool) {
	return l.get().Match(path, tree, into)
}

func (l *lazySelf) Mentions(text string) bool { return l.get().Mentions(text) }
