package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/rules"
)

// Trail is the audit trail the policy layers ask for (package policy reads it). It is on when any layer turns it on, and a
// layer can never turn it off for the others; its file and size limit are those of the least
// specific layer that names them (a project may turn the trail on, but never move it).
type Trail struct {
	On  bool
	Src rules.Source // the least specific layer that turned it on
	// Path is the file as written ("" for the state home's audit.jsonl; "~/" for the home
	// directory); MaxSize the size it is rotated at (0 for the default).
	Path    string
	PathSrc rules.Source
	MaxSize int64
}

// For is the trail the policy's setting names, as it is for env: its file ("~/" is the home
// directory; no file is the state home's audit.jsonl) and its size limit.
func For(a Trail, env paths.Env) (Log, error) {
	p := a.Path
	switch {
	case p == "":
		p = env.AuditLog()
		if p == "" {
			return Log{}, fmt.Errorf("audit trail: %w; name a file: audit: {path: …}", paths.ErrNoStateDir)
		}
	case strings.HasPrefix(p, "~/"):
		if env.Home == "" {
			return Log{}, errors.New("audit trail " + p + ": there is no home directory")
		}
		p = env.Join(env.Home, p[2:])
	}
	return Log{Path: p, MaxSize: a.MaxSize}, nil
}
