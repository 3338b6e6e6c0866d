//go:build !unix

package lift

import "io/fs"

// permissionBits is false on Windows, where Go makes the mode up from the read-only attribute
// and access is an ACL's business; the lift file is in the user's own %LOCALAPPDATA%.
const permissionBits = false

func owner(fs.FileInfo) (int, bool) { return 0, false }
