package builtin

import _ "embed"

//go:embed protect.yaml
var protect []byte

// Protect returns protect.yaml: the commands that write the files named in their arguments,
// and which arguments those are. The guard uses it (compiled into Go by internal/catalog) to
// keep an agent from changing ctxguard's own policy and hooks; it is data so that the Go code
// names no command.
func Protect() []byte { return protect }

//go:embed secrets.yaml
var secrets []byte

// Secrets returns secrets.yaml: the flags whose value is a secret on some commands only, which
// the audit trail blanks. It is data so that the Go code names no command.
func Secrets() []byte { return secrets }
