package rules

// Call is one command that a command line would run, as the shell parser found it: the command
// word seen through wrappers, quoting and paths, its arguments, and the environment and working
// directory it would get. The parser (internal/shell) produces calls; the engine never parses.
type Call struct {
	// Name is the command word normalised: quotes removed, a leading backslash dropped, directories
	// and a Windows suffix of [ProgramSuffixes] stripped ("/usr/bin/az" and "az.cmd" are "az").
	// It is "" when the command word is not literal (see NameWord).
	Name string
	// NameWord is the command word as written, with its position in Src.
	NameWord Word
	// Args are the words after the command word, in order.
	Args []Word
	// Env holds the environment the call gets from the line: `VAR=x` prefixes, `env VAR=x`
	// wrappers, and variables exported earlier in the same shell scope, later ones last.
	Env []Assign
	// Code is set for an interpreter's literal program that starts a process (python -c
	// 'subprocess.run([...])'): NameWord is the program, and it is asked about when its text
	// names a guarded CLI.
	Code bool
	// EnvCleared is set when the call starts from an empty environment (env -i, sudo): only Env
	// applies to it. Unset lists variables removed from its environment (env -u NAME).
	EnvCleared bool
	Unset      []string
	// Dir is the working directory relative to the line's own (after `cd DIR &&`, `pushd`), or
	// "" when the line did not change it. DirUnknown is set when a `cd` target was not literal.
	Dir        string
	DirUnknown bool
	// Via is the wrapper chain the call was found through, outermost first ("sudo", "bash -c",
	// "xargs", "$(…)"). Empty for a plain command. The labels are for people; what the engine
	// needs from the chain is Wrapped.
	Via []string
	// Wrapped is set when the command word follows a wrapper's words in the same command (sudo
	// az, xargs az, op run -- az): a `VAR=x` written before it would be the wrapper's argument,
	// so a binding by variable needs `env VAR=x`.
	Wrapped bool
	// Src is the text the positions in NameWord, Args and Env refer to: the whole command line, or
	// the string that was re-parsed as a script (`bash -c '…'`, `eval`, a here-document fed to a
	// shell). Nested is true in the second case: such a call cannot be rewritten in place.
	Src    string
	Nested bool
	// Start and End delimit the whole call in Src, from its first assignment or wrapper-free
	// command word to the end of its last argument (redirections and comments excluded).
	Start, End int
	// ArgsAppended is set when the wrapper adds arguments at run time (xargs, find -exec … {}),
	// so the arguments seen here are not all the call gets.
	ArgsAppended bool
	// Writes are the files the statement's output redirections open for writing (`>`, `>>`,
	// `>|`, `&>`, `&>>`, `<>`; in PowerShell `>`, `>>`, `2>`, `*>` …), in order. They belong to
	// the outermost call of the statement (`sudo echo x > f`: sudo's, whose shell opens f), or to
	// a call with Name "" and no command word when the statement has no simple command (`> f`,
	// `{ …; } > f`). A file that a command writes because of its arguments (tee, cp) is not here:
	// which argument that is, is data the engine is given (see [Writer]).
	Writes []Word
	// May holds, for words of the call that are not literal, what the line shows they may be: the
	// word (same Pos and End) with a variable replaced by what a for loop ranges over or what
	// was assigned to it (`"$f"` in `for f in ~/.kube/*` is `"~/.kube/*"`), or find's {} by
	// what it may find. The checks of what a written path may name read them beside the word.
	// Literal ones at the command word's place are what a wrapper appends to the arguments
	// (ArgsAppended: `echo f | xargs rm`), which the rules about written files read after them.
	May []Word
}

// Word is one shell word of a call.
type Word struct {
	// Value is the word after quote removal when Literal; otherwise the source text as written.
	Value string
	// Literal is false when the word has an expansion ($VAR, $(…), globs, braces, ~user) that a
	// static reading cannot resolve.
	Literal bool
	// Pos and End are byte offsets of the word in the call's Src. Both are -1 for an Env value
	// that has no span of its own there: one a nested call inherits from an enclosing text
	// (`X=1 bash -c 'az …'`), or an `env` assignment whose name is quoted (`env "X"=1 az`).
	Pos, End int
}

// Assign is an environment assignment that applies to a call.
type Assign struct {
	Name  string
	Value Word
	// Prefix is true for a `VAR=x cmd` prefix or an `env VAR=x` wrapper; false when the variable
	// was exported earlier in the line.
	Prefix bool
}

// Edit inserts Text at byte offset At of a call's Src. The engine renders the text (values are
// shell-quoted by the quoting function it is given); the shell package applies and verifies it.
type Edit struct {
	At   int
	Text string
}

// ProgramSuffixes are the Windows suffixes that a command word may end in, which a Call's Name
// drops, in a line of the shell: Git Bash runs a Windows program by .exe, .cmd and .bat;
// PowerShell also runs its scripts (.ps1) and PATHEXT's .com.
func ProgramSuffixes(shell string) []string {
	if shell == ShellPowerShell {
		return psSuffixes
	}
	return bashSuffixes
}

var (
	bashSuffixes = []string{".exe", ".cmd", ".bat"}
	psSuffixes   = []string{".exe", ".cmd", ".bat", ".ps1", ".com"}
)
