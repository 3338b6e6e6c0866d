// Package harness translates between agent harnesses and ctxguard: it turns one harness's hook
// payload into a harness-neutral [Request] and ctxguard's [Answer] back into the exact output that
// harness expects on stdout.
//
// Each harness has its own file, because each has its own wire format and its own traps (each
// file cites the harness's hook reference): Claude Code replaces the whole tool input with updatedInput, so a
// rewrite must echo every original field; Copilot CLI sends its tool arguments as a JSON string
// and wants exactly one JSON object on stdout. Wire structs stay unexported here, so that no
// other package depends on a harness's field names.
//
// Three rules hold for every adapter:
//
//   - Allow is silence. ctxguard never answers a bare allow, which would skip the prompt the user
//     would otherwise have seen; writing nothing lets the harness's normal permission flow go on.
//   - Fields are matched by their exact names. encoding/json matches struct fields without regard
//     to case, so a payload with both "command" and "Command" could make ctxguard check one value
//     while the harness, which reads JSON in JavaScript, runs the other. Payloads are therefore
//     read into ordered key/value lists and looked up by exact key, the last duplicate winning as
//     in JavaScript's JSON.parse.
//   - A rewrite keeps every original tool argument, in its original order and with its original
//     JSON value (a timeout of 600000 stays 600000, unknown fields stay), and changes only the
//     command.
//
// A harness that cannot give an answer gets a narrower one, never a wider one: where it cannot
// rewrite, a deny whose reason carries the fixed command; where it cannot ask, a deny that says a
// human must run the command.
//
// Each harness's file also holds its [Setup], and this package is the one home of those facts:
// the settings files it reads hooks from, per scope and system and with the environment
// variables that move them, the entry that runs ctxguard, the files of another harness it runs
// too, ctxguard's plugin, and how its answer reads. `ctxguard install`, `uninstall` and `doctor`
// use them, and the guard protects every file they name ([Files]), so that an agent cannot
// switch ctxguard off by editing one.
//
// Where a harness's pre-tool hook is a JavaScript function rather than a command (opencode, Kilo
// Code, pi), ctxguard installs a small plugin of its own (shim/) that runs the binary; plugin.go
// is the protocol between the two.
package harness
