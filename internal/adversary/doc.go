// Package adversary holds the adversarial test of the whole hook, judged by effect. Its corpus
// (testdata/adversarial/*.yaml at the root of the module) is lines a creative or prompt-injected
// agent writes to get a guarded CLI to act in a context the policy does not allow, to run a
// destructive command, or to switch the guard off, each with the answer it must get; beside it,
// a benign corpus of realistic lines that must stay allowed.
//
// Each line goes through the real `ctxguard hook` binary as Claude Code sends it, in a throwaway
// machine whose policy allows one context per CLI (unbound: fix, destructive: deny) while
// another one is active. Whatever the answer lets through (the line, or its rewrite) is then run
// by bash against shim CLIs that work out the context each call acts in the way the real CLI
// does and log it. The test fails a case on what happened, not on what ctxguard said about it;
// it also requires answers to be deterministic and clean. Cases that fail today are listed in
// testdata/adversarial/known-failures.txt, and a listed case that passes fails the test, so the
// list only shrinks by fixing.
//
// Everything is in the test files: the shims must name the CLIs they stand in for, which Go
// code outside builtin/ does not do.
//
//	go test ./internal/adversary                     # about a minute
//	go test ./internal/adversary -v -run TestAdversarial/words   # one family, with the table
package adversary
