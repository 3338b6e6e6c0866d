package guard

import (
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// parse reads the request: the line in its shell's language, or, for a tool that is not a shell
// but writes files (Request.Paths), one call with no command word that writes them, so that the
// rules that protect ctxguard's own files see them.
func parse(req rules.Request) ([]rules.Call, error) {
	if req.Command == "" && len(req.Paths) > 0 {
		c := rules.Call{NameWord: rules.Word{Value: req.Tool, Pos: -1, End: -1}}
		for _, p := range req.Paths {
			c.Writes = append(c.Writes, rules.Word{Value: p, Literal: true, Pos: -1, End: -1})
		}
		return []rules.Call{c}, nil
	}
	return shell.For(req.Shell).Parse(req.Command)
}
