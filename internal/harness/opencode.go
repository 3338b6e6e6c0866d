package harness

import (
	_ "embed"
)

// opencodeShim is ctxguard's opencode plugin, which Kilo Code (an opencode fork) loads too.
//
//go:embed shim/opencode.js
var opencodeShim string

// opencode is opencode's tool.execute.before plugin hook (https://opencode.ai/docs/plugins/).
// The plugin refuses a call by throwing and rewrites it by changing output.args; opencode's own
// permission check runs after it, on the changed arguments. It has no way to ask from there
// (permission.ask is another hook, for opencode's own prompts), so an ask is a deny that says a
// human must run the command.
var opencode = plugin{name: "opencode", shells: shellTools{"bash": bashTool}, limits: limits{rewrite: true}}

// opencodeSetup installs the plugin as ctxguard.js in opencode's plugin folder, which opencode
// loads at startup, every file of it: those folders and the config files that list plugins are
// protected as a whole.
var opencodeSetup = Setup{
	Title: "opencode",
	UserFile: func(home string, env func(string) (string, bool)) string {
		return opencodeDir(home, env) + "/plugins/ctxguard.js"
	},
	ProjectFile: ".opencode/plugins/ctxguard.js",
	Script: func(self string, _ Options) ([]byte, error) {
		return shim(opencodeShim, "opencode", self), nil
	},
	Others: func(home string, env func(string) (string, bool), _ string) []File {
		configs := []string{"opencode.json", "opencode.jsonc"}
		out := pluginFiles("opencode", ".opencode", true, configs)
		if home != "" {
			out = append(out, pluginFiles("opencode", opencodeDir(home, env), false, configs)...)
		}
		return out
	},
	Probe:   pluginProbe("opencode", "bash"),
	Refusal: pluginRefusal,
	Note:    "opencode loads plugins when it starts: restart it.",
}

// opencodeDir is opencode's config folder, ${XDG_CONFIG_HOME:-~/.config}/opencode on every system.
func opencodeDir(home string, env func(string) (string, bool)) string {
	return xdgConfig(home, env) + "/opencode"
}

// pluginFiles are the files through which a harness that loads every file of a plugins folder
// (either spelling) and lists more plugins in its config would run another plugin after
// ctxguard's, one that could undo its answer: the folders and the config files in dir, and, for
// a project, the config files at its root too.
func pluginFiles(title, dir string, project bool, configs []string) []File {
	out := []File{
		{Path: dir + "/plugins", Project: project, Dir: true, What: title + "'s plugins folder"},
		{Path: dir + "/plugin", Project: project, Dir: true, What: title + "'s plugins folder"},
	}
	for _, c := range configs {
		out = append(out, File{Path: dir + "/" + c, Project: project, What: title + "'s config"})
		if project {
			out = append(out, File{Path: c, Project: true, What: title + "'s config"})
		}
	}
	return out
}
