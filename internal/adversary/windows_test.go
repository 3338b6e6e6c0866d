//go:build windows

package adversary

import "testing"

// TestAdversarial on Windows: the runner judges each line by running what ctxguard lets through
// with bash against shim CLIs written in bash, so it runs on Unix only. The PowerShell family's
// answers are checked there too, and the readers themselves are tested on Windows by
// internal/shell's tests.
func TestAdversarial(t *testing.T) {
	t.Skip("needs bash and the bash shim CLIs: runs on Unix")
}
