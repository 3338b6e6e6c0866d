// Written by `ctxguard install HARNESS`: HARNESS runs it before every tool call, and
// `ctxguard uninstall HARNESS` removes it. ctxguard checks every shell command against the
// repository's policy (https://github.com/ctxguard/ctxguard).
//
// tool.execute.before may refuse a call by throwing, and change it by changing output.args.
// Anything that goes wrong here refuses the call: a guard that cannot answer must not let the
// command run.
// ctxguard: call.js

export const Ctxguard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const answer = ask({ harness: "HARNESS", tool: input.tool, session: input.sessionID, cwd: directory, args: output.args });
    if (answer.decision === undefined) return;
    if (answer.decision !== "rewrite") throw new Error(answer.reason || "ctxguard refused this command");
    replace(output.args, answer.args);
  },
});
