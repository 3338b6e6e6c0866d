package shell

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"

	"github.com/ctxguard/ctxguard/rules"
)

// shellRun is what a shell's arguments say it runs.
type shellRun struct {
	what shellWhat
	at   int    // the word the string, encoded command or script file starts at
	join bool   // the string is every word from at on, joined by blanks (pwsh -Command)
	opt  string // how its Via label names the string: "-c", "-Command"
}

type shellWhat uint8

const (
	shellStdin   shellWhat = iota // the script it reads from stdin
	shellString                   // a string (bash -c STRING, pwsh -Command …)
	shellEncoded                  // base64 of UTF-16LE text (pwsh -EncodedCommand)
	shellFile                     // a script file
	shellNothing                  // nothing: the script is only checked (bash -n)
)

// pwshParam is a parameter of pwsh or powershell.exe.
type pwshParam struct {
	name  string   // its name, lowercased
	min   string   // its shortest prefix the parser accepts
	alias string   // another form, matched exactly
	does  pwshDoes // a switch when 0
	label string   // how a Via label names the string it gives
}

type pwshDoes uint8

const (
	pwshSwitch pwshDoes = iota
	pwshValue
	pwshCommand
	pwshCommandWithArgs
	pwshEncoded
	pwshFile
)

func (g *shellGrammar) scan(words []rules.Word, a, end int) shellRun {
	if g.params != nil {
		return g.scanPwsh(words, a, end)
	}
	return scanPOSIX(words, a, end)
}

// scanPOSIX reads the options of sh, bash and the like: a cluster with c makes the first operand
// the script; s, a lone "-", or no operand at all read it from stdin; else the first operand
// is a script file.
func scanPOSIX(words []rules.Word, a, end int) shellRun {
	cFlag, sFlag, noExec := false, false, false
	k := a
	for ; k < end; k++ {
		wd := words[k]
		if !wd.Literal {
			break
		}
		v := wd.Value
		if v == "--" {
			k++
			break
		}
		if v == "-" {
			sFlag = true
			k++
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				k++
			}
			continue
		}
		if len(v) < 2 || v[0] != '-' && v[0] != '+' {
			break
		}
		for _, c := range v[1:] {
			switch c {
			case 'c':
				cFlag = cFlag || v[0] == '-'
			case 'n':
				noExec = noExec || v[0] == '-'
			case 's':
				sFlag = true
			case 'o', 'O':
				k++ // takes an option name
			}
		}
	}
	switch {
	case noExec:
		return shellRun{what: shellNothing} // bash -n reads the script and runs nothing
	case cFlag:
		return shellRun{what: shellString, at: k, opt: "-c"}
	case k < end && !sFlag:
		return shellRun{what: shellFile, at: k}
	}
	return shellRun{what: shellStdin}
}

// scanPwsh reads pwsh's and powershell.exe's parameters. The first operand is the command
// (powershell.exe, where -Command is the default) or a script file (pwsh, where -File is). A
// script file's content is not known, as for `bash FILE`; `-File -` and `-Command -` read stdin.
func (g *shellGrammar) scanPwsh(words []rules.Word, a, end int) shellRun {
	for k := a; k < end; k++ {
		p, isParam := g.param(words[k])
		if !isParam {
			if g.bareCommand {
				return shellRun{what: shellString, at: k, join: true, opt: "-Command"}
			}
			return shellRun{what: shellFile, at: k}
		}
		if p == nil {
			continue // a parameter pwsh does not know makes it refuse the line; reading on is the cautious side
		}
		switch p.does {
		case pwshValue:
			k++
		case pwshCommand:
			return shellRun{what: shellString, at: k + 1, join: true, opt: p.label}
		case pwshCommandWithArgs:
			return shellRun{what: shellString, at: k + 1, opt: p.label}
		case pwshEncoded:
			return shellRun{what: shellEncoded, at: k + 1, opt: p.label}
		case pwshFile:
			return shellRun{what: shellFile, at: k + 1}
		}
	}
	return shellRun{what: shellStdin}
}

// param returns the parameter a word names, as pwsh's own parser matches it: case-insensitively,
// after one or two dashes (or a slash, on Windows), by a prefix at least as long as the
// parameter's shortest form, the first in the table's order winning. isParam is false for an
// operand; p is nil for a parameter pwsh does not know.
func (g *shellGrammar) param(wd rules.Word) (p *pwshParam, isParam bool) {
	v := strings.ToLower(wd.Value)
	if !wd.Literal || len(v) < 2 || v[0] != '-' && v[0] != '/' {
		return nil, false
	}
	slash := v[0] == '/'
	if strings.HasPrefix(v, "--") {
		v = v[2:]
	} else {
		v = v[1:]
	}
	for i := range g.params {
		p := &g.params[i]
		if v == p.alias || strings.HasPrefix(p.name, v) && len(v) >= len(p.min) {
			return p, true
		}
	}
	// A path such as /tmp/x.ps1 is an operand on Linux and macOS.
	return nil, !slash
}

// decodeEncoded decodes the value of pwsh's -EncodedCommand: base64 of UTF-16LE text. ok is
// false when the word is not literal or not such an encoding.
func decodeEncoded(wd rules.Word) (string, bool) {
	if !wd.Literal {
		return "", false
	}
	v := strings.TrimSpace(wd.Value)
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(v); err != nil {
			return "", false
		}
	}
	if len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}
