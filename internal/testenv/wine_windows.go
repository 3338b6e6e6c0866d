package testenv

import (
	"sync"
	"syscall"
)

// errInvalidFunction is ERROR_INVALID_FUNCTION, which package syscall does not name.
const errInvalidFunction = syscall.Errno(1)

// Wine reports whether the process runs under Wine rather than Windows: Wine's ntdll.dll exports
// wine_get_version, which no Windows ntdll has (https://wiki.winehq.org/Developer_FAQ).
var Wine = sync.OnceValue(func() bool {
	return syscall.NewLazyDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})
