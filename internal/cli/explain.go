package cli

import (
	"path/filepath"
	"strings"

	"github.com/ctxguard/ctxguard/rules"

	"github.com/ctxguard/ctxguard/internal/explain"
	"github.com/ctxguard/ctxguard/internal/guard"
)

func runExplain(c *runner, args []string) error {
	fs := flags("explain")
	cwd := fs.String("cwd", "", "")
	asJSON := fs.Bool("json", false, "")
	sessionID := fs.String("session", "", "")
	// A line typed on Windows is PowerShell's unless it says otherwise.
	dialect := rules.ShellBash
	if c.env.GOOS() == "windows" {
		dialect = rules.ShellPowerShell
	}
	sh := fs.String("shell", dialect, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *sh != rules.ShellBash && *sh != rules.ShellPowerShell {
		return usageError{"--shell is bash or powershell"}
	}
	if fs.NArg() == 0 {
		return usageError{"a command to explain is required"}
	}
	dir := *cwd
	if dir == "" {
		wd, err := c.getwd()
		if err != nil {
			return err
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	o := guard.Decide(rules.Request{Command: strings.Join(fs.Args(), " "), Cwd: dir, Session: *sessionID, Shell: *sh}, c.env)
	if *asJSON {
		return explain.JSON(c.stdout, o)
	}
	return explain.Text(c.stdout, o)
}
