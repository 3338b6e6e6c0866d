// Package client is the end-to-end suite that runs the real agent clients (Claude Code, GitHub
// Copilot CLI, …) headless and offline, with ctxguard wired in by its own `ctxguard install`,
// and judges ctxguard by what the clients then did: the command lines that reached the CLIs, as
// the shim CLIs on PATH logged them with the context each acted in, and what the clients told
// the model (internal/llm) about each tool call.
//
// Every case runs twice, once without ctxguard and once with it, in throwaway homes: a rewrite
// must change what runs, never whether it runs, so the client's own decision (its permission
// mode, the user's allow and deny rules) must come out the same, except where ctxguard itself
// denies or asks, whose reason must then reach the model.
//
// The clients are npm packages pinned in .ci/clients.tsv and installed by .ci/clients into a
// cache ($CTXGUARD_CLIENTS, default ${XDG_CACHE_HOME:-~/.cache}/ctxguard/clients). A client
// that is not installed is skipped with one line, except under CI=true, where it fails.
package client
