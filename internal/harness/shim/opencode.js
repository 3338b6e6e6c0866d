// Written by `ctxguard install HARNESS`: HARNESS runs it before every tool call, and
// `ctxguard uninstall HARNESS` removes it. ctxguard checks every shell command against the
// repository's policy (https://github.com/ctxguard/ctxguard).
//
// tool.execute.before may refuse a call by throwing, and change it by changing output.args.
// Anything that goes wrong here refuses the call: a guard that cannot answer must not let the
// command run.
import { spawnSync } from "node:child_process";

const CTXGUARD = "CTXGUARD_BINARY";

function ask(payload) {
  const run = spawnSync(CTXGUARD, ["hook", "--harness", "HARNESS"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: 30000,
  });
  if (run.error) throw new Error(`ctxguard could not run (${run.error.message}), so this command is refused`);
  if (run.status !== 0) throw new Error(run.stderr.trim() || `ctxguard exited ${run.status}, so this command is refused`);
  const out = run.stdout.trim();
  return out === "" ? {} : JSON.parse(out);
}

export const Ctxguard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const answer = ask({ harness: "HARNESS", tool: input.tool, session: input.sessionID, cwd: directory, args: output.args });
    if (answer.decision === undefined) return;
    if (answer.decision !== "rewrite") throw new Error(answer.reason || "ctxguard refused this command");
    for (const key of Object.keys(output.args)) delete output.args[key];
    Object.assign(output.args, answer.args);
  },
});
