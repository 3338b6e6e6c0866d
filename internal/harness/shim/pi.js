// Written by `ctxguard install pi`: pi runs it before every tool call, and
// `ctxguard uninstall pi` removes it. ctxguard checks every shell command against the
// repository's policy (https://github.com/ctxguard/ctxguard).
//
// A tool_call handler refuses a call by returning {block: true, reason}, changes it by changing
// event.input, and can ask the user when pi has a UI. Anything that goes wrong here refuses the
// call: a guard that cannot answer must not let the command run.
// ctxguard: call.js

export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    let answer;
    try {
      answer = ask({ harness: "pi", tool: event.toolName, session: "", cwd: ctx.cwd, args: event.input });
    } catch (err) {
      return { block: true, reason: String(err.message || err) };
    }
    switch (answer.decision) {
      case undefined:
        return;
      case "rewrite":
        replace(event.input, answer.args);
        return;
      case "ask": {
        const shown = answer.args ? `${answer.reason}\n\nRun: ${answer.args.command}` : answer.reason;
        if (ctx.hasUI && (await ctx.ui.confirm("ctxguard", shown))) {
          if (answer.args) replace(event.input, answer.args);
          return;
        }
        return { block: true, reason: `${answer.reason} (the user did not confirm it)` };
      }
      default:
        return { block: true, reason: answer.reason || "ctxguard refused this command" };
    }
  });
}
