package policy

import (
	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/rules"
)

// Policy is the effective policy: what the engine reads ([rules.Policy]), and what the hook
// reads beside it.
type Policy struct {
	rules.Policy
	// RewriteMode SettingAsk has a human confirm every rewrite (the bound command is what they
	// see). SettingUnset answers a rewrite with the bound command alone, and the harness's own
	// permission rules decide on it as they would have on the original.
	RewriteMode    rules.Setting
	RewriteModeSrc rules.Source
	// Notes are what the files say that ctxguard no longer reads, each "file:line:col: message";
	// the policy loads without it.
	Notes []string
	// Forget turns session memory off (session: {remember: false}): later calls of a session are
	// bound to the active context, not to the one the session switched to. Off wins across
	// layers, and ForgetSrc names the layer that turned it off.
	Forget    bool
	ForgetSrc rules.Source
	// Audit is what the layers say about the audit trail: the hook writes it (see
	// internal/audit).
	Audit audit.Trail
	// Locked lists the rules the managed layer wrote, which no lift lifts: the ids of its own
	// rules, and rules.RuleDestructive when it sets destructive (then no destructive entry is lifted).
	Locked []string
}
