// Package providers reads, from a CLI's own state files, which context the CLI is in.
//
// Several CLIs keep one "current context" in a file that every process of the user shares (az's
// default subscription, kubectl's current-context, gcloud's active configuration). ctxguard never
// runs those CLIs to ask (hundreds of milliseconds each, and it must answer in a few): it reads
// their files directly. What to read is data, not code: a provider is a [spec.Spec] (where the
// state lives on each system, which environment variables and flags move it, which gjson path
// gives the context), so that adding a CLI is adding a file and no CLI name appears in Go code.
//
// A [Reader] resolves a spec for one call of the CLI ([Reader.Resolve]) and caches every file it
// reads, so that a command line with many calls reads each state file once and all of them see
// the same state. It implements the engine's rules.State without importing package rules: both
// speak package spec's types.
//
// This is the only package that imports gjson; the decision engine (package rules) sees only
// the values a Reader returns.
package providers
