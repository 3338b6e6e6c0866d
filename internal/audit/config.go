package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/rules"
)

// For is the trail the policy's setting names, as it is for env: its file ("~/" is the home
// directory; no file is the state home's audit.jsonl) and its size limit.
func For(a rules.AuditTrail, env paths.Env) (Log, error) {
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
