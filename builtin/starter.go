package builtin

import _ "embed"

//go:embed starter/policy.yaml
var starter string

// Starter returns the template (text/template) of the commented .ctxguard.yaml that `ctxguard
// init` writes. It is filled with the schema URL, the providers found on the machine (Found:
// Name, About, Found, Allow and Active with Quoted and Label, Left) and the names of the others
// (Others).
func Starter() string { return starter }
