package policy

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/rules"
)

var testProviders = []string{"az", "kubectl", "pac"}

func TestParse(t *testing.T) {
	const file = "/repo/.ctxguard.yaml"
	src := func(line int) rules.Source { return rules.Source{File: file, Line: line} }
	tests := []struct {
		name string
		yaml string
		want *Policy
	}{
		{
			name: "empty file",
			yaml: "",
			want: &Policy{},
		},
		{
			name: "only comments",
			yaml: "# nothing yet\n",
			want: &Policy{},
		},
		{
			name: "the design's example",
			yaml: `version: 1
contexts:
  az:
    allow: [c530e80c-1111, Contoso-Dev]
    default: c530e80c-1111
    unbound: fix
  kubectl:
    allow: [kind-dev, "staging-*"]
  pac:
    allow: [https://org58340192.crm16.dynamics.com/]
destructive: ask
rewrite: allow
rules:
  - match: az ad app permission grant
    decision: deny
    reason: granting API permissions needs a human
  - id: no-prod-delete
    match: "  kubectl   delete  "
    decision: ask
`,
			want: &Policy{Policy: rules.Policy{
				Contexts: map[string]*rules.ContextPolicy{
					"az": {
						Allow:      []rules.AllowList{{Patterns: []string{"c530e80c-1111", "Contoso-Dev"}, Src: src(4)}},
						Defaults:   []rules.Valued{{Value: "c530e80c-1111", Src: src(5)}},
						Unbound:    rules.SettingFix,
						UnboundSrc: src(6),
					},
					"kubectl": {Allow: []rules.AllowList{{Patterns: []string{"kind-dev", "staging-*"}, Src: src(8)}}},
					"pac":     {Allow: []rules.AllowList{{Patterns: []string{"https://org58340192.crm16.dynamics.com/"}, Src: src(10)}}},
				},
				Destructive:    rules.SettingAsk,
				DestructiveSrc: src(11),
				Rules: []rules.UserRule{
					{ID: "user.project.1", Match: "az ad app permission grant", Decision: rules.SettingDeny, Reason: "granting API permissions needs a human", Src: src(14)},
					{ID: "no-prod-delete", Match: "kubectl delete", Decision: rules.SettingAsk, Src: src(17)},
				},
			},
				Notes: []string{file + ":12:1: " + rewriteAllowNote},
			},
		},
		{
			name: "session memory turned off",
			yaml: "version: 1\nsession:\n  remember: false\n",
			want: &Policy{Forget: true, ForgetSrc: src(3)},
		},
		{
			name: "session memory left on says nothing",
			yaml: "session: {remember: true}\n",
			want: &Policy{},
		},
		{
			name: "a provider named without settings is checked",
			yaml: "contexts:\n  kubectl:\n  az: {}\n",
			want: &Policy{Policy: rules.Policy{Contexts: map[string]*rules.ContextPolicy{"kubectl": {}, "az": {}}}},
		},
		{
			name: "an empty allow list allows nothing",
			yaml: "contexts:\n  az:\n    allow: []\n",
			want: &Policy{Policy: rules.Policy{Contexts: map[string]*rules.ContextPolicy{"az": {Allow: []rules.AllowList{{Patterns: []string{}, Src: src(3)}}}}}},
		},
		{
			name: "default matched by a glob, ignoring case",
			yaml: "contexts:\n  kubectl:\n    allow: [Staging-*]\n    default: staging-eu\n    unbound: deny\n",
			want: &Policy{Policy: rules.Policy{Contexts: map[string]*rules.ContextPolicy{"kubectl": {
				Allow:      []rules.AllowList{{Patterns: []string{"Staging-*"}, Src: src(3)}},
				Defaults:   []rules.Valued{{Value: "staging-eu", Src: src(4)}},
				Unbound:    rules.SettingDeny,
				UnboundSrc: src(5),
			}}}},
		},
		{
			name: "a default with no allow list in the file",
			yaml: "contexts:\n  az:\n    default: Contoso-Dev\n",
			want: &Policy{Policy: rules.Policy{Contexts: map[string]*rules.ContextPolicy{"az": {Defaults: []rules.Valued{{Value: "Contoso-Dev", Src: src(3)}}}}}},
		},
		{
			name: "version 1 written, rewrite ask",
			yaml: "version: 1\nrewrite: ask\n",
			want: &Policy{RewriteMode: rules.SettingAsk, RewriteModeSrc: src(2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.yaml), file, Project, testProviders)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tt.want.Files = []rules.PolicyFile{{Layer: Project, File: file}}
			if tt.want.Contexts == nil {
				tt.want.Contexts = map[string]*rules.ContextPolicy{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const file = "/u/.config/ctxguard/policy.yaml"
	tests := []struct {
		name string
		yaml string
		want string // the whole error text
	}{
		{"unknown top-level key", "version: 1\nsesion: {remember: true}\n", file + ":2:1: unknown key \"sesion\": did you mean `session`?"},
		{"unknown session key", "session: {remeber: false}\n", file + ":1:11: unknown key \"remeber\": did you mean `remember`?"},
		{"session remember is not a boolean", "session: {remember: no-thanks}\n", file + `:1:21: remember must be true or false, not "no-thanks"`},
		{"unknown context key", "contexts:\n  az:\n    alow: [x]\n", file + ":3:5: unknown key \"alow\": did you mean `allow`?"},
		{"unknown rule key", "rules:\n  - match: az group delete\n    decison: deny\n", file + ":3:5: unknown key \"decison\": did you mean `decision`?"},
		{"malformed yaml", "contexts:\n  az: [\n", file + ":2:7: this [ is never closed: end the list with ]"},
		{"tab indentation", "contexts:\n\taz: {}\n", file + ":2: a tab in the indentation: YAML indents with spaces only"},
		{"not a mapping", "- az\n", file + ":1:1: the file must be a mapping of version, contexts, destructive, rewrite, session, rules, audit, tests, not a list"},
		{"allow is not a list", "contexts:\n  az:\n    allow: dev\n", file + `:3:12: allow must be a list, not "dev": write allow: [dev]`},
		{"unsupported version", "version: 2\n", file + ":1:1: unsupported version 2: this ctxguard reads version 1; write version: 1"},
		{"unknown provider", "contexts:\n  kubect1:\n    allow: [dev]\n", file + ":2:3: unknown provider \"kubect1\": did you mean `kubectl`?"},
		{"bad unbound", "contexts:\n  az:\n    unbound: Fix\n", file + ":3:5: unbound \"Fix\" is not one of allow, fix, ask, deny: did you mean `fix`?"},
		{"fix is not a destructive word", "destructive: fix\n", file + `:1:1: destructive "fix" is not one of allow, ask, deny`},
		{"deny is not a rewrite word", "rewrite: deny\n", file + `:1:1: rewrite "deny" is not one of ask`},
		{"empty setting", "destructive: ''\n", file + `:1:1: destructive "" is not one of allow, ask, deny`},
		{"empty allow entry", "contexts:\n  kubectl:\n    allow:\n      - dev\n      -\n", file + ":5:8: empty allow entry"},
		{"allow entry with spaces", "contexts:\n  kubectl:\n    allow: [' dev']\n", file + `:3:13: invalid allow pattern " dev": spaces around it never match`},
		{"allow entry with a control character", "contexts:\n  kubectl:\n    allow: [\"dev\\x00\"]\n", file + `:3:13: invalid allow pattern "dev\x00": it has a control character`},
		{"default not allowed", "contexts:\n  az:\n    allow: [Contoso-Dev]\n    default: Contoso-Prod\n", file + `:4:5: default "Contoso-Prod" is not in this file's allow list (Contoso-Dev)`},
		{"default under an empty allow list", "contexts:\n  az:\n    allow: []\n    default: x\n", file + `:4:5: default "x" is not in this file's allow list ()`},
		{"default is a pattern", "contexts:\n  kubectl:\n    allow: ['*']\n    default: 'dev-*'\n", file + `:4:5: default "dev-*" is a pattern; it must name one context`},
		{"empty default", "contexts:\n  az:\n    default: ''\n", file + ":3:5: empty default"},
		{"empty rule", "rules:\n  -\n", file + ":2:4: rule has no match: want the command name and a command pattern (match), what a file tool writes (path, content), or conditions (when, unless) for every guarded call\n" + file + ":2:4: rule has no decision: want ask, deny or allow"},
		{"rule without match", "rules:\n  - decision: deny\n", file + ":2:5: rule has no match: want the command name and a command pattern (match), what a file tool writes (path, content), or conditions (when, unless) for every guarded call"},
		{"rule match starts with a pattern", "rules:\n  - match: '* delete'\n    decision: deny\n", file + `:2:5: match "* delete" must start with a command name, not a pattern or a flag`},
		{"rule without decision", "rules:\n  - match: az group delete\n", file + ":2:5: rule has no decision: want ask, deny or allow"},
		{"rule with fix", "rules:\n  - match: az group delete\n    decision: fix\n", file + `:3:5: decision "fix" is not one of allow, ask, deny`},
		{"rule id with a space", "rules:\n  - id: no grants\n    match: az ad\n    decision: deny\n", file + `:2:5: rule id "no grants" must be one word`},
		{"duplicate rule id", "rules:\n  - id: x\n    match: az ad\n    decision: deny\n  - id: x\n    match: az group\n    decision: ask\n", file + `:5:5: rule id "x" is already used at line 2`},
		{"duplicate key", "destructive: ask\ndestructive: deny\n", file + `:2:1: key "destructive" is written twice (first at line 1): keep one`},
		{
			// Unknown keys, values of the wrong type and values the checks refuse, in one run.
			"every class of problem at once",
			"version: 1\ncontexts:\n  az:\n    alow: [a]\n    unbound: sometimes\n  kubectl:\n    allow: dev\ndestructive: maybe\n",
			file + ":4:5: unknown key \"alow\": did you mean `allow`?\n" +
				file + `:5:5: unbound "sometimes" is not one of allow, fix, ask, deny` + "\n" +
				file + `:7:12: allow must be a list, not "dev": write allow: [dev]` + "\n" +
				file + `:8:1: destructive "maybe" is not one of allow, ask, deny`,
		},
		{
			"every problem, in file order",
			"contexts:\n  nope: {}\n  az:\n    unbound: maybe\ndestructive: sometimes\n",
			file + `:2:3: unknown provider "nope" (known: az, kubectl, pac): name one of them, or add a provider file for nope to the providers folder first` + "\n" +
				file + `:4:5: unbound "maybe" is not one of allow, fix, ask, deny` + "\n" +
				file + `:5:1: destructive "sometimes" is not one of allow, ask, deny`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.yaml), file, User, testProviders)
			if err == nil {
				t.Fatalf("Parse = %+v, want the error %q", p, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse error:\n got %s\nwant %s", err, tt.want)
			}
			var ce *codec.Error
			if !errors.As(err, &ce) || ce.File != file {
				t.Errorf("Parse error %#v is not a *codec.Error for %s", err, file)
			}
		})
	}
}

func TestParseDefaultRuleIDs(t *testing.T) {
	yaml := "rules:\n  - match: az group delete\n    decision: deny\n  - id: mine\n    match: kubectl delete\n    decision: ask\n  - match: terraform destroy\n    decision: deny\n"
	for _, layer := range []string{Managed, User, Project} {
		p, err := Parse([]byte(yaml), "f.yaml", layer, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range p.Rules {
			ids = append(ids, r.ID)
		}
		want := []string{"user." + layer + ".1", "mine", "user." + layer + ".3"}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("%s rule ids (-want +got):\n%s", layer, diff)
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"dev", "dev", true},
		{"dev", "DEV", true},
		{"dev", "dev2", false},
		{"*", "", true},
		{"staging-*", "staging-eu", true},
		{"staging-*", "prod-staging-eu", false},
		{"*-dev", "eu-dev", true},
		{"https://*.crm.dynamics.com/", "https://org1.crm.dynamics.com/", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{"**", "x", true},
	}
	for _, tt := range tests {
		if got := rules.Glob(tt.pat, tt.s, true); got != tt.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
		}
	}
}

// BenchmarkParse is the cost of a project policy on every hook run: six providers, each with an
// allow list, and a rule.
func BenchmarkParse(b *testing.B) {
	src := []byte("version: 1\ncontexts:\n  az:\n    allow: [11111111-1111-4111-8111-111111111111]\n    unbound: fix\n  kubectl:\n    allow: [dev]\n  gcloud:\n    allow: [contoso-dev-123456]\n  terraform:\n    allow: [staging]\n  gh:\n    allow: [bob-example, alice-corp]\n  pac:\n    allow: [\"https://contoso.crm4.dynamics.com/\"]\ndestructive: ask\nrules:\n  - match: az ad app permission grant\n    decision: deny\n    reason: ask the platform team\n")
	names := []string{"az", "kubectl", "gcloud", "terraform", "gh", "pac"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(src, ".ctxguard.yaml", Project, names); err != nil {
			b.Fatal(err)
		}
	}
}
