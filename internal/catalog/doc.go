// Package catalog is the set of providers a hook run knows: the built-in ones, which ctxguard
// ships as YAML in package builtin and compiles into Go ahead of time (compiled.go, made by `go
// generate`), and the user's, read from the providers folder (see package paths) on every run.
// It decodes provider files strictly ([Parse], [Load]): the only YAML a provider passes through
// is decoded here, so that the spec and rules packages stay free of any YAML library.
package catalog
