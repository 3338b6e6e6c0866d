// Package shell turns a command line into the calls it would run, and applies verified edits to
// it. It is the only package that imports mvdan.cc/sh: the engine reasons about rules.Call values
// and never sees shell syntax, so every quoting, wrapper and nesting subtlety is decided here, once.
//
// # Why a real parser
//
// The hook runs before every shell command an agent issues, and the commands it guards are easy to
// hide from a regular expression: `"az" group delete`, `\kubectl`, `sudo -E env X=1 az …`,
// `bash -c "…"`, `$(…)`, a here-document piped to `sh`. Conversely `git commit -m "az group delete"`
// or `echo 'kubectl delete ns prod'` mention a guarded CLI without running it. Parsing with the same
// grammar bash uses (mvdan.cc/sh in bash mode) and then walking the tree is the only way to get
// both directions right. A word whose value the line itself gives (`a=az; $a group list`) is
// expanded with what the walk knows (see bash_value.go: constant propagation); a word whose value
// depends on anything else is reported as non-literal, with its source text, so the engine can be
// cautious about it.
//
// # What Parse reports
//
// Every simple command, in execution order: calls inside command substitutions and process
// substitutions come before the call whose words contain them, because the shell runs them first
// (this holds inside arithmetic and tests too, which are otherwise not calls).
//
// A wrapper (sudo, doas, env, command, builtin, exec, nohup, time, timeout, nice, ionice, stdbuf,
// setsid, watch, xargs, parallel, find -exec, fd -x, chroot, wsl) is reported as a call of its own,
// followed by the call it runs, whose Via lists the wrapper chain. Reporting the wrapper keeps every
// command word visible (an engine that guards `sudo` can), and the engine ignores names it does not
// guard. A wrapped call's Start is at its own command word, or at the `VAR=x` words that env or
// sudo pass to it just before that word; so `sudo az x` has the az call start at `az`, and
// `env X=1 az x` at `X=1`. What each wrapper runs, and how, is one row of one table
// (wrapper.go), read by one resolver (resolve.go) for the bash and the PowerShell reader alike.
//
// Strings that a shell parses again (`bash -c STRING`, `eval`, a here-document or here-string fed
// to a shell, `echo '…' | sh`, `xargs -I{} sh -c {}` fed by echo, `watch 'STRING'`, `su -c`,
// `trap STRING SIG`, `ssh host STRING`, `parallel ::: STRING`, `pwsh -Command STRING`,
// `pwsh -EncodedCommand BASE64`, `cmd /c STRING`) are parsed as scripts in their own right, in the
// language of the shell that runs them (nested.go). Their calls have Src set to the string and
// Nested set, so their positions cannot be used to edit the line. Expansions inside such a string
// (`bash -c "az $ARGS"`) are done by the outer shell first, so each is replaced by a unique
// placeholder word before parsing, and any word containing one is non-literal, with its original
// text; a PowerShell string with such an expansion is not read (what the expansion becomes in
// PowerShell's syntax is not known). Env values that a nested call inherits from an enclosing text
// have Pos and End -1: they do not point into its Src.
//
// A text that cannot be read (a string that does not parse, or nesting beyond the limits below) is
// reported as one call with Name "" whose command word and single argument are that text,
// non-literal: a guard that looks for guarded names in non-literal command words still sees it.
//
// # State tracked across calls
//
// `cd`/`pushd`/`popd` update Dir, `export`/`declare -x`/`unset`/`set -a` update Env, within the
// shell scope they run in: subshells, pipeline elements, background jobs, command substitutions,
// function bodies and child shells get a copy that does not leak back; eval and `builtin cd` act
// on the current shell. A directory or a variable (exported or not) that an if/case/loop body or
// the right side of && or || changes is unknown afterwards, since the body may not run, and so
// it is in a later branch, which runs instead; a loop's body is walked again for each state a
// later iteration can start in (bash_value.go). A variable that is unknown but whose possible
// text the line shows (a for loop's items, an assignment from $HOME) is reported beside the words
// that read it (rules.Call.May), as are the paths find may find for its -delete and {}. sudo,
// doas and `env -i` start the wrapped call from an empty environment, like their defaults do
// (sudo -E keeps it).
//
// # Limits
//
// Re-parsing nests at most 16 strings deep, compound commands and substitutions at most 500 levels
// within one text, and wrapper chains at most 64 links. Lines whose worst-case parser recursion
// could overflow the goroutine stack (a fatal error that would let the command through), and lines
// with a NUL byte (which bash drops and the parser mis-positions), are refused with a
// *SyntaxError, as are lines bash itself would reject.
//
// Followed within the line: functions defined in it (walked again at each call with the call's
// arguments, in the caller's shell), files it writes from literals and copies or links of programs
// it makes (bash_file.go), one-word aliases, `hash -p`, and the literal code of interpreters that
// start a process (python, node, perl, ruby, php, awk: reported as a call whose command word is the
// code). Not modelled: the content of script files that existed before the line (`bash
// deploy.sh`, `source x`, `pwsh -File deploy.ps1`), aliases from startup files, CDPATH, cmd.exe's
// own syntax (a `cmd /c` string that bash would read differently is unreadable), names computed
// at run time inside an interpreter. PowerShell has the same constant propagation and functions
// (powershell_value.go) and file tracking (powershell_file.go).
package shell
