// Package guard decides one command line: it loads the providers and the policy that apply to
// the command's directory, parses the line, reads the state the calls need, runs the rules
// engine, and applies and verifies the rewrite. Both `ctxguard hook` and `ctxguard explain` go
// through [Decide], so that what explain shows is exactly what the hook does.
package guard
