// Command race reproduces the measurement ctxguard exists for, with the real CLIs: two agent
// threads on one machine share one CLI state file. Thread A switches to context A, does
// something else for a moment, and runs a command that names no context; thread B switches the
// same CLI to context B in between. Unguarded, some of A's commands run in B's context. Both
// contexts are allowed, so binding A's command to the active context would not help (by then
// the active one is B's): ctxguard must bind it to the context A's own session selected, from
// the switch earlier in the same tool call (carried) or in an earlier tool call of the session
// (remembered).
//
// Each of A's rounds is sent to `ctxguard hook` exactly as Claude Code sends a Bash tool call
// (session_id, cwd, tool_input.command), and the command from the answer (rewritten or not) is
// run by bash, as the harness would. B's switches go through the hook too, as another session's.
// Everything runs in a throwaway directory: the CLIs' config dirs, the policy (which allows both
// contexts) and ctxguard's session memory. Nothing touches the user's own state.
//
// Two forms are measured: the switch and the command in one tool call
// (`az account set -s A && sleep 0.4 && az account show --query name -o tsv`), and the same as two
// tool calls of one session with the pause between them. The program prints wrong/total per CLI,
// form and mode (unguarded, guarded):
//
//	go run ./internal/cmd/race  # az and kubectl, 36 rounds each
//	go run ./internal/cmd/race -cli kubectl -rounds 10
//
// The test in this directory runs a short kubectl version when CTXGUARD_RACE=1, and fails if a
// guarded command runs in the wrong context.
package main
