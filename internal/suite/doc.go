// Package suite runs the tests of policy files and the examples of provider files (`ctxguard
// test`): each decides one call as the hook would, with faked state and facts, and compares the
// answer with the one it expects. The hook itself never runs them.
package suite
