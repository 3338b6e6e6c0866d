package shell

import "github.com/ctxguard/ctxguard/rules"

// dialect is a language a text is read in. A string that a wrapper runs is read in the language
// of the shell that runs it, whatever the language of the line around it: `pwsh -c '…'` in a
// bash line is PowerShell, `bash -c '…'` in a PowerShell line is bash.
type dialect uint8

const (
	bashDialect dialect = 1 << iota // sh, bash, zsh …: read with mvdan.cc/sh in bash mode
	psDialect                       // PowerShell 7 and Windows PowerShell 5.1: read by powershell*.go
	// cmdDialect is cmd.exe's. There is no reader for it: a text in which every character means
	// the same to cmd and to bash (words, double quotes, && || | & and redirections) is read as
	// bash; anything else (%VAR%, ^ escapes, single quotes that cmd does not treat as quotes,
	// backslashes) is unreadable.
	cmdDialect

	anyDialect = bashDialect | psDialect
)

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
