package harness

import (
	_ "embed"
	"path/filepath"
)

//go:embed shim/pi.js
var piShim string

// pi is the pi coding agent's tool_call extension event (@mariozechner/pi-coding-agent
// docs/extensions.md). The extension refuses a call by returning {block: true, reason},
// rewrites it by changing event.input, and asks with ctx.ui.confirm when pi has a UI; without
// one (pi -p) an ask is refused.
var pi = plugin{name: "pi", shells: shellTools{"bash": bashTool}, limits: limits{rewrite: true, ask: true}}

// piSetup installs the extension as ctxguard.js in pi's extensions folder, which pi discovers at
// startup ($PI_CODING_AGENT_DIR moves ~/.pi/agent).
var piSetup = Setup{
	Title: "pi",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return piDir(home, env) + "/extensions/ctxguard.js"
	},
	ProjectFile: ".pi/extensions/ctxguard.js",
	Script: func(self string, _ Options) ([]byte, error) {
		return shim(piShim, "pi", self), nil
	},
	// Every file in the extensions folders is loaded, and settings.json lists more.
	Others: func(home string, env func(string) (string, bool), _ string) []File {
		out := []File{
			{Path: ".pi/extensions", Project: true, Dir: true, What: "pi's extensions folder"},
			{Path: ".pi/settings.json", Project: true, What: "pi's settings"},
		}
		if home != "" {
			out = append(out,
				File{Path: piDir(home, env) + "/extensions", Dir: true, What: "pi's extensions folder"},
				File{Path: piDir(home, env) + "/settings.json", What: "pi's settings"})
		}
		return out
	},
	Probe:   pluginProbe("pi", "bash"),
	Refusal: pluginRefusal,
	Note:    "pi discovers extensions when it starts: restart it (or /reload).",
}

func piDir(home string, env func(string) (string, bool)) string {
	return fromEnv(env, "PI_CODING_AGENT_DIR", filepath.ToSlash(filepath.Join(home, ".pi", "agent")))
}
