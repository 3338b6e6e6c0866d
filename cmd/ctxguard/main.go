// Command ctxguard is the hook that checks AI agents' shell commands against the CLI contexts a
// repository allows. See the README.
package main

import (
	"os"

	"github.com/ctxguard/ctxguard/internal/cli"
	_ "github.com/ctxguard/ctxguard/internal/stack" // before any other package's init: see its doc
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
