package cli

import (
	"fmt"
	"runtime/debug"
)

func runVersion(c *runner, args []string) error {
	if err := parse(flags("version"), args); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, version())
	return nil
}

// stamp is the version of a release build, set by .ci/release at link time
// (-ldflags "-X github.com/ctxguard/ctxguard/internal/cli.stamp=v1.2.3"). Other builds leave it
// empty and report what the build information says: the module version for `go install …@v1.2.3`,
// else the VCS revision.
var stamp string

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "ctxguard (unknown version)"
	}
	if stamp != "" {
		return fmt.Sprintf("ctxguard %s %s", stamp, bi.GoVersion)
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && (v == "" || v == "(devel)") {
			v = s.Value
			if len(v) > 12 {
				v = v[:12]
			}
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return fmt.Sprintf("ctxguard %s %s", v, bi.GoVersion)
}
