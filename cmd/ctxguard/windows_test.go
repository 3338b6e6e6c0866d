package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands for the scripts of a Windows user's machine (windows_*.txtar), which .ci/wine runs
// under Wine.

// encode utf16le|crlf SRC DST writes SRC to DST as Windows tools write text: UTF-16LE with a
// byte-order mark (Windows PowerShell 5.1's > and Out-File), or with CRLF line ends.
func encode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || args[0] != "utf16le" && args[0] != "crlf" {
		ts.Fatalf("usage: encode utf16le|crlf SRC DST")
	}
	text := strings.ReplaceAll(ts.ReadFile(args[1]), "\n", "\r\n")
	out := []byte(text)
	if args[0] == "utf16le" {
		out = []byte{0xff, 0xfe}
		for _, u := range utf16.Encode([]rune(text)) {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	dst := ts.MkAbs(args[2])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, out, 0o644))
}

// gitbash NAME PATH sets NAME to PATH as Git Bash spells a Windows path: C:\Users\me is
// /c/Users/me.
func gitbash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gitbash NAME PATH")
	}
	p := filepath.ToSlash(ts.MkAbs(args[1]))
	if len(p) < 2 || p[1] != ':' {
		ts.Fatalf("%s has no drive", p)
	}
	ts.Setenv(args[0], "/"+strings.ToLower(p[:1])+p[2:])
}

// installself DIR copies the ctxguard binary into DIR, as go install would put it there, so
// that a script can run it (and install it) from a path of its choosing.
func installself(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: installself DIR")
	}
	src, err := exec.LookPath("ctxguard")
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	in, err := os.Open(src)
	ts.Check(err)
	defer in.Close()
	out, err := os.OpenFile(filepath.Join(dir, filepath.Base(src)), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	ts.Check(err)
	_, err = io.Copy(out, in)
	ts.Check(err)
	ts.Check(out.Close())
}
