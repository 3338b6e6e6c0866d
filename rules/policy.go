package rules

import (
	"regexp"
	"strconv"
)

// Setting is a decision setting of the policy (unbound, destructive, rewrite, a rule's
// decision): what the policy asks for, not what the engine answers (that is a [Verdict]), hence
// the prefix on its constants. Their order is strictness: a later layer can only move a setting
// towards SettingDeny.
type Setting int

const (
	SettingUnset Setting = iota
	SettingAllow
	SettingFix
	SettingAsk
	SettingDeny
)

var settingNames = [...]string{"", "allow", "fix", "ask", "deny"}

func (s Setting) String() string { return settingNames[s] }

// ParseSetting reads a setting word; ok is false for anything else.
func ParseSetting(word string) (s Setting, ok bool) {
	for i, n := range settingNames {
		if n != "" && n == word {
			return Setting(i), true
		}
	}
	return SettingUnset, false
}

// Stricter returns the stricter of two settings.
func Stricter(a, b Setting) Setting { return max(a, b) }

// Source is where a policy item was written: a file and a line, for explanations.
type Source struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

func (s Source) String() string {
	if s.Line == 0 {
		return s.File
	}
	return s.File + ":" + strconv.Itoa(s.Line)
}

// ProjectFile is the name of a project's policy file, which the engine's fixes name; package
// policy finds the file by it.
const ProjectFile = ".ctxguard.yaml"

// Policy is the effective policy, as far as the engine reads it: every layer (managed, user,
// project) merged so that later layers only narrow. The policy package builds it, with what the
// hook reads beside it (policy.Policy).
type Policy struct {
	// Files are the policy files that were read, in layer order.
	Files []PolicyFile
	// Contexts holds the per-provider settings, keyed by provider name.
	Contexts map[string]*ContextPolicy
	// Destructive caps the destructive packs: SettingAllow turns them off, SettingAsk keeps each
	// entry's tier, SettingDeny makes every entry deny. SettingUnset means SettingAsk when any
	// policy file exists.
	Destructive    Setting
	DestructiveSrc Source
	// Rules are the users' own rules from every layer.
	Rules []UserRule
}

// PolicyFile is one policy file that was read.
type PolicyFile struct {
	Layer string `json:"layer"` // managed, user, project
	File  string `json:"file"`
}

// ContextPolicy is what the policy says about one provider's contexts.
type ContextPolicy struct {
	// Allow holds one list per layer that set one; a value is allowed when it matches a pattern
	// in every list (so layers intersect). No list means every value is allowed.
	Allow []AllowList
	// Defaults holds each layer's default, most specific layer first; the first one that is
	// allowed is the binding target.
	Defaults []Valued
	// Unbound is the strictest unbound setting of the layers (SettingUnset: fix where the
	// provider can bind, else allow).
	Unbound    Setting
	UnboundSrc Source
}

// AllowList is one layer's allow list.
type AllowList struct {
	Patterns []string // ids or names; * globs
	Src      Source
}

// Valued is a value with its source.
type Valued struct {
	Value string
	Src   Source
}

// UserRule is one of the user's own rules: what it applies to, when, and the decision it forces
// there. A rule only ever adds ask or deny.
//
// A rule with Match is about shell commands; one with Paths or Content is about what a file tool
// writes; one with neither applies to every call of a CLI that a provider guards (and, with
// Tools naming file tools, to every write of those tools). Tools narrows any of them to the
// harness tools named.
type UserRule struct {
	ID       string
	Match    string // the CLI word followed by a command pattern ("az ad app permission grant")
	Tools    []string
	Paths    []PathPattern
	Content  *regexp.Regexp
	Decision Setting
	Reason   string
	// When and Unless are the rule's conditions: it applies when one item of When holds (or
	// When is empty) and no item of Unless does.
	When, Unless []Condition
	Src          Source
}

// file reports whether the rule is about a file tool's write.
func (r *UserRule) file() bool { return len(r.Paths) > 0 || r.Content != nil }
