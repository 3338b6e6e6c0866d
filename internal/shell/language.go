package shell

import "github.com/ctxguard/ctxguard/rules"

// Language is one shell's reader, quoting and rewriting, for a caller that has the shell's name
// (a request's Shell) rather than a choice of its own.
type Language struct {
	Parse func(src string) ([]rules.Call, error)
	Quote func(string) string
	// RewriteCalls applies edits to src, whose calls Parse returned (see [RewriteCalls]).
	RewriteCalls func(src string, calls []rules.Call, edits []rules.Edit) (string, error)
}

var (
	bash       = Language{Parse, Quote, RewriteCalls}
	powershell = Language{ParsePowerShell, QuotePowerShell, RewritePowerShellCalls}
)

// For is the language of the named shell: PowerShell for rules.ShellPowerShell, else bash (the
// language of every harness's Bash tool, and of a request that names no shell).
func For(name string) Language {
	if name == rules.ShellPowerShell {
		return powershell
	}
	return bash
}
