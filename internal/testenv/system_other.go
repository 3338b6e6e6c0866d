//go:build !windows

package testenv

import "syscall"

// errInvalidFunction is never returned outside Windows.
const errInvalidFunction = syscall.Errno(0)

// Wine reports whether the process runs under Wine: never, outside Windows.
func Wine() bool { return false }

const isWindows = false

func lock(string) (func(), error) { panic("lock is for Windows") }
