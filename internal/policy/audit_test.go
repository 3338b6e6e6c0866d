package policy

import (
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/rules"
)

func TestParseAudit(t *testing.T) {
	const file = "/home/u/.config/ctxguard/policy.yaml"
	src := func(line int) rules.Source { return rules.Source{File: file, Line: line} }
	for _, tt := range []struct {
		yaml, layer string
		want        audit.Trail
	}{
		{"version: 1\n", User, audit.Trail{}},
		{"audit: true\n", Project, audit.Trail{On: true, Src: src(1)}},
		{"audit: false\n", Project, audit.Trail{}},
		{"audit: {}\n", User, audit.Trail{On: true, Src: src(1)}},
		{"audit:\n  path: /var/log/ctxguard/audit.jsonl\n  max_size: 20MiB\n", Managed,
			audit.Trail{On: true, Src: src(1), Path: "/var/log/ctxguard/audit.jsonl", PathSrc: src(2), MaxSize: 20 << 20}},
		{"audit: {path: ~/logs/ctxguard.jsonl, max_size: 1048576}\n", User,
			audit.Trail{On: true, Src: src(1), Path: "~/logs/ctxguard.jsonl", PathSrc: src(1), MaxSize: 1 << 20}},
		{`audit: {path: 'C:\ProgramData\ctxguard\audit.jsonl', max_size: 5MB}` + "\n", Managed,
			audit.Trail{On: true, Src: src(1), Path: `C:\ProgramData\ctxguard\audit.jsonl`, PathSrc: src(1), MaxSize: 5e6}},
	} {
		p, err := Parse([]byte(tt.yaml), file, tt.layer, testProviders)
		if err != nil {
			t.Errorf("%q: %v", tt.yaml, err)
			continue
		}
		if p.Audit != tt.want {
			t.Errorf("%q: Audit = %+v, want %+v", tt.yaml, p.Audit, tt.want)
		}
	}
}

func TestParseAuditErrors(t *testing.T) {
	for _, tt := range []struct{ yaml, layer, want string }{
		{"audit: yes please\n", User, `1:1: audit is yes please: want true, false or {path, max_size}`},
		{"audit:\n", User, `1:1: audit is empty`},
		{"audit: {path: logs/audit.jsonl}\n", User, `1:9: audit path "logs/audit.jsonl" must be absolute (or start with ~/)`},
		{"audit: {path: ''}\n", User, `1:9: audit path must be a file name`},
		{"audit: {max_size: ten MiB}\n", User, `1:9: max_size ten MiB: want a size such as 10MiB`},
		{"audit: {max_size: 10 parsecs}\n", User, `1:9: max_size 10 parsecs: unknown unit "parsecs"`},
		{"audit: {max_size: 10TB}\n", User, `1:9: max_size 10TB: unknown unit "TB"`},
		{"audit: {max_size: 4KiB}\n", User, `1:9: max_size 4KiB is below the smallest limit, 64KiB`},
		{"audit: {max_size: 0}\n", User, `1:9: max_size 0: want a positive size`},
		{"audit: {file: /x}\n", User, `1:9: unknown key "file" in audit (want path, max_size)`},
		{"audit: {path: /tmp/x.jsonl}\n", Project, `1:9: a project policy cannot set the audit trail's path; set it in the user policy`},
		{"audit:\n  max_size: 1GiB\n", Project, `2:3: a project policy cannot set the audit trail's max_size`},
	} {
		_, err := Parse([]byte(tt.yaml), "p.yaml", tt.layer, testProviders)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q (%s): %v, want an error containing %q", tt.yaml, tt.layer, err, tt.want)
		}
	}
}

// TestLoadAudit: the trail is on when any layer turns it on, and no later layer turns it off
// or moves it.
func TestLoadAudit(t *testing.T) {
	const (
		managed = "etc/ctxguard/policy.yaml"
		user    = "home/.config/ctxguard/policy.yaml"
		project = "home/repo/.ctxguard.yaml"
	)
	for _, tt := range []struct {
		name               string
		files              map[string]string
		on                 bool
		src, path, pathSrc string
		maxSize            int64
	}{
		{"off by default", map[string]string{project: "version: 1\n"}, false, "", "", "", 0},
		{"a project turns it on", map[string]string{project: "audit: true\n"}, true, project, "", "", 0},
		{"the managed layer forces it on; the project's false changes nothing",
			map[string]string{managed: "audit: true\n", project: "audit: false\n"}, true, managed, "", "", 0},
		{"the user's file and size stand when the project turns it on",
			map[string]string{user: "audit: {path: /logs/a.jsonl, max_size: 1MiB}\n", project: "audit: true\n"}, true, user, "/logs/a.jsonl", user, 1 << 20},
		{"the managed file wins over the user's",
			map[string]string{managed: "audit: {path: /var/log/ctxguard.jsonl}\n", user: "audit: {path: /logs/a.jsonl, max_size: 1MiB}\n"}, true, managed, "/var/log/ctxguard.jsonl", managed, 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			for f, y := range tt.files {
				tr.write(f, y)
			}
			p, err := Load(tr.options("home/repo"))
			if err != nil {
				t.Fatal(err)
			}
			a := p.Audit
			file := func(rel string) string {
				if rel == "" {
					return ""
				}
				return tr.path(rel)
			}
			if a.On != tt.on || a.Src.File != file(tt.src) || a.Path != tt.path || a.PathSrc.File != file(tt.pathSrc) || a.MaxSize != tt.maxSize {
				t.Errorf("Audit = %+v, want on %v from %s, path %q from %s, max %d", a, tt.on, tt.src, tt.path, tt.pathSrc, tt.maxSize)
			}
		})
	}
}

// TestLoadLocked: what the managed layer wrote is listed for the lifts to leave alone, and
// nothing another layer wrote is.
func TestLoadLocked(t *testing.T) {
	tr := newTree(t)
	tr.write("etc/ctxguard/policy.yaml", "rules:\n  - {id: org-no-delete, match: kubectl delete, decision: deny}\n  - {match: az vm delete, decision: ask}\n")
	tr.write("home/repo/.ctxguard.yaml", "destructive: deny\nrules:\n  - {id: repo-rule, match: az group delete, decision: deny}\n")
	p, err := Load(tr.options("home/repo"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(p.Locked, " "), "org-no-delete user.managed.2"; got != want {
		t.Errorf("Locked = %q, want %q", got, want)
	}
}
