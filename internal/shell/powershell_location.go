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
	default:
		d, drive, ok := psLocation(p.dir, target.Value)
		if !ok {
			p.dirUnk = true
			return
		}
		p.dir = d
		if drive {
			p.dirUnk = false
		}
	}
}

// psLocation returns where Set-Location goes from dir to v, in forward slashes, and whether v
// names a drive (C:\work), which makes the place known whatever came before. ok is false where
// the reader cannot know the place: the location history (- and +), a drive's current location
// (C: or C:dir), a provider's drive (Env:, HKLM:\) and UNC paths.
func psLocation(dir, v string) (d string, drive, ok bool) {
	v = strings.ReplaceAll(v, `\`, "/")
	switch {
	case v == "-" || v == "+" || strings.HasPrefix(v, "//"):
		return "", false, false
	case isDrivePath(v):
		return v[:2] + path.Clean(v[2:]), true, true
	case strings.Contains(v, ":"):
		return "", false, false
	case isDrivePath(dir):
		if path.IsAbs(v) {
			return dir[:2] + path.Clean(v), false, true // the root of the current drive
		}
		return dir[:2] + path.Join(dir[2:], v), false, true // above the root is the root
	case path.IsAbs(v):
		return path.Clean(v), false, true
	}
	d = path.Join(dir, v)
	if d == "." {
		d = ""
	}
	return d, false, true
}

// isDrivePath reports whether v (in forward slashes) starts with a drive letter and its root.
func isDrivePath(v string) bool {
	return len(v) >= 3 && (v[0]|0x20 >= 'a' && v[0]|0x20 <= 'z') && v[1] == ':' && v[2] == '/'
}
