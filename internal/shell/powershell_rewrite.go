package shell

import (
	"errors"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

// QuotePowerShell quotes a value for PowerShell so that it reaches a command as one word,
// unchanged: bare when it starts with a letter and has only letters, digits and `_./:-\` (a word
// starting with a digit may be read as a number, one starting with `-` as a parameter; a
// backslash means nothing to PowerShell, so C:\Users\me\ctxguard.exe stays bare), else in
// single quotes, where only a quote is special and is doubled (typographic ones too: PowerShell
// reads them as quotes).
func QuotePowerShell(s string) string {
	s = beforeNUL(s)
	bare := s != ""
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || strings.ContainsRune(`_./:-\`, r)) || i == 0 && r == '_'
		if !ok {
			bare = false
			break
		}
	}
	if bare || decimal(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		if isSingleQuote(r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

// decimal reports whether s is a decimal integer PowerShell reads back as itself (pac auth select
// --index 1): digits only, without a leading zero, which a number would lose.
func decimal(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// RewritePowerShell is [Rewrite] for a PowerShell line: the edits are applied, the result is
// read again with the PowerShell reader and must have the same calls plus the inserted words.
func RewritePowerShell(src string, edits []rules.Edit) (string, error) {
	return rewriteParsed(src, nil, edits, ParsePowerShell, psEditItems)
}

// RewritePowerShellCalls is [RewriteCalls] for a PowerShell line.
func RewritePowerShellCalls(src string, calls []rules.Call, edits []rules.Edit) (string, error) {
	if calls == nil {
		calls = []rules.Call{}
	}
	return rewriteParsed(src, calls, edits, ParsePowerShell, psEditItems)
}

// psEditItems reads an edit's text as PowerShell arguments: plain literal words only.
func psEditItems(text string) ([]string, error) {
	// The text is read as arguments of a command, which is what it becomes.
	const cmd = "x "
	calls, err := ParsePowerShell(cmd + text)
	if err != nil {
		return nil, err
	}
	if len(calls) != 1 || calls[0].Name != "x" || len(calls[0].Writes) > 0 || calls[0].End != len(cmd)+len(strings.TrimRight(text, " \t")) {
		return nil, errors.New("is not a list of words")
	}
	var items []string
	for _, a := range calls[0].Args {
		if !a.Literal {
			return nil, errors.New("has an expansion")
		}
		items = append(items, a.Value)
	}
	if len(items) == 0 {
		return nil, errors.New("inserts no words")
	}
	return items, nil
}
