package catalog

import (
	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

//go:generate go test -run=Generate -write

// Builtin returns the providers ctxguard ships, compiled from builtin/providers/*.yaml into Go
// (compiled.go) so that a hook run decodes nothing it ships: decoding them cold, at every start
// of the process, cost 0.3 ms. TestGenerate keeps compiled.go equal to the YAML files; after
// editing them, run `go generate ./internal/catalog`. The specs are shared: do not modify them.
func Builtin() []*spec.Spec { return builtinSpecs }

// Writers returns builtin/protect.yaml, compiled the same way (parsing it cold cost ~0.5 ms at
// every hook run with a policy): the commands that write the files named in their arguments,
// which self-protection checks. The list is shared: do not modify it.
func Writers() []rules.Writer { return builtinWriters }

// Secrets returns builtin/secrets.yaml, compiled the same way: the flags whose value is a secret
// on some commands, which the audit trail blanks. The list is shared: do not modify it.
func Secrets() []audit.Secret { return builtinSecrets }
