package spec

// Spec is one provider: the data that tells the engine how a CLI keeps its current context, how
// one call is bound to a context, which subcommands switch it, are exempt, or are destructive.
// It is decoded strictly from YAML (builtin/providers/*.yaml, or a user's providers folder: see
// internal/catalog) and checked by [Check].
type Spec struct {
	// Name identifies the provider in the policy (contexts.<name>) and in rule ids.
	Name  string `yaml:"name"`
	About string `yaml:"about"`
	// Commands are the command words this provider guards ("az"), after normalisation.
	Commands []string `yaml:"commands"`
	// Noun names what a context is, in reasons ("subscription", "context", "project");
	// [Spec.SetDefaults] sets "context" when it is not given.
	Noun string `yaml:"noun"`
	// ValueFlags are global flags that take a separate value ("-n", "--context"), so that the
	// value is not mistaken for a subcommand word when the subcommand path is read.
	ValueFlags []string `yaml:"value_flags"`
	// DirFlags are flags that set the CLI's working directory (terraform -chdir=DIR). The engine
	// takes the call's directory from them before it reads state; relative state paths follow.
	DirFlags []string `yaml:"dir_flags"`
	// GlobalsFirst says that the CLI's own flags (bind.flags, the read steps' flags, dir_flags)
	// count only before the first subcommand word, as docker's global flags do: after it they
	// are the subcommand's (`docker run -c 512` is --cpu-shares, `docker ps --context x` is an
	// error), so a binding written there is no binding.
	GlobalsFirst bool `yaml:"globals_first"`
	// Shares names another provider whose state this CLI reads (helm and oc read kubectl's
	// kubeconfig): a switch of either moves both, in the line and in session memory.
	Shares  string  `yaml:"shares"`
	Context Context `yaml:"context"`
	// Bind says how one call is bound to a context; nil when the CLI has no way to do it.
	Bind *Bind `yaml:"bind"`
	// Switch lists the subcommands that change the shared context.
	Switch []Switch `yaml:"switch"`
	// SwitchedBy lists other CLIs' command lines that change this provider's context as a side
	// effect ("az aks get-credentials" for kubectl). Each is a switch entry whose Command starts
	// with the other CLI's command word; YAML may write one as a plain string, whose target is
	// unknown and asked about (it moves every session to a context nobody can check first). An
	// entry with a target (kubectx NAME, or one its Read steps work out: kind create cluster
	// selects kind-<name>) is checked against the policy like a switch.
	SwitchedBy []Switch `yaml:"switched_by"`
	// RedefinedBy lists other CLIs' command lines that change what one of this provider's
	// contexts is, as Redefine does for its own (kubens NAME sets the current context's
	// namespace): each Command starts with the other CLI's command word.
	RedefinedBy []Redefine `yaml:"redefined_by"`
	// Help lists the flags that make any call print its help and do nothing else (--help): such
	// a call is allowed whatever it names, destructive or not.
	Help []string `yaml:"help"`
	// Exempt lists command patterns that skip the context check (self-inspection and repair).
	Exempt []string `yaml:"exempt"`
	// Destructive lists command patterns that need a human (ask) or are refused (deny).
	Destructive []Destructive `yaml:"destructive"`
	// Overrides are flags and variables that replace the context for one call without being the
	// binding (gh GH_TOKEN, kubectl --server, az --ids /subscriptions/<id>/…): each is checked
	// like a binding.
	Overrides []Override `yaml:"overrides"`
	// Redefine lists subcommands that change what a context name means rather than which one
	// is current (kubectl config set-context dev --cluster=prod): redefining an allowed context
	// is asked about.
	Redefine []Redefine `yaml:"redefine"`
	// Prefix says the CLI accepts any unique prefix of a long option (Python's argparse: az's
	// --subs is --subscription). Long options are then normalised against the flags this spec
	// names and Options before bindings, switches and patterns are matched.
	Prefix bool `yaml:"prefix"`
	// Options are the CLI's other long options, for Prefix: a prefix is expanded only when it
	// names exactly one known option.
	Options []string `yaml:"options"`
	// Examples show and prove what the entries above decide (`ctxguard test`). A hook run needs
	// none of them, so the compiled built-in specs leave them out.
	Examples []Example `yaml:"examples" generate:"-"`
	// AttachedValues says the CLI reads a short option's value from the rest of its word, as
	// pflag (Go's cobra CLIs), argparse and commander do: `-cprod` is `-c prod`, and so is
	// `-c=prod`. Flags the spec names are then found written that way too.
	AttachedValues bool `yaml:"attached_values"`

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
	Known *KnownList `yaml:"known"`
	// CaseInsensitive makes names match without regard to case, as the CLI does.
	CaseInsensitive bool `yaml:"case_insensitive"`
	// DefinedIn lists files that define what the contexts are without saying which one is
	// current (aws's ~/.aws/credentials, docker's contexts/meta/): they are path templates like a
	// step's File, may use the steps' Let names, and are protected like state files. A template
	// that ends in / names a folder whose files all count.
	DefinedIn Strings `yaml:"defined_in"`
	// Listed says where the contexts are defined when the state file read does not list them
	// all: aws's profiles are sections of two INI files, gcloud's configurations and docker's
	// contexts are files of a folder, azd's environments are folders. `ctxguard init` reads them
	// (with Known) to propose an allow list; a hook run never does.
	Listed []Listing `yaml:"listed"`
	// Exists, when set, restricts a rewrite target to values that satisfy one of these checks
	// (terraform: a workspace that exists; a misspelt TF_WORKSPACE creates a new one).
	Exists []Exists `yaml:"exists"`
}

// Step reads one value. The first source that yields a non-empty value wins: Flag, then Env,
// then File, then Default; OverriddenBy, when set, stands between Flag and Env. A Let value
// forced by an earlier switch in the same command line (Input.Vars) stands in for what the file
// says: a flag or an env var on the call still beats it, as they beat the file.
type Step struct {
	Let string `yaml:"let"`
	// Flag lists flags of the call whose value gives this step's value (--configuration,
	// --kubeconfig).
	Flag []string `yaml:"flag"`
	// Env names the environment variables whose value gives this step's value, the first set
	// one winning. When two are set to different values the value is unknown ([ErrUnknown]):
	// versions of a CLI may differ on which wins (aws-cli 2 takes AWS_PROFILE, aws-cli 1
	// AWS_DEFAULT_PROFILE).
	Env Strings `yaml:"env"`
	// OverriddenBy lists environment variables and flags (those starting with -) that make the
	// CLI ignore this value when they are set and Flag is not: docker talks to DOCKER_HOST or -H
	// whatever its context says; aws signs with AWS_ACCESS_KEY_ID whatever AWS_PROFILE says.
	// The value is then unknown ([ErrUnknown]), so a call must be bound with Flag.
	OverriddenBy []string `yaml:"overridden_by"`
	// Replaced lists what changes what a value means rather than which value it is: set on the
	// call or in the environment, it makes the CLI act somewhere the value does not say, whatever
	// gave the value, Flag included. docker builds its default context from DOCKER_HOST; doctl's
	// default context signs with --access-token. Only the last step has it.
	Replaced []Replaced `yaml:"replaced"`
	// File holds path templates: ${VAR}, ${VAR:-default} (defaults nest), a leading ~, earlier
	// Let names (which shadow env vars) and, on Windows, %VAR% are expanded; a relative path is
	// taken from the call's working directory. A template whose variable is unset or empty (and
	// has no default) names no file. Windows and Darwin replace File on those systems. Each is a
	// string or a list: the first file of the list that exists is read (pac's folder moved on
	// macOS with .NET 8, so both places are probed).
	File    Strings `yaml:"file"`
	Windows Strings `yaml:"windows"`
	Darwin  Strings `yaml:"darwin"`
	// FindUp looks for a relative File in the call's directory and then in each parent, as
	// project files are found (Pulumi.yaml, azure.yaml): the first directory that has one of the
	// files wins.
	FindUp bool `yaml:"find_up"`
	// Take makes a Let step's value the file it found instead of a value in it: "path" (its
	// absolute path, symbolic links resolved) or "dir" (the directory it is in). Format and
	// Value are then not used.
	Take string `yaml:"take"`
	// Hash replaces a Let step's value by its hash, in lower-case hex: "sha1" (pulumi names a
	// project's workspace file by the SHA-1 of the project file's path).
	Hash string `yaml:"hash"`
	// List makes File a list of paths separated by the OS path-list separator (KUBECONFIG): missing
	// files are skipped and the first file in which Value is set wins.
	List bool `yaml:"list"`
	// Format is the file's format. A text file's value is its trimmed content.
	Format Format `yaml:"format"`
	// Value and Name are gjson paths over the file turned into JSON: the context and its display
	// name. ${name} in a path is replaced by an earlier Let value, escaped for gjson. Value may be
	// empty for a text file (the whole content).
	Value string `yaml:"value"`
	// Else lists gjson paths tried in order when Value gives nothing: an older key the CLI still
	// reads (pulumi's "stack" beside its per-backend "stacks").
	Else []string `yaml:"else"`
	Name string   `yaml:"name"`
	// Unset lists values that the CLI writes to mean "no context" (pac's service URL when no
	// environment is selected); they count as no value.
	Unset []string `yaml:"unset"`
	// Default is used when nothing else gives a value. It is a template like File (so that
	// ~/.kube/config names the home directory) but is not taken from the working directory.
	Default string `yaml:"default"`
}

// Replaced is one set of variables and flags that replace what a context means: when one of By
// is set and the value is one of When (any value, when When is empty), the context is unknown
// ([ErrReplaced]), and a binding to such a value binds nothing.
type Replaced struct {
	// By lists environment variables and flags (those starting with -).
	By []string `yaml:"by"`
	// When lists the values it applies to.
	When []string `yaml:"when"`
}

// Strings is a list of strings (path templates, variable names) that YAML may also write as
// one string.
type Strings []string

// UnmarshalYAML accepts a string or a list of strings. It uses the decoder's function-style
// hook so that this package needs no YAML import (and no YAML library in its users' imports);
// strictness and positions come from the caller's decoder.
func (p *Strings) UnmarshalYAML(unmarshal func(any) error) error {
	var one string
	if err := unmarshal(&one); err == nil {
		*p = Strings{one}
		return nil
	}
	var many []string
	if err := unmarshal(&many); err != nil {
		return err
	}
	*p = many
	return nil
}

// KnownList says where the last file read lists the contexts it knows.
type KnownList struct {
	List string `yaml:"list"` // gjson path of an array
	ID   string `yaml:"id"`   // path of the id within an element
	Name string `yaml:"name"` // path of the name within an element
	// Fields name more of an element's values (field name -> path within the element), which a
	// policy's conditions can match: pac's environment type (type: EnvironmentType), az's
	// tenant. The names are the provider's vocabulary; "id" and "name" are taken.
	Fields map[string]string `yaml:"fields"`
}

// Listing is one place where a CLI's contexts are defined: the files File names (path templates
// as a step's, with the steps' Let names; a * in one element of a path matches any run of
// characters in that element, one file or folder per context), and in each file the contexts
// List gives.
type Listing struct {
	File    Strings `yaml:"file"`
	Windows Strings `yaml:"windows"`
	Darwin  Strings `yaml:"darwin"`
	// Format is the files' format; without one a file is not read, only found (azd's
	// environments are the folders that have a .env), and ID and Name must be "*".
	Format Format `yaml:"format"`
	// List is the gjson path of the list in a file; without it each file is one context.
	List string `yaml:"list"`
	// ID and Name are gjson paths within an element (the file, without List), or "*": the run of
	// characters that the * of File matched (gcloud's configuration config_dev is dev).
	ID   string `yaml:"id"`
	Name string `yaml:"name"`
	// Match is a regular expression that an id must match to be a context; its first group, when
	// it has one, is then the id ([profile dev] in ~/.aws/config is the profile dev, and
	// [sso-session corp] is none).
	Match string `yaml:"match"`
}

// Step is the read step that finds a listing's files: its templates and format.
func (l *Listing) Step() Step {
	return Step{File: l.File, Windows: l.Windows, Darwin: l.Darwin, Format: l.Format}
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
	// Place is where a rewrite puts the flag ([PlaceEnd] when it is not given).
	Place Place `yaml:"place"`
	// Reject lists command patterns that do not accept the binding: such calls are checked but
	// never rewritten.
	Reject []string `yaml:"reject"`
}

// Switch is one subcommand that changes the shared context. Several entries may share a
// Command (pac auth select --index / --name; gh auth switch with and without --user): the first
// entry that applies to a call is used.
type Switch struct {
	// Command is the subcommand pattern ("account set").
	Command string `yaml:"command"`
	// Flags give the target (--subscription, -s). An entry with Flags applies only to calls that
	// have one of them, so that a later entry for the same Command can say what the call without
	// them does (take a positional word, or be Unknown).
	Flags []string `yaml:"flags"`
	// Arg is the 1-based positional word after the command pattern that gives the target when
	// there are no Flags; 0 means 1. Flags and Arg exclude each other.
	Arg int `yaml:"arg"`
	// Unless lists flags that make the command leave the context alone (gcloud config
	// configurations create --no-activate): the entry does not apply to a call that has one. A
	// flag written with a value (--set-current-context=false) counts only with that value.
	Unless []string `yaml:"unless"`
	// Lookup, when set, is a gjson path template (${target} is the raw target, escaped for
	// gjson) evaluated on the last state file to turn the target into a context (pac: a profile
	// index into its environment URL). IndexBase is subtracted from a numeric target first.
	// The state reader's Target (rules.State) does both.
	Lookup    string `yaml:"lookup"`
	IndexBase int    `yaml:"index_base"`
	// Sets names a Let step whose value the target replaces (gcloud: configurations activate sets
	// the configuration, and the context is read again from it through Input.Vars).
	Sets string `yaml:"sets"`
	// Read, when set, works the target out from the call instead of taking it as written: steps
	// read like Context.Read, over the switching call's flags and environment and the files
	// they name, whose last value is the context the switch selects (kind create cluster
	// selects kind-${name}, its --name else KIND_CLUSTER_NAME else kind). ${target} in them is
	// the word Flags or Arg give, when the entry names one. When they give nothing (a --config
	// file names the cluster instead), the switch selects a context the line does not tell, and
	// is asked about as with Asks.
	Read []Step `yaml:"read"`
	// ValueFlags, in a switched_by entry, are the other CLI's flags that take a separate value
	// (minikube -p NAME start), so that the value is not read as its subcommand; the entry's
	// Flags and its Read steps' flags count as such too.
	ValueFlags []string `yaml:"value_flags"`
	// Unknown marks a switch whose target cannot be known (az logout, kubectl config unset
	// current-context): later calls must be bound explicitly.
	Unknown bool `yaml:"unknown"`
	// Asks marks a switch whose unknown target is another context that exists (gh auth switch
	// without --user toggles to the other account, aws eks update-kubeconfig selects the
	// cluster's ARN): it moves every session there, so a human decides wherever the policy
	// restricts the contexts.
	Asks bool `yaml:"asks"`
	// Creates marks a switch that creates the context it names (terraform workspace new): the
	// command a reason offers when the policy's default does not exist where the call runs.
	Creates bool `yaml:"creates"`
	// Redefines marks a switch that also writes what its target is (aws eks update-kubeconfig
	// --alias dev points the context dev at the cluster it fetches): an allowed target is asked
	// about, since every later call bound to that name would act where the command says.
	Redefines bool `yaml:"redefines"`
}

// Override is a flag or variable that replaces the context of one call.
type Override struct {
	Flags []string `yaml:"flags"`
	Env   []string `yaml:"env"`
	// Command limits it to calls that match this pattern (az rest --url).
	Command string `yaml:"command"`
	// Match is a regular expression a value must match to replace the context (gh -R
	// HOST/OWNER/REPO, not OWNER/REPO). Its first group, if it has one, is the context the call
	// then acts in, checked like a binding; without a group that context is not known, and the
	// call is asked about.
	Match string `yaml:"match"`
	// Why is said in the reason.
	Why string `yaml:"why"`
}

// Redefine is one subcommand that changes what a context is.
type Redefine struct {
	Command string `yaml:"command"`
	// Arg is the 1-based positional word after the command that names the context it
	// redefines; 0 means any context may be changed (kubectl config set-cluster: a cluster is
	// shared by contexts).
	Arg int `yaml:"arg"`
	// Match, when set, is a regular expression whose first group takes the name from that word
	// (config set contexts.NAME.cluster); a word that does not match is not a redefinition.
	Match string `yaml:"match"`
	// Current lists flags that make it redefine the current context (--current).
	Current []string `yaml:"current"`
	// Selected makes it redefine the context the call itself selects, read as any call of the
	// CLI is (aws configure writes the profile that --profile, AWS_PROFILE or "default" names).
	Selected bool `yaml:"selected"`
	// Except lists command patterns under Command that only read (aws configure list).
	Except []string `yaml:"except"`
	// CurrentAlways says that every call it matches redefines the current context, with no
	// flag needed (kubens NAME sets the current context's namespace).
	CurrentAlways bool `yaml:"current_always"`
}

// UnmarshalYAML accepts a mapping, or (in switched_by) a plain string: a command whose target is
// unknown, asked about. A switcher that selects no context at all (kind delete cluster clears
// it) is written as a mapping with unknown: true and no asks.
func (sw *Switch) UnmarshalYAML(unmarshal func(any) error) error {
	var command string
	if err := unmarshal(&command); err == nil {
		*sw = Switch{Command: command, Unknown: true, Asks: true}
		return nil
	}
	type plain Switch // without this method, so that the decoder's strictness applies
	return unmarshal((*plain)(sw))
}

// Destructive is one command pattern that needs a human or is refused.
type Destructive struct {
	Match string `yaml:"match"`
	Tier  Tier   `yaml:"tier"`
	// Why is said in the reason.
	Why string `yaml:"why"`
	// Unless lists flag values that make the command harmless (kubectl --dry-run=client): the
	// entry does not apply when the last occurrence of such a flag has such a value and every
	// word of the call is literal, since a word like "$ARGS" could repeat the flag with another.
	Unless []string `yaml:"unless"`
}

// Format is the format of a state file. A State reader turns each into JSON, so that one path
// language (gjson) reads all of them.
type Format string

const (
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
	// FormatINI is [section] and key = value lines (gcloud's configurations).
	FormatINI Format = "ini"
	// FormatText is a file whose trimmed content is the value (terraform's environment file).
	FormatText Format = "text"
)

// Formats returns every Format, in the order the schema lists them.
func Formats() []Format { return []Format{FormatJSON, FormatYAML, FormatINI, FormatText} }

// Place is where a rewrite inserts a binding flag.
type Place string

const (
	// PlaceEnd is after the last argument, before a `--` (the default).
	PlaceEnd Place = "end"
	// PlaceAfterCommand is right after the command word: docker's global flags must precede the
	// subcommand.
	PlaceAfterCommand Place = "after-command"
)

// Tier is how a destructive command is answered.
type Tier string

const (
	// TierAsk needs a human to confirm the command.
	TierAsk Tier = "ask"
	// TierDeny refuses it: the agent is told to ask the user to run it.
	TierDeny Tier = "deny"
)
