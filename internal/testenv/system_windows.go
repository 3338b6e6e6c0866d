package testenv

import (
	"os"
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

const isWindows = true

// lock opens path for reading with no sharing at all; release closes it.
func lock(path string) (release func(), err error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ, 0, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	return func() { syscall.CloseHandle(h) }, nil
}
