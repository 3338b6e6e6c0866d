// Package policy finds the user's policy files, reads them strictly and merges them into one
// [Policy]: the [rules.Policy] the engine reads, and what the hook reads beside it.
//
// There are three layers, all optional: managed (an organisation's, in a system directory), user
// (house rules, in the user's config directory) and project (the nearest .ctxguard.yaml above
// the command's working directory, versioned with the repository). No file anywhere means no
// policy, and the caller allows everything: a guard that blocks everything on install gets
// uninstalled.
//
// Layers only narrow. A project file sits in a repository that an agent can write to, so it must
// not be able to widen what the user or the organisation set: allow lists are kept per layer and
// intersected by the engine, and every decision setting takes the strictest value any layer
// gives. Defaults are the one thing a later layer adds in front, because the most specific layer
// knows best which allowed context a command should be bound to; the engine still binds only to
// a default that every layer allows.
//
// Files are read strictly: an unknown key, a misspelt setting or a malformed pattern is an error
// naming file:line:col, never a setting silently ignored. A file that exists but cannot be read is
// an error too (the hook denies with it), while a directory that cannot be searched on the way up
// is passed over, since no command could run in it anyway.
package policy
