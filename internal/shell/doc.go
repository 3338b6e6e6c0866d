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
// both directions right. Variables are never expanded: a word whose value depends on run-time state
// is reported as non-literal, with its source text, so the engine can be cautious about it.
//
// # What Parse reports
//
// Every simple command, in execution order: calls inside command substitutions and process
// substitutions come before the call whose words contain them, because the shell runs them first.
// A wrapper (sudo, env, nohup, xargs, find -exec, bash -c, eval, …) is reported as a call of its
// own, followed by the call it runs, whose Via lists the wrapper chain. Reporting the wrapper keeps
// every command word visible (an engine that guards `sudo` can), and the engine ignores names it
// does not guard. Start of a wrapped call is at its own command word, or at the `VAR=x` words that
// env or sudo pass to it just before that word; so `sudo az x` has the az call start at `az`.
//
// Strings that a shell will parse again (`bash -c STRING`, `eval`, a here-document or here-string
// fed to a shell, `echo '…' | sh`, `watch 'STRING'`, `su -c`) are parsed as scripts in their own
// right. Their calls have Src set to the string and Nested set, so their positions cannot be used
// to edit the line. Expansions inside such a string (`bash -c "az $ARGS"`) are replaced by unique
// placeholder words before parsing, and any word containing one is non-literal. Env values that a
// nested call inherits from an enclosing text have Pos and End -1: they do not point into its Src.
//
// # State tracked across calls
//
// `cd`/`pushd`/`popd` update Dir, `export`/`declare -x`/`unset`/`set -a` update Env, within the
// shell scope they run in: subshells, pipeline elements, background jobs, command substitutions and
// child shells get a copy that does not leak back. A change made inside an if/case/loop body makes
// Dir unknown afterwards, since the body may not run. sudo and doas start from an empty environment
// unless told to keep it (sudo -E), like their defaults do; env -i does the same.
//
// # Limits
//
// Re-parsing nests at most 16 levels, compound commands and substitutions at most 500 levels and
// wrapper chains at most 64 links; beyond that a call with Name "" and Via ending in "too deep"
// stands for the rest. Lines whose worst-case parser recursion could overflow the goroutine stack
// are refused with an error rather than crashing the hook.
package shell
