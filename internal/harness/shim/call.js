import { spawnSync } from "node:child_process";

const CTXGUARD = "CTXGUARD_BINARY";

// ask runs ctxguard with the tool call on stdin and returns its answer ({} for allow). It throws
// when ctxguard cannot run, fails or answers something else, and the caller refuses the call.
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

// replace makes args the tool's arguments, in the object the harness will run.
function replace(target, args) {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, args);
}
