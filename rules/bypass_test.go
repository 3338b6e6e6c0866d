package rules_test

import (
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// Made-up CLIs for the provider keys that close the ways around a binding. glue reads a short
// option's value from the same word (pflag's -cprod). hostd builds its default context from a
// variable and lets a flag replace the server of any context (docker's DOCKER_HOST, helm's
// --kube-apiserver). cfgr writes the profile the call selects (aws configure). fetch writes a
// kube context that it names (aws eks update-kubeconfig --alias).
var (
	bypassGlue = &spec.Spec{
		Name: "glue", Commands: []string{"glue"}, Noun: "context", AttachedValues: true,
		Context:   spec.Context{Read: []spec.Step{{Flag: []string{"--ctx", "-c"}, Default: "prod"}}},
		Bind:      &spec.Bind{Flags: []string{"--ctx", "-c"}},
		Overrides: []spec.Override{{Flags: []string{"-s", "--server"}, Why: "it replaces the server"}},
	}
	bypassHostd = &spec.Spec{
		Name: "hostd", Commands: []string{"hostd"}, Noun: "context",
		Context: spec.Context{Read: []spec.Step{{Flag: []string{"--ctx"}, Env: spec.Strings{"HOSTD_CONTEXT"}, Default: "default",
			Replaced: []spec.Replaced{{By: []string{"HOSTD_HOST"}, When: []string{"default"}}, {By: []string{"--api"}}}}}},
		Bind: &spec.Bind{Flags: []string{"--ctx"}},
	}
	bypassCfgr = &spec.Spec{
		Name: "cfgr", Commands: []string{"cfgr"}, Noun: "profile",
		Context:  spec.Context{Read: []spec.Step{{Flag: []string{"--profile"}, Env: spec.Strings{"CFGR_PROFILE"}, Default: "default"}}},
		Bind:     &spec.Bind{Flags: []string{"--profile"}, Reject: []string{"configure"}},
		Redefine: []spec.Redefine{{Command: "configure", Selected: true, Except: []string{"configure list"}}},
		Exempt:   []string{"configure list"},
	}
	bypassKube = &spec.Spec{
		Name: "kube", Commands: []string{"kube"}, Noun: "context",
		Context:    spec.Context{Read: []spec.Step{{Flag: []string{"--ctx"}, Default: "prod"}}},
		Bind:       &spec.Bind{Flags: []string{"--ctx"}},
		SwitchedBy: []spec.Switch{{Command: "fetch creds", Flags: []string{"--alias"}, Redefines: true}},
	}
)

func TestBypassMechanisms(t *testing.T) {
	only := func(v ...string) *rules.ContextPolicy { return &rules.ContextPolicy{Allow: allow(v...)} }
	dev := contexts(map[string]*rules.ContextPolicy{"glue": only("dev"), "hostd": only("dev"), "cfgr": only("dev"), "kube": only("dev")})
	def := contexts(map[string]*rules.ContextPolicy{"hostd": only("default")})
	tests := []struct {
		name    string
		line    string
		policy  *rules.Policy
		env     map[string]string
		verdict rules.Verdict
		want    string // the line after the rewrite, for a rewrite
		reason  string // a substring of the rule and reason
	}{
		// attached_values: -cprod is -c prod, wherever the flag is looked for.
		{name: "an attached value is a binding", line: "glue ls -cprod", verdict: rules.VerdictDeny, reason: "glue.binding-not-allowed"},
		{name: "it wins after the binding", line: "glue ls --ctx dev -cprod", verdict: rules.VerdictDeny, reason: "glue.binding-not-allowed"},
		{name: "with an equals sign", line: "glue ls -c=prod", verdict: rules.VerdictDeny, reason: "glue.binding-not-allowed"},
		{name: "an allowed attached binding", line: "glue ls -cdev", verdict: rules.VerdictAllow},
		{name: "an attached override", line: "glue ls --ctx dev -shttps://prod", verdict: rules.VerdictAsk, reason: "glue.override"},
		{name: "a long option is never split", line: "glue ls --cdev", verdict: rules.VerdictRewrite, want: "glue ls --cdev --ctx dev"},
		// replaced: the variable changes what default is; the flag changes every context.
		{name: "default replaced: no binding holds", line: "hostd ps", policy: def, env: map[string]string{"HOSTD_HOST": "tcp://x"},
			verdict: rules.VerdictAsk, reason: "hostd.binding-replaced] the hostd context cannot be known: HOSTD_HOST is set, which replaces what the hostd context default is"},
		{name: "default replaced on the call", line: "HOSTD_HOST=tcp://x hostd --ctx default ps", policy: def,
			verdict: rules.VerdictAsk, reason: "hostd.binding-replaced] --ctx names the context default, but HOSTD_HOST is set"},
		{name: "default not replaced", line: "hostd ps", policy: def, verdict: rules.VerdictRewrite, want: "hostd ps --ctx default"},
		{name: "a named context is not replaced by the variable", line: "hostd ps", env: map[string]string{"HOSTD_HOST": "tcp://x"},
			verdict: rules.VerdictRewrite, want: "hostd ps --ctx dev"},
		{name: "the flag replaces any context", line: "hostd ps --api https://prod", verdict: rules.VerdictAsk,
			reason: "--api is set, which replaces what the hostd context"},
		{name: "the flag beats a binding", line: "hostd --ctx dev ps --api https://prod", verdict: rules.VerdictAsk, reason: "hostd.binding-replaced"},
		{name: "the flag is seen in each call of a line", line: "hostd ps --ctx dev; hostd ps --ctx dev --api x", verdict: rules.VerdictAsk,
			reason: "hostd.binding-replaced"},
		// redefine selected: the profile the call itself selects.
		{name: "writing the allowed profile", line: "cfgr configure --profile dev", verdict: rules.VerdictAsk, reason: "cfgr.redefine"},
		{name: "writing the profile a variable selects", line: "CFGR_PROFILE=dev cfgr configure", verdict: rules.VerdictAsk, reason: "the allowed profile dev"},
		{name: "writing another profile", line: "cfgr configure", verdict: rules.VerdictDeny, reason: "cfgr.context-not-allowed"},
		{name: "reading the allowed profile", line: "cfgr configure list --profile dev", verdict: rules.VerdictAllow},
		// switched_by redefines: the alias written is allowed, but what it points at is new.
		{name: "a writer redefines an allowed context", line: "fetch creds --name x --alias dev", verdict: rules.VerdictAsk, reason: "kube.redefine"},
		{name: "a writer's other target is denied", line: "fetch creds --name x --alias prod", verdict: rules.VerdictDeny, reason: "kube.switch-not-allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, err := shell.Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			pol := tt.policy
			if pol == nil {
				pol = dev
			}
			in := rules.Input{Calls: calls, Policy: pol, Providers: []*spec.Spec{bypassGlue, bypassHostd, bypassCfgr, bypassKube},
				State: providers.NewReader(), Quote: shell.Quote, Cwd: "/repo", Home: "/home", System: unix,
				Env: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }}
			res := rules.Evaluate(in)
			if res.Verdict != tt.verdict {
				t.Fatalf("verdict %v, want %v (%s: %s)", res.Verdict, tt.verdict, res.Rule, res.Reason)
			}
			if !strings.Contains(res.Rule+" "+res.Reason, tt.reason) {
				t.Errorf("reason %q (%s) does not contain %q", res.Reason, res.Rule, tt.reason)
			}
			if tt.verdict == rules.VerdictRewrite {
				if got := rewritten(t, tt.line, res); got != tt.want {
					t.Errorf("rewrite %q, want %q", got, tt.want)
				}
			}
		})
	}
}
