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

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "ctxguard (unknown version)"
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
