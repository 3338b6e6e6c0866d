package builtin

import "embed"

//go:embed starter/*.yaml
var starter embed.FS

// Starter returns a part of the commented .ctxguard.yaml that `ctxguard init` writes, with
// marks for it to fill:
//
//   - "policy", the file: {{schema}}, the schema's URL, and {{contexts}}, what follows
//     "contexts:";
//   - "none", the comment under an empty contexts block.
func Starter(part string) string {
	data, err := starter.ReadFile("starter/" + part + ".yaml")
	if err != nil {
		panic("builtin: no starter part " + part)
	}
	return string(data)
}
