// Package cli is ctxguard's command line: it reads flags, runs a subcommand, and is the one
// place that picks an exit code. Below it nothing calls os.Exit or writes to the process's
// standard streams, so every command can be run in a test with buffers.
//
// The subcommands are one table (commands, in cli.go), in the order help lists them; each
// one's code is in the file of its name.
package cli
