// Package session keeps ctxguard's memory of agent sessions: for each session, the context
// switches that ctxguard let through, so that the session's later commands are bound to the
// context it selected rather than to the shared state file.
//
// The shared state file is the problem ctxguard exists for. Two agent threads on one machine:
// A switches to subscription A, B switches to subscription B a moment later, and A's next command
// without --subscription runs in B's subscription. Binding that command to the active context
// does not help when both subscriptions are allowed, because by then the active one is B's. What
// A selected is known only from A's own earlier tool calls, and each hook run is a fresh process,
// so it has to be remembered on disk.
//
// The memory lives in ctxguard's state folder (${XDG_STATE_HOME:-~/.local/state}/ctxguard, see
// package paths), under sessions/, one small JSON
// file per session and provider, named by a hash of the session id: a hook run reads only the
// files of the session it was given, and only for the providers its command line uses, and a
// session id cannot name a path. Files are written to a temporary file and renamed into place,
// because several hooks run at once (parallel tool calls, several sessions), and a reader must
// see either the old memory or the new one, never half of each. Entries expire after [TTL]; old
// files are pruned at most once a day. A file that cannot be read or parsed is ignored, and the
// caller reports it: memory that is lost makes commands fall back to the active context, which is
// what ctxguard did before it had memory, so it must never block a command.
package session
