package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/paths"
)

// minAuditSize is the smallest size limit a policy may set: below it the trail would rotate
// every few decisions and keep next to nothing.
const minAuditSize = 64 << 10

// audit reads the audit key: true, false, or {path, max_size} (which turns the trail on).
// A project file may only turn it on: where the trail goes and how much of it is kept are the
// user's or the organisation's to say, or a repository could make ctxguard append to a file of
// its choosing, or keep a trail too small to tell anything.
func (c *checker) audit(v any, layer string) audit.Trail {
	var a audit.Trail
	switch v := v.(type) {
	case nil:
		if _, written := c.pos.At("audit"); written {
			c.errorf("audit", "audit is empty: want true, false or {path, max_size}")
		}
	case bool:
		a.On = v
	case map[string]any:
		a.On = true
		for k, val := range v {
			path := "audit." + k
			switch k {
			case "path":
				s, ok := val.(string)
				switch {
				case !ok || strings.TrimSpace(s) == "":
					c.errorf(path, "audit path must be a file name")
				// A policy file may be read on Linux and on Windows alike.
				case !strings.HasPrefix(s, "~/") && !paths.IsAbs(s, "linux") && !paths.IsAbs(s, "windows"):
					c.errorf(path, "audit path %q must be absolute (or start with ~/)", s)
				default:
					a.Path, a.PathSrc = s, c.src(path)
				}
			case "max_size":
				n, err := size(val)
				switch {
				case err != nil:
					c.errorf(path, "max_size %v: %v", val, err)
				case n < minAuditSize:
					c.errorf(path, "max_size %v is below the smallest limit, 64KiB", val)
				default:
					a.MaxSize = n
				}
			default:
				c.errorf(path, "unknown key %q in audit (want path, max_size)", k)
			}
			if layer == Project && (k == "path" || k == "max_size") {
				c.errorf(path, "a project policy cannot set the audit trail's %s; set it in the user policy (or the managed one), or write audit: true", k)
			}
		}
	default:
		c.errorf("audit", "audit is %v: want true, false or {path, max_size}", v)
	}
	if a.On {
		a.Src = c.src("audit")
	}
	return a
}

// size reads a size: a number of bytes, or a number with a unit (KiB, MiB, GiB; KB, MB, GB; B).
func size(v any) (int64, error) {
	switch v := v.(type) {
	case int:
		if v <= 0 {
			return 0, fmt.Errorf("want a positive size")
		}
		return int64(v), nil
	case string:
		s := strings.TrimSpace(v)
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i < 0 {
			i = len(s)
		}
		num, unit := s[:i], strings.TrimSpace(s[i:])
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("want a size such as 10MiB")
		}
		mult := map[string]float64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
		if mult == 0 {
			return 0, fmt.Errorf("unknown unit %q (want KiB, MiB, GiB, KB, MB or GB)", unit)
		}
		return int64(n * mult), nil
	}
	return 0, fmt.Errorf("want a size such as 10MiB")
}

// mergeAudit adds a more specific layer's audit setting: it can turn the trail on, never off,
// and names the file and limit only where no earlier layer did.
func mergeAudit(dst *audit.Trail, src audit.Trail) {
	if src.On && !dst.On {
		dst.On, dst.Src = true, src.Src
	}
	if dst.Path == "" {
		dst.Path, dst.PathSrc = src.Path, src.PathSrc
	}
	if dst.MaxSize == 0 {
		dst.MaxSize = src.MaxSize
	}
}
