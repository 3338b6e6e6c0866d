// Command floor is the baseline for ctxguard's whole-process timing: a Go binary that reads its
// stdin and exits, which is the least any hook written in Go can cost.
package main

import (
	"io"
	"os"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
}
