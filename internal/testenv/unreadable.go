package testenv

import (
	"os"
	"testing"
)

// Unreadable makes the file at path unreadable to every process for the rest of the test: mode
// 000 on Unix (skipped for root, who reads any file), and on Windows, which has no mode bits,
// an open handle that shares nothing, as an editor or a virus scanner may hold a file there
// (every other open fails with ERROR_SHARING_VIOLATION).
func Unreadable(t testing.TB, path string) {
	t.Helper()
	if isWindows {
		release, err := lock(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
		return
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root, which reads any file whatever its mode")
	}
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o644) })
}
