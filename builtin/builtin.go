package builtin

import (
	"embed"
	"io/fs"
)

// files is unexported: an exported embed.FS variable could be reassigned by any importer.
//
//go:embed providers/*.yaml
var files embed.FS

// Providers returns the providers/ subtree, the shape internal/catalog.Load reads:
//
//	specs, err := catalog.Load(builtin.Providers(), "builtin:providers")
//
// The hook reads the specs compiled into Go (internal/catalog); `ctxguard test` runs the
// examples these files hold.
func Providers() fs.FS {
	sub, err := fs.Sub(files, "providers")
	if err != nil {
		// fs.Sub fails only for an invalid path; "providers" is a constant and embedded.
		panic(err)
	}
	return sub
}

//go:embed all:demo
var demo embed.FS

// Demo returns the example that `ctxguard demo` unpacks: a repository with a policy
// (repo/ctxguard.yaml, renamed .ctxguard.yaml when unpacked), the CLIs' state under home/, the
// command lines to send (commands.txt) and the text shown first (intro.txt).
func Demo() fs.FS {
	sub, err := fs.Sub(demo, "demo")
	if err != nil {
		panic(err)
	}
	return sub
}

//go:embed help/*.txt
var help embed.FS

// Help returns the --help text of a subcommand. The texts live in files so that their examples
// can name real CLIs while the Go code stays generic.
func Help(command string) string {
	data, err := help.ReadFile("help/" + command + ".txt")
	if err != nil {
		panic("builtin: no help text for " + command)
	}
	return string(data)
}
