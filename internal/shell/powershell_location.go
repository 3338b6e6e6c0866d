package shell

import (
	"path"
	"strings"

	"github.com/ctxguard/ctxguard/rules"
)

// cd applies Set-Location and its aliases.
func (p *psParser) cd(args []rules.Word) {
	var target *rules.Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if psFlag(a) {
			l := strings.ToLower(a.Value)
			if strings.HasPrefix("-path", l) || strings.HasPrefix("-literalpath", l) {
				if i+1 < len(args) {
					target = &args[i+1]
				}
				break
			}
			p.dirUnk = true // -StackName, -PassThru …: not worth modelling
			return
		}
		if target != nil {
			p.dirUnk = true
			return
		}
		target = &args[i]
	}
	switch {
	case target == nil:
		// Set-Location without a path stays where it is (unlike cd in bash).
	case !target.Literal:
		if rest, ok := strings.CutPrefix(target.Value, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') && plainText(rest) {
			p.dir, p.dirUnk = path.Clean(strings.ReplaceAll(target.Value, `\`, "/")), false
			return
		}
		p.dirUnk = true
	case target.Value == "-" || target.Value == "+" || strings.Contains(target.Value, ":") && !strings.HasPrefix(target.Value, "/"):
		p.dirUnk = true // history, or a drive (C:, Env:, HKLM:)
	default:
		v := strings.ReplaceAll(target.Value, `\`, "/")
		if path.IsAbs(v) {
			p.dir = path.Clean(v)
			return
		}
		d := path.Join(p.dir, v)
		if d == "." {
			d = ""
		}
		p.dir = d
	}
}
