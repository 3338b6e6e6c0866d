// Package rules is ctxguard's decision engine: given the calls a command line would run, the
// provider specs that describe the guarded CLIs, the effective policy and a reader of the CLIs'
// state, it decides allow, rewrite, ask or deny for the line and records why in a trace.
//
// The engine is generic: no CLI name appears here. Everything it knows about a CLI comes from its
// provider spec (package spec), so that adding a CLI is adding a YAML file. It does no I/O and
// imports nothing but the standard library and package spec (a test keeps it so): state files
// are read through the [State] interface, which the caller backs with a cached reader (package
// providers), and shell quoting is a function the caller passes in.
package rules
