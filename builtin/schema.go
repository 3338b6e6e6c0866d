package builtin

import "embed"

//go:embed schema/*.schema.json
var schemas embed.FS

// SchemaURL is where the committed schema of a kind of file is published, for the
// yaml-language-server modeline that editors read.
func SchemaURL(kind string) string {
	return "https://raw.githubusercontent.com/ctxguard/ctxguard/main/builtin/schema/" + kind + ".schema.json"
}

// Schema returns the JSON Schema of a kind of file, "policy" or "provider"; ok is false for any
// other kind. The schemas are hand-written for editors; tests keep their keys equal to what the
// strict decoders accept.
func Schema(kind string) (data []byte, ok bool) {
	data, err := schemas.ReadFile("schema/" + kind + ".schema.json")
	return data, err == nil
}
