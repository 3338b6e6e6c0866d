package paths

import "strings"

// FromBash is p as Windows spells it when a bash line on Windows writes it: Git Bash (the shell
// of Claude Code's Bash tool there), MSYS2 and Cygwin mount each drive at /c (Cygwin at
// /cygdrive/c), so /c/Users/me and /cygdrive/c/Users/me are C:\Users\me. ok is false for a
// rooted path that names no drive (/usr/bin, /tmp, /): it lies in the shell's own install
// folder, which ctxguard does not know. Any other path, and every path on a system other than
// Windows, is returned as it is.
func (e Env) FromBash(p string) (string, bool) {
	if e.GOOS() != "windows" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return p, true
	}
	rest := p
	if r, ok := strings.CutPrefix(p, "/cygdrive/"); ok {
		rest = "/" + r
	}
	if len(rest) >= 2 && isLetter(rest[1]) && (len(rest) == 2 || rest[2] == '/') {
		return e.Join(strings.ToUpper(rest[1:2])+`:\`, rest[2:]), true
	}
	return "", false
}

func isLetter(c byte) bool { c |= 0x20; return c >= 'a' && c <= 'z' }

// Abs is p resolved against dir, an absolute directory, and cleaned: p itself when it is
// absolute. On Windows a path rooted without a drive (\x) is on dir's drive.
func (e Env) Abs(dir, p string) string {
	switch {
	case e.IsAbs(p):
		return e.Join(p)
	case e.GOOS() == "windows" && (strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/")):
		return e.Join(e.volume(dir), p)
	}
	return e.Join(dir, p)
}

// volume is the drive (C:) or share (\\server\share) an absolute Windows path is on.
func (e Env) volume(dir string) string {
	if len(dir) >= 2 && dir[1] == ':' {
		return dir[:2]
	}
	if strings.HasPrefix(dir, `\\`) || strings.HasPrefix(dir, "//") {
		parts := strings.FieldsFunc(dir, func(r rune) bool { return r == '\\' || r == '/' })
		if len(parts) >= 2 {
			return `\\` + parts[0] + `\` + parts[1]
		}
	}
	return ""
}
