// Package guard decides one command line: it loads the providers (internal/catalog) and the
// policy (internal/policy) that apply to the command's directory, parses the line in its shell
// (internal/shell), opens the session's memory (internal/session), runs the rules engine over a
// state reader (package providers), and applies and verifies the rewrite. Both `ctxguard hook`
// and `ctxguard explain` go through [Decide], so that what explain shows is exactly what the
// hook does. It is where the pure engine meets the file system.
package guard
