package spec

// Example is one of a provider's examples: a command, the state it runs in and the decision
// ctxguard must make, so that a provider file shows how its entries behave and `ctxguard test`
// proves it. An example runs under a policy that names only this provider, with the allow
// list, default and unbound setting the example gives (none: every context is allowed and an
// unbound call is bound to the active one), and the built-in destructive setting.
type Example struct {
	Command string `yaml:"command"`
	// Shell is bash (the default) or powershell.
	Shell string `yaml:"shell"`
	// Active is the active context the state gives; Known the contexts it lists (for names, a
	// switch's lookup, and the targets that exist).
	Active  *ContextValue  `yaml:"active"`
	Known   []ContextValue `yaml:"known"`
	Allow   []string       `yaml:"allow"`
	Default string         `yaml:"default"`
	Unbound string         `yaml:"unbound"`
	Expect  Expect         `yaml:"expect"`
}

// ContextValue is a context as a test fakes it: its id, its display name and its fields
// (KnownList.Fields). YAML may write it as the id alone.
type ContextValue struct {
	ID     string            `yaml:"id"`
	Name   string            `yaml:"name"`
	Fields map[string]string `yaml:"fields"`
}

// UnmarshalYAML accepts an id alone or the mapping.
func (v *ContextValue) UnmarshalYAML(unmarshal func(any) error) error {
	var id string
	if err := unmarshal(&id); err == nil {
		*v = ContextValue{ID: id}
		return nil
	}
	type plain ContextValue // without this method
	return unmarshal((*plain)(v))
}

// Expect is what a test or an example expects ctxguard to answer: the decision (allow, rewrite,
// ask, deny), and where given the command as it should run, the id of the rule that decided,
// and a part of the reason.
type Expect struct {
	Decision string `yaml:"decision"`
	Command  string `yaml:"command"`
	Rule     string `yaml:"rule"`
	Reason   string `yaml:"reason"`
}

// Decisions are the words Expect.Decision takes: the engine's verdicts, from the least strict
// (rules.Verdict's names, in its order).
var Decisions = []string{"allow", "rewrite", "ask", "deny"}
