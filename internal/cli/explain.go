package cli

import (
	"path/filepath"
	"strings"

	"github.com/ctxguard/ctxguard/rules"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/catalog"
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
	id := fs.String("id", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id != "" {
		if fs.NArg() > 0 || *cwd != "" || *sessionID != "" || fs.Changed("shell") {
			return usageError{"--id takes no command and none of --cwd, --session, --shell: the trail has them"}
		}
		return c.explainLogged(*id, *asJSON)
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

// explainLogged shows a decision from the audit trail and the decision the same call gets now.
func (c *runner) explainLogged(id string, asJSON bool) error {
	l, _, err := c.trail("")
	if err != nil {
		return err
	}
	e, err := l.Find(id)
	if err != nil {
		return err
	}
	req := rules.Request{Harness: e.Harness, Tool: e.Tool, Shell: e.Shell, Command: e.Command, Cwd: e.Cwd, Session: e.Session, Mode: e.Mode, Agent: e.Agent, Paths: e.Paths}
	o := guard.Decide(req, c.env)
	now := audit.Entry{Shell: e.Shell}
	if o.Rewritten {
		now.Rewrite = o.Command
	}
	audit.NewRedactor(catalog.Secrets()).Entry(&now)
	logged := explain.Logged{Entry: e, Now: o, NowRewrite: now.Rewrite}
	if asJSON {
		return explain.LoggedJSON(c.stdout, logged)
	}
	return explain.LoggedText(c.stdout, logged)
}
