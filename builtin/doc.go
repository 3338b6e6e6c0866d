// Package builtin holds the data ctxguard ships with: the provider specs of the CLIs it knows
// (providers/*.yaml), embedded in the binary so that a hook needs no install step and no file
// next to it. Beside them: the commands' help texts (help/*.txt), the JSON Schemas of policy and
// provider files (schema/*.schema.json, also what editors fetch from the repository), and the
// starter policy that `ctxguard init` fills in (starter/policy.yaml), the commands that write
// files (protect.yaml, for self-protection) and the flags that hold secrets on some commands
// (secrets.yaml, for the audit trail). Texts that name real CLIs live here, as data, rather than
// in Go code. protect.yaml and secrets.yaml are not embedded: internal/catalog compiles them
// into Go, and its tests read them from here.
//
// The data sits beside this package, not under testdata or a parent directory, because go:embed
// only reaches files at or below the embedding file's directory. The package is data only: it
// imports embed and io/fs and nothing of the module (internal/arch keeps it so). Decoding the
// data is internal/catalog's, which compiles the YAML into Go ahead of time and whose tests check
// that every built-in file parses strictly; internal/arch checks that no built-in CLI name leaks
// into Go code elsewhere: the engine stays generic, and adding a CLI is adding a YAML file here.
package builtin
