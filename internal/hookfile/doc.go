// Package hookfile adds ctxguard's hook entries to an agent harness's JSON configuration file and
// takes them out again, changing nothing else in the file.
//
// A settings file belongs to the user: it holds their other hooks, permissions and plugins, in
// the key order, indentation and line endings they chose. Decoding it into Go values and
// encoding it again would reorder keys, re-indent everything and turn 1e3 into 1000, so this
// package edits the file as text instead. It parses the JSON (with github.com/tailscale/hujson,
// which also reads comments and trailing commas) into a tree that records where every value, key
// and member sits in the bytes ([Parse]), and each edit splices one member or item in
// or out at those offsets, copying the whitespace its neighbours use (or, for the first item of a
// container, the file's own indentation unit and line ending). Everything outside the splice is
// left byte for byte, so installing and then uninstalling gives back the original file.
//
// Every harness keeps its hooks under a top-level "hooks" object, one array per event: Copilot
// CLI and Cursor list handlers in it directly, while Claude Code, Gemini CLI and Codex list
// groups of the form {matcher, hooks: [handler…]} ([Layout]). A handler is ctxguard's when the
// program it runs is named ctxguard (see owned); nothing else is ever removed.
//
// Settings files may hold comments and trailing commas (JSON with commas and comments, which
// editors allow in settings files): comments stay where they are, a comment on the line of the
// member that ctxguard's entry follows stays on that line, and a trailing comma stays trailing.
// A file that is not valid even so is never touched: the error names file:line:col.
package hookfile
