package providers

// Spec is one provider: the data that tells the engine how a CLI keeps its current context, how
// one call is bound to a context, which subcommands switch it, are exempt, or are destructive.
// It is decoded strictly from YAML (builtin/providers/*.yaml, or a user's providers folder).
type Spec struct {
	// Name identifies the provider in the policy (contexts.<name>) and in rule ids.
	Name  string `yaml:"name"`
	About string `yaml:"about"`
	// Commands are the command words this provider guards ("az"), after normalisation.
	Commands []string `yaml:"commands"`
	// Noun names what a context is, in reasons ("subscription", "context", "project").
	Noun string `yaml:"noun"`
	// ValueFlags are global flags that take a separate value ("-n", "--context"), so that the
	// value is not mistaken for a subcommand word when the subcommand path is read.
	ValueFlags []string `yaml:"value_flags"`
	Context    Context  `yaml:"context"`
	// Bind says how one call is bound to a context; nil when the CLI has no way to do it.
	Bind *Bind `yaml:"bind"`
	// Switch lists the subcommands that change the shared context.
	Switch []Switch `yaml:"switch"`
	// SwitchedBy lists other CLIs' command lines that change this provider's context as a side
	// effect ("az aks get-credentials" for kubectl). Their target is unknown.
	SwitchedBy []string `yaml:"switched_by"`
	// Exempt lists command patterns that skip the context check (self-inspection and repair).
	Exempt []string `yaml:"exempt"`
	// Destructive lists command patterns that need a human (ask) or are refused (deny).
	Destructive []Destructive `yaml:"destructive"`

	// Source names where the spec came from ("builtin:providers/az.yaml", a file path); set by
	// the loader, used in explanations.
	Source string `yaml:"-"`
}

// Context says how to read the active context from the CLI's state.
type Context struct {
	// Read is a list of steps evaluated in order. A step with Let names a value for later steps'
	// templates; the last step without Let gives the context.
	Read []Step `yaml:"read"`
	// Known lists the contexts the state file knows (for az: every subscription, with id and
	// name), so that a name in a flag or a policy matches its id and the other way round.
	Known *Known `yaml:"known"`
	// CaseInsensitive makes names match without regard to case, as the CLI does.
	CaseInsensitive bool `yaml:"case_insensitive"`
	// Exists, when set, restricts a rewrite target to values that satisfy one of these checks
	// (terraform: a workspace that exists; a misspelt TF_WORKSPACE creates a new one).
	Exists []Exists `yaml:"exists"`
}

// Step reads one value. The first source that yields a value wins: Flag, then Env, then File,
// then Default.
type Step struct {
	Let string `yaml:"let"`
	// Flag lists flags of the call whose value gives this step's value (--configuration,
	// --kubeconfig).
	Flag []string `yaml:"flag"`
	// Env names an environment variable whose value gives this step's value.
	Env string `yaml:"env"`
	// File is a path template: ${VAR}, ${VAR:-default}, ~ and earlier Let names are expanded; a
	// relative path is taken from the call's working directory. Windows and Darwin replace it on
	// those systems.
	File    string `yaml:"file"`
	Windows string `yaml:"windows"`
	Darwin  string `yaml:"darwin"`
	// List makes File a list of paths separated by the OS path-list separator (KUBECONFIG): missing
	// files are skipped and the first file in which Value is set wins.
	List bool `yaml:"list"`
	// Format is json, yaml, ini or text. A text file's value is its trimmed content.
	Format string `yaml:"format"`
	// Value and Name are gjson paths over the file turned into JSON: the context and its display
	// name. ${name} in a path is replaced by an earlier Let value, escaped for gjson.
	Value string `yaml:"value"`
	Name  string `yaml:"name"`
	// Default is used when nothing else gives a value.
	Default string `yaml:"default"`
}

// Known describes the list of contexts in the last file read.
type Known struct {
	List string `yaml:"list"` // gjson path of an array
	ID   string `yaml:"id"`   // path of the id within an element
	Name string `yaml:"name"` // path of the name within an element
}

// Exists is one check that a rewrite target exists.
type Exists struct {
	Equals string `yaml:"equals"` // the target is this literal
	Path   string `yaml:"path"`   // a path template (${value} is the target) that exists
}

// Bind says how one call is bound explicitly to a context.
type Bind struct {
	// Flags bind one call (--subscription). The first is the one a rewrite adds.
	Flags []string `yaml:"flags"`
	// Env lists variables that bind one call when set on it (TF_WORKSPACE). When Flags is empty
	// the first is the one a rewrite adds, as a `VAR=value` prefix.
	Env []string `yaml:"env"`
	// Place is where a rewrite puts the flag: "end" (after the last argument, before `--`; the
	// default) or "after-command" (right after the command word: docker's global flags must
	// precede the subcommand).
	Place string `yaml:"place"`
	// Reject lists command patterns that do not accept the binding: such calls are checked but
	// never rewritten.
	Reject []string `yaml:"reject"`
}

// Switch is one subcommand that changes the shared context.
type Switch struct {
	// Command is the subcommand pattern ("account set").
	Command string `yaml:"command"`
	// Flags give the target (--subscription, -s); otherwise Arg does.
	Flags []string `yaml:"flags"`
	// Arg is the 1-based positional word after the command pattern that gives the target; 0 means
	// 1 when Flags is empty.
	Arg int `yaml:"arg"`
	// Lookup, when set, is a gjson path template (${target} is the raw target) evaluated on the
	// last state file to turn the target into a context (pac: a profile index into its
	// environment URL). IndexBase is subtracted from a numeric target first.
	Lookup    string `yaml:"lookup"`
	IndexBase int    `yaml:"index_base"`
	// Sets names a Let step whose value the target replaces (gcloud: configurations activate sets
	// the configuration, and the context is read again from it).
	Sets string `yaml:"sets"`
	// Unknown marks a switch whose target cannot be known (az logout, kubectl config unset
	// current-context): later calls must be bound explicitly.
	Unknown bool `yaml:"unknown"`
}

// Destructive is one command pattern that needs a human or is refused.
type Destructive struct {
	Match string `yaml:"match"`
	// Tier is ask or deny.
	Tier string `yaml:"tier"`
	// Why is said in the reason.
	Why string `yaml:"why"`
}
