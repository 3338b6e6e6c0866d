package harness

// kilo is Kilo Code's CLI (kilo), an opencode fork that loads the same plugins from its own
// folders ({plugin,plugins}/*.{ts,js} under ~/.config/kilo and .kilo/); the plugin is opencode's.
var kilo = plugin{name: "kilo", shells: shellTools{"bash": bashTool}, limits: limits{rewrite: true}}

var kiloSetup = Setup{
	Title: "Kilo Code",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return kiloDir(home, env) + "/plugins/ctxguard.js"
	},
	ProjectFile: ".kilo/plugins/ctxguard.js",
	Script: func(self string, _ Options) ([]byte, error) {
		return shim(opencodeShim, "kilo", self), nil
	},
	Others: func(home string, env func(string) (string, bool), _ string) []File {
		configs := []string{"kilo.json", "kilo.jsonc"}
		out := pluginFiles("Kilo Code", ".kilo", true, configs)
		if home != "" {
			out = append(out, pluginFiles("Kilo Code", kiloDir(home, env), false, configs)...)
		}
		return out
	},
	Probe:   pluginProbe("kilo", "bash"),
	Refusal: pluginRefusal,
	Note:    "Kilo Code loads plugins when it starts: restart it.",
}

// kiloDir is Kilo Code's config folder, ${XDG_CONFIG_HOME:-~/.config}/kilo.
func kiloDir(home string, env func(string) (string, bool)) string {
	return xdgConfig(home, env) + "/kilo"
}
