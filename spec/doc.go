// Package spec is the data model of a provider: what ctxguard knows about one CLI, written as
// YAML so that adding a CLI needs no Go (where the CLI keeps its current context, how one call
// is bound to a context, which subcommands switch it, are exempt, or are destructive), and the
// vocabulary in which a state reader answers the engine ([Input], [Active], [From]).
//
// The package does no I/O and imports no third-party library, so that both the decision engine
// (package rules) and the state reader (package providers) can depend on it without depending
// on each other or on a file system. Decoding a provider file is the caller's (internal/catalog
// decodes the YAML); [Check] then says what is wrong with the result, by path, and
// [Spec.SetDefaults] fills in the documented defaults. Path templates
// (${VAR:-default}/file, %VAR% on Windows) are part of the model, so [Expand] is here too.
package spec
