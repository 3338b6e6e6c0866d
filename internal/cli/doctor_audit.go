package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/file"
)

// auditTrail shows whether the audit trail is on here, where it goes and how full it is, and
// whether the hook could write it: a trail that cannot be written is a problem (decisions go
// unrecorded), though the hook decides as usual.
func (d *doctor) auditTrail() {
	d.section("audit trail")
	l, a, err := d.c.trail("")
	if err != nil {
		if a.On {
			d.fail(err.Error(), "name a file: audit: {path: …} in the user policy")
		} else {
			d.info("off (audit: true in a policy turns it on)")
		}
		return
	}
	if !a.On {
		d.info("off (audit: true in a policy turns it on; it would go to %s)", d.c.home(l.Path))
		return
	}
	fi, statErr := os.Stat(l.Path)
	if statErr == nil {
		if err := file.Regular(fi); err != nil {
			d.fail(fmt.Sprintf("on (%s), but %s %v: the hook records nothing there", d.c.home(a.Src.String()), d.c.home(l.Path), err), "point audit.path at a file, or remove what stands at "+d.c.home(l.Path))
			return
		}
	}
	switch {
	case statErr == nil:
		d.ok("on (%s), %s: %s of %s, last written %s", d.c.home(a.Src.String()), d.c.home(l.Path), size(fi.Size()), size(l.Limit()), fi.ModTime().Format(time.RFC3339))
	case errors.Is(statErr, fs.ErrNotExist):
		d.ok("on (%s), %s: no decision recorded yet", d.c.home(a.Src.String()), d.c.home(l.Path))
	default:
		d.fail(fmt.Sprintf("on (%s), but %v", d.c.home(a.Src.String()), statErr), "make the file readable and writable by you")
		return
	}
	if err := writable(l.Path, statErr == nil); err != nil {
		d.fail(fmt.Sprintf("the hook cannot write the trail: %v", err), "make the folder and the file writable by you (the hook decides as usual, but records nothing)")
	}
	f, err := audit.LastFailure(d.c.env.AuditFailure())
	switch {
	case err != nil:
		d.warn(fmt.Sprintf("the note of the last failure does not read: %v", err), "remove "+d.c.env.AuditFailure())
	case f == nil:
	case statErr == nil && f.Since(fi.Size()):
		d.info("a write failed at %s (%s); the hook has written the trail since", f.Time.Format(time.RFC3339), f.Error)
	default:
		d.fail(fmt.Sprintf("the last write failed at %s: %s", f.Time.Format(time.RFC3339), f.Error),
			"free the disk or make the trail writable; the decisions since were made as usual but not recorded")
	}
}

// writable checks, without writing a line, that the trail can be appended to: the file opens for
// appending, or, when there is none yet, the nearest folder that exists takes a new file.
func writable(path string, exists bool) error {
	if exists {
		f, err := file.Open(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
	f, err := os.CreateTemp(dir, ".ctxguard-doctor-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// size is a number of bytes for a person.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
