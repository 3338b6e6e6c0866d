package policy

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // zones by name, whatever the machine has

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/rules"
)

func TestParseConditions(t *testing.T) {
	const file = "/repo/.ctxguard.yaml"
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	tests := []struct {
		name string
		yaml string
		want rules.UserRule
	}{
		{"every key", `rules:
  - match: az group create
    when:
      unattended: true
      permission_mode: [dontAsk, auto]
      agent: subagent
      harness: claude
      cwd: infra/**
      context: "*Prod*"
      env: {CI: "*"}
      host: build-*
      groups: [deployers]
      time: {days: [mon-fri], from: "09:00", to: "17:00", tz: Europe/Berlin}
      dates: [{from: 2026-12-20, to: 2027-01-04, tz: Europe/Berlin}]
    decision: deny
`, rules.UserRule{ID: "user.project.1", Match: "az group create", Decision: rules.SettingDeny, When: []rules.Condition{{
			Unattended: &yes, Modes: []string{"dontAsk", "auto"}, Agents: []string{"subagent"}, Harnesses: []string{"claude"},
			Cwd:     []rules.PathPattern{{Glob: "infra/**", Dir: "/repo"}},
			Context: []rules.ContextPattern{{{Globs: []string{"*Prod*"}}}},
			Env:     []rules.EnvPattern{{Name: "CI", Globs: []string{"*"}}},
			Hosts:   []string{"build-*"}, Groups: []string{"deployers"},
			Times: []rules.Window{{Days: 0b0111110, From: 540, To: 1020, Loc: berlin, Text: "mon-fri 09:00-17:00 Europe/Berlin"}},
			Dates: []rules.DateRange{{From: rules.Date{Year: 2026, Month: 12, Day: 20}, To: rules.Date{Year: 2027, Month: 1, Day: 4}, Loc: berlin, Text: "2026-12-20..2027-01-04 Europe/Berlin"}},
		}}}},
		{"a list of conditions, context fields, unless", `rules:
  - match: pac solution import
    when:
      - context: {type: Production}
      - context: ["*prod*", {name: "Contoso *", tenant: [a, b]}]
    unless: {groups: PP-Deployment}
    decision: ask
`, rules.UserRule{ID: "user.project.1", Match: "pac solution import", Decision: rules.SettingAsk,
			When: []rules.Condition{
				{Context: []rules.ContextPattern{{{Field: "type", Globs: []string{"Production"}}}}},
				{Context: []rules.ContextPattern{{{Globs: []string{"*prod*"}}}, {{Field: "name", Globs: []string{"Contoso *"}}, {Field: "tenant", Globs: []string{"a", "b"}}}}},
			},
			Unless: []rules.Condition{{Groups: []string{"PP-Deployment"}}},
		}},
		{"a file rule", `rules:
  - tool: [Write, Edit]
    path: "*.bicep"
    content: "publicNetworkAccess:\\s*'Enabled'"
    decision: deny
    reason: no public endpoints
`, rules.UserRule{ID: "user.project.1", Tools: []string{"Write", "Edit"}, Paths: []rules.PathPattern{{Glob: "*.bicep", Dir: "/repo"}},
			Content: regexp.MustCompile(`publicNetworkAccess:\s*'Enabled'`), Decision: rules.SettingDeny, Reason: "no public endpoints"}},
		{"conditions alone: every guarded call", "rules:\n  - when: {dates: {from: 2026-12-20, to: 2027-01-04}}\n    decision: deny\n",
			rules.UserRule{ID: "user.project.1", Decision: rules.SettingDeny, When: []rules.Condition{{Dates: []rules.DateRange{{From: rules.Date{Year: 2026, Month: 12, Day: 20}, To: rules.Date{Year: 2027, Month: 1, Day: 4}, Loc: time.Local, Text: "2026-12-20..2027-01-04"}}}}}},
		{"an overnight window on every day", "rules:\n  - match: kubectl apply\n    when: {time: {from: '22:00', to: '06:00', tz: UTC}}\n    decision: ask\n",
			rules.UserRule{ID: "user.project.1", Match: "kubectl apply", Decision: rules.SettingAsk, When: []rules.Condition{{Times: []rules.Window{{Days: 0x7f, From: 1320, To: 360, Loc: time.UTC, Text: "22:00-06:00 UTC"}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.yaml), file, Project, testProviders)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Rules) != 1 {
				t.Fatalf("%d rules", len(p.Rules))
			}
			got := p.Rules[0]
			got.Src = rules.Source{}
			opts := cmp.Options{
				cmp.Comparer(func(a, b *time.Location) bool { return a.String() == b.String() }),
				cmp.Comparer(func(a, b *regexp.Regexp) bool {
					return a == nil && b == nil || a != nil && b != nil && a.String() == b.String()
				}),
				cmpopts.EquateEmpty(),
			}
			if diff := cmp.Diff(tt.want, got, opts); diff != "" {
				t.Errorf("rule (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseConditionErrors: a condition that cannot be evaluated is an error at its line and
// column, never a window that silently never holds.
func TestParseConditionErrors(t *testing.T) {
	const file = "/u/.config/ctxguard/policy.yaml"
	rule := func(body string) string { return "rules:\n  - match: az group create\n    decision: deny\n" + body }
	tests := []struct{ name, yaml, want string }{
		{"unknown time zone", rule("    when: {time: {from: '09:00', to: '17:00', tz: Europe/Berln}}\n"),
			`:4:47: unknown time zone "Europe/Berln" (want an IANA name such as Europe/Berlin or UTC): unknown time zone Europe/Berln`},
		{"Local is not a zone name", rule("    when: {dates: {from: 2026-01-01, to: 2026-01-02, tz: Local}}\n"),
			`:4:54: tz "Local": name an IANA time zone (Europe/Berlin, UTC), or leave tz out for the machine's local time`},
		{"malformed date", rule("    when:\n      dates:\n        - {from: 2026-12-32, to: 2027-01-04}\n"),
			`:6:12: from "2026-12-32" is not a date (YYYY-MM-DD)`},
		{"a range that ends before it starts", rule("    when: {dates: {from: 2027-01-04, to: 2026-12-20}}\n"),
			`:4:38: to 2026-12-20 is before from 2027-01-04`},
		{"a time of day", rule("    when: {time: {from: '9am', to: '17:00'}}\n"), `:4:19: from "9am" is not a time of day (HH:MM, 00:00 to 23:00)`},
		{"24:00 only ends a window", rule("    when: {time: {from: '24:00', to: '06:00'}}\n"), `:4:19: from "24:00" is not a time of day (HH:MM, 00:00 to 23:00)`},
		{"a window needs to", rule("    when: {time: {from: '09:00'}}\n"), `:4:12: a time window needs to (HH:MM)`},
		{"an empty window", rule("    when: {time: {from: '09:00', to: '09:00'}}\n"), `:4:34: from and to are both 09:00: the window is empty`},
		{"a day", rule("    when: {time: {days: [mon, fry], from: '09:00', to: '17:00'}}\n"), `:4:31: day "fry" is not one of sun, mon, tue, wed, thu, fri, sat, or a range such as mon-fri`},
		{"an agent", rule("    when: {agent: helper}\n"), `:4:12: agent "helper" is not one of main, subagent`},
		{"a harness", rule("    when: {harness: [claude, vscode]}\n"), `:4:30: harness "vscode" is not one of ` + strings.Join(harness.Names(), ", ")},
		{"an unknown key", rule("    when: {unatended: true}\n"), `:4:12: unknown key "unatended"`},
		{"unattended is a boolean", rule("    when: {unattended: sometimes}\n"), `:4:24: unattended must be true or false, not "sometimes"`},
		{"a path pattern", rule("    when: {cwd: 'infra/[prod'}\n"), `:4:12: invalid path pattern "infra/[prod": malformed pattern segment "[prod"`},
		{"a context field", rule("    when: {context: {Type: Production}}\n"), `:4:22: context field "Type" must be lowercase letters, digits and _ (id, name, or a field the provider names)`},
		{"an empty condition", rule("    when:\n      -\n"), `:5:8: empty condition: leave it out, or give it a key`},
		{"a content pattern", "rules:\n  - path: '*.bicep'\n    content: 'public(Network'\n    decision: deny\n",
			`:3:5: invalid content pattern "public(Network": missing closing ): ` + "`public(Network`"},
		{"match and content", "rules:\n  - match: az deploy\n    content: x\n    decision: deny\n",
			`:2:5: a rule is about a command (match) or about what a file tool writes (path, content), not both: split it in two`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), file, User, testProviders)
			if err == nil {
				t.Fatalf("Parse succeeded, want %s", tt.want)
			}
			if got := strings.TrimPrefix(err.Error(), file); got != tt.want {
				t.Errorf("Parse error:\n got %s\nwant %s", got, tt.want)
			}
			var ce *codec.Error
			if !errors.As(err, &ce) || ce.Line == 0 {
				t.Errorf("Parse error %#v has no line", err)
			}
		})
	}
}
