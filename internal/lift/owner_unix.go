//go:build unix

package lift

import (
	"io/fs"
	"syscall"
)

// permissionBits is whether the mode's group and other bits say who may write.
const permissionBits = true

// owner is the user id that owns the file.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
