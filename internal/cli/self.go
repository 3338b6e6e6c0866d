package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/internal/shell"
)

// self is the absolute path of this binary, the one a harness's hook entry runs.
//
// CTXGUARD_SELF overrides it; tests use it to write a fixed path, and a packager whose binary is
// reached through a wrapper may too. Otherwise, when ctxguard was started by a bare name, the
// path that name resolves to on PATH is used if it is this binary: a package manager's symlink
// (/opt/homebrew/bin/ctxguard) outlives the versioned file it points to, which os.Executable
// would give after resolving the link.
func (c *runner) self() (string, error) {
	if p, ok := c.env.Lookup("CTXGUARD_SELF"); ok && p != "" {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("CTXGUARD_SELF=%s is not an absolute path", p)
		}
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary's path: %w", err)
	}
	if name := os.Args[0]; !strings.ContainsAny(name, `/\`) {
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil && sameFile(abs, exe) {
				return abs, nil
			}
		}
	}
	return exe, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// projectRoot is the project a command in dir belongs to: the nearest directory upwards that
// holds .git (a folder, or a file in a worktree or submodule), else dir itself. Project-scope
// hooks and the starter policy go there.
func projectRoot(dir string) string {
	for d := range paths.Up(dir) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
	}
	return dir
}

// writeFile replaces path with data, through a temporary file in the same folder and a rename,
// so that a harness reading its settings never sees half a file. A symlinked settings file (a
// dotfiles repository) is written where the link points; the file's mode is kept.
func writeFile(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return file.Replace(path, data, mode)
}

// home shortens a path under the home directory to ~/…, for messages.
func (c *runner) home(path string) string {
	h := c.env.Home
	if h == "" {
		return path
	}
	if rel, err := filepath.Rel(h, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if rel == "." {
			return "~"
		}
		return filepath.Join("~", rel)
	}
	return path
}

// quote quotes a word for a command line the user types on this system: PowerShell's rules on
// Windows, the POSIX shell's elsewhere. A plain word stays as it is.
func (c *runner) quote(s string) string {
	if c.env.GOOS() == "windows" {
		return shell.QuotePowerShell(s)
	}
	return shell.Quote(s)
}
