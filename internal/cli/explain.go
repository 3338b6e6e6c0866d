package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/rules"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/explain"
	"github.com/ctxguard/ctxguard/internal/guard"
	"github.com/ctxguard/ctxguard/internal/harness"
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
	// The facts a rule's conditions read, so that any decision a condition changes can be shown.
	harnessName := fs.String("harness", "", "")
	mode := fs.String("permission-mode", "", "")
	agent := fs.String("agent", "", "")
	unattended := fs.String("unattended", "", "")
	now := fs.String("now", "", "")
	host := fs.String("host", "", "")
	groups := fs.StringArray("group", nil, "")
	envs := fs.StringArray("env", nil, "")
	tool := fs.String("tool", "", "")
	path := fs.String("path", "", "")
	content := fs.String("content", "", "")
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
	if fs.NArg() == 0 && *path == "" {
		return usageError{"a command to explain is required (or --tool, --path and --content for a file tool's write)"}
	}
	if fs.NArg() > 0 && *path != "" {
		return usageError{"explain a command or a file tool's write (--path), not both"}
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
	req := rules.Request{Command: strings.Join(fs.Args(), " "), Cwd: dir, Session: *sessionID, Shell: *sh,
		Harness: *harnessName, Mode: *mode, Tool: *tool}
	if *path != "" {
		if *tool == "" {
			return usageError{"--path needs --tool: the file tool that writes it (Write, Edit, create, write_file, …)"}
		}
		req.Shell, req.Paths, req.Changes = "", []string{*path}, []rules.Change{{New: *content}}
	}
	if *harnessName != "" {
		if _, ok := harness.Lookup(*harnessName); !ok {
			return usageError{fmt.Sprintf("--harness is one of %s", strings.Join(harness.Names(), ", "))}
		}
	}
	switch *agent {
	case "":
	case rules.AgentMain, rules.AgentSubagent:
		sub := *agent == rules.AgentSubagent
		req.Subagent = &sub
	default:
		return usageError{"--agent is main or subagent"}
	}
	switch *unattended {
	case "":
		req.Unattended = harness.Unattended(req.Harness, req.Mode, req.Tool)
	case "true", "false":
		u := *unattended == "true"
		req.Unattended = &u
	default:
		return usageError{"--unattended is true or false"}
	}
	ov, err := c.explainFacts(*now, *host, *groups, *envs)
	if err != nil {
		return err
	}
	o := guard.DecideWith(req, c.env, ov)
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
	req := e.Request()
	req.Unattended, req.Subagent = harness.Unattended(e.Harness, e.Mode, e.Tool), harness.Subagent(e.Harness, e.Agent)
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

// explainFacts are the machine's facts with those the flags give in their place.
func (c *runner) explainFacts(now, host string, groups, envs []string) (guard.Override, error) {
	f := guard.Machine()
	if now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return guard.Override{}, usageError{fmt.Sprintf("--now %q is not an RFC 3339 time (2026-12-04T15:00:00+01:00)", now)}
		}
		f.Now = t
	}
	if host != "" {
		f.Host = func() (string, error) { return host, nil }
	}
	if groups != nil {
		f.Groups = func() ([]string, error) { return groups, nil }
	}
	ov := guard.Override{Facts: &f}
	if len(envs) > 0 {
		set := map[string]string{}
		for _, kv := range envs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return guard.Override{}, usageError{fmt.Sprintf("--env %q is not NAME=VALUE", kv)}
			}
			set[k] = v
		}
		ov.Env = func(k string) (string, bool) {
			if v, ok := set[k]; ok {
				return v, true
			}
			return c.env.Lookup(k)
		}
	}
	return ov, nil
}
