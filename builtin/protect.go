package builtin

import (
	_ "embed"

	"github.com/ctxguard/ctxguard/rules"
)

//go:embed protect.yaml
var protect []byte

// Protect returns protect.yaml: the commands that write the files named in their arguments,
// and which arguments those are. The guard uses it to keep an agent from changing ctxguard's
// own policy and hooks; it is data so that the Go code names no command.
func Protect() []byte { return protect }

// Writers returns protect.yaml decoded (compiled.go): parsing its YAML cold cost ~0.5 ms at
// every hook run. The list is shared: do not modify it.
func Writers() []rules.Writer { return writers }
