package testenv

import (
	"maps"
	"path/filepath"
	"runtime"

	"github.com/ctxguard/ctxguard/internal/paths"
)

// HomeVars are the variables of a user whose home is home on the running system, with the home
// laid out as the tests' fixtures lay it out, as on Linux. On Windows the CLIs keep their state
// under USERPROFILE (az, kubectl), APPDATA (gcloud; gh after XDG_CONFIG_HOME) and LOCALAPPDATA
// (pac), and these name the home and its XDG folders, which hold the same files there. Tests
// that are about Windows's own folders lay them out themselves.
func HomeVars(home string) map[string]string {
	if runtime.GOOS != "windows" {
		return map[string]string{}
	}
	return map[string]string{
		"USERPROFILE":     home,
		"APPDATA":         filepath.Join(home, ".config"),
		"LOCALAPPDATA":    filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
	}
}

// Home is the paths.Env of such a user on the running system, with vars set over HomeVars.
func Home(home string, vars map[string]string) paths.Env {
	all := HomeVars(home)
	maps.Copy(all, vars)
	return paths.Env{Home: home, Lookup: func(k string) (string, bool) {
		v, ok := all[k]
		return v, ok
	}}
}
