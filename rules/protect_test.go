package rules_test

import (
	"path"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/shell"
	"github.com/ctxguard/ctxguard/rules"
)

// fakeSelf protects a few absolute paths by name, as the guard's would.
type fakeSelf map[string]string // path -> rule

func (f fakeSelf) Match(p string, tree bool, into []string) (rules.Protection, bool) {
	for q, rule := range f {
		if p == q || tree && strings.HasPrefix(q, p+"/") {
			return rules.Protection{Rule: rule, What: q}, true
		}
		for _, n := range into {
			if path.Join(p, n) == q {
				return rules.Protection{Rule: rule, What: q}, true
			}
		}
	}
	return rules.Protection{}, false
}

func (f fakeSelf) Mentions(text string) bool { return strings.Contains(text, "ctxguard") }

func TestProtect(t *testing.T) {
	ws := catalog.Writers()
	self := fakeSelf{
		"/repo/.ctxguard.yaml":                     "self.policy-write",
		"/home/u/.config/ctxguard/policy.yaml":     "self.policy-write",
		"/repo/.claude/settings.json":              "self.hook-write",
		"/home/u/.config/ctxguard/providers/x.yml": "self.policy-write",
	}
	tests := []struct {
		line, shell string
		want        string // rule, or "" for nothing
	}{
		{"echo x > .ctxguard.yaml", "", "self.policy-write"},
		{"echo x >> /repo/.ctxguard.yaml", "", "self.policy-write"},
		{"echo x &> .ctxguard.yaml", "", "self.policy-write"},
		{"> .ctxguard.yaml", "", "self.policy-write"},
		{"{ echo a; } >| .ctxguard.yaml", "", "self.policy-write"},
		{"cat .ctxguard.yaml", "", ""},
		{"cat < .ctxguard.yaml", "", ""},
		{"echo x 2>&1", "", ""},
		{"cd sub && echo x > ../.ctxguard.yaml", "", "self.policy-write"},
		{"cd /tmp && echo x > .ctxguard.yaml", "", ""},
		{"cd ~/.config/ctxguard && rm policy.yaml", "", "self.policy-write"},
		{"sudo tee ~/.config/ctxguard/policy.yaml", "", "self.policy-write"},
		{"tee -a out.txt /repo/.ctxguard.yaml", "", "self.policy-write"},
		{"sed -i 's/a/b/' .ctxguard.yaml", "", "self.policy-write"},
		{"sed -ni.bak 's/a/b/' .ctxguard.yaml", "", "self.policy-write"},
		{"perl -0777pi -e 's/a/b/' .ctxguard.yaml", "", "self.policy-write"},
		{"perl -0777 -ne 'print' .ctxguard.yaml", "", ""},
		{"sed --in-place -e s/a/b/ .ctxguard.yaml", "", "self.policy-write"},
		{"sed 's/a/b/' .ctxguard.yaml", "", ""},
		{"sed -i .ctxguard.yaml other.txt", "", ""}, // the first operand is the script
		{"cp .ctxguard.yaml /tmp/x", "", ""},
		{"cp /tmp/x .ctxguard.yaml", "", "self.policy-write"},
		{"cp -t /repo /tmp/.ctxguard.yaml", "", "self.policy-write"},
		{"cp /tmp/.ctxguard.yaml /repo", "", "self.policy-write"},
		{"mv .ctxguard.yaml /tmp/", "", "self.policy-write"},
		{"rm -rf .claude", "", "self.hook-write"},
		{"rm -rf /tmp/x", "", ""},
		{"ln -sf /dev/null .claude/settings.json", "", "self.hook-write"},
		{"truncate -s 0 .ctxguard.yaml", "", "self.policy-write"},
		{"truncate -s0 notes .ctxguard.yaml", "", "self.policy-write"},
		{"bash -c 'rm .claude/settings.json'", "", "self.hook-write"},
		{"xargs -I{} sh -c 'echo {} > /repo/.ctxguard.yaml'", "", "self.policy-write"},
		{"echo x > $XDG_CONFIG_HOME/ctxguard/policy.yaml", "", "self.dynamic-write"},
		{"echo x > $OUT", "", ""},
		// Named pipes and devices, sponge, and the archive extractors (into the call's folder, or
		// where their destination flag says).
		{"mkfifo .ctxguard.yaml", "", "self.policy-write"},
		{"mkfifo -m 600 /tmp/p", "", ""},
		{"mknod -m 600 .ctxguard.yaml p", "", "self.policy-write"},
		{"mknod /tmp/p p", "", ""},
		{"echo x | sponge .ctxguard.yaml", "", "self.policy-write"},
		{"tar -xzf a.tgz", "", "self.unnamed-write"},
		{"tar xf a.tar", "", "self.unnamed-write"},
		{"tar --extract -f a.tar", "", "self.unnamed-write"},
		{"tar -tf a.tar", "", ""},
		{"tar tvf a.tar", "", ""},
		{"tar -czf /tmp/a.tgz .", "", ""},
		{"cd /tmp && tar -xf a.tar", "", ""},
		{"cd /tmp && tar -xf a.tar -C /repo", "", "self.unnamed-write"},
		{"tar -xf a.tar --directory=/home/u/.config/ctxguard", "", "self.unnamed-write"},
		{"tar -xf a.tar -C /tmp", "", ""},
		{"tar -xf a.tar -C $DEST", "", ""},
		{"tar -xf a.tar -C $HOME/.config/ctxguard", "", "self.dynamic-write"},
		{"unzip -o a.zip", "", "self.unnamed-write"},
		{"unzip -l a.zip", "", ""},
		{"unzip a.zip -d /tmp/x", "", ""},
		{"cd /tmp && unzip a.zip -d /home/u/.config/ctxguard/providers", "", "self.unnamed-write"},
		{"cpio -idm < a.cpio", "", "self.unnamed-write"},
		{"cpio -it < a.cpio", "", ""},
		{"cpio -o < list > /tmp/a.cpio", "", ""},
		{"7z x a.7z", "", "self.unnamed-write"},
		{"7z l a.7z", "", ""},
		{"cd /tmp && 7z e a.7z -o/repo", "", "self.unnamed-write"},
		{"7z x a.7z -o/tmp/x", "", ""},
		// PowerShell: cmdlets with named, abbreviated and positional parameters, and aliases.
		{"Set-Content -Path .ctxguard.yaml -Value x", "powershell", "self.policy-write"},
		{"Set-Content .ctxguard.yaml x", "powershell", "self.policy-write"},
		{"set-content -value .ctxguard.yaml -path out.txt", "powershell", ""},
		{"Copy-Item /tmp/x -Dest .ctxguard.yaml", "powershell", "self.policy-write"},
		{"Copy-Item .ctxguard.yaml /tmp/x", "powershell", ""},
		{"Remove-Item -Recurse -Force .claude", "powershell", "self.hook-write"},
		{"del .ctxguard.yaml", "powershell", "self.policy-write"},
		{"'x' | Out-File .ctxguard.yaml", "powershell", "self.policy-write"},
		{"echo x > .ctxguard.yaml", "powershell", "self.policy-write"},
		{"Get-Content .ctxguard.yaml", "powershell", ""},
	}
	for _, tt := range tests {
		lang := shell.For(tt.shell)
		calls, err := lang.Parse(tt.line)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.line, err)
		}
		res := rules.Evaluate(rules.Input{System: unix,
			Calls: calls, Policy: policy2(), State: fakeState{}, Quote: lang.Quote, Cwd: "/repo", Home: "/home/u",
			Self: self, Writers: ws, Shell: tt.shell,
		})
		got := ""
		if strings.HasPrefix(res.Rule, "self.") {
			got = res.Rule
		}
		if got != tt.want {
			t.Errorf("%s %q: rule %q (%s), want %q", tt.shell, tt.line, res.Rule, res.Reason, tt.want)
		}
		if got != "" && !strings.Contains(res.Reason, "can only be changed by a human") {
			t.Errorf("%q: reason %q does not say what to do", tt.line, res.Reason)
		}
	}

	// Without a policy file ctxguard is inert; without Self, protection is off.
	calls, _ := shell.Parse("echo x > .ctxguard.yaml")
	if res := rules.Evaluate(rules.Input{System: unix, Calls: calls, Policy: &rules.Policy{}, Quote: shell.Quote, Cwd: "/repo", Self: self, Writers: ws}); res.Verdict != rules.VerdictAllow {
		t.Errorf("no policy: %v %s", res.Verdict, res.Rule)
	}
	// A file tool's write: a call with no command word and Src "".
	res := rules.Evaluate(rules.Input{System: unix, Calls: []rules.Call{{NameWord: rules.Word{Value: "Write"}, Writes: []rules.Word{{Value: "/repo/.ctxguard.yaml", Literal: true}}}},
		Policy: policy2(), Quote: shell.Quote, Cwd: "/repo", Self: self, Writers: ws})
	if res.Verdict != rules.VerdictDeny || !strings.Contains(res.Reason, "the Write tool would change") {
		t.Errorf("Write tool: %v %s", res.Verdict, res.Reason)
	}
}

// policy2 is a policy with one file and nothing else in it.
func policy2() *rules.Policy {
	return &rules.Policy{Files: []rules.PolicyFile{{Layer: "project", File: "/repo/.ctxguard.yaml"}}, Contexts: map[string]*rules.ContextPolicy{}}
}
