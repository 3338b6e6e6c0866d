package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/paths"
	"github.com/ctxguard/ctxguard/rules"
)

// Options says where to look for policy files. Everything the search depends on is here rather
// than read from the process, so that tests (and `ctxguard explain --cwd`) never touch the real
// home directory or /etc.
type Options struct {
	Cwd string // the command's working directory (absolute)
	// Env says where the managed and user policy files are (see package paths), and where the
	// project walk stops (Home).
	paths.Env
	// Providers are the known provider names: contexts.<name> for any other name is an error, so
	// that a misspelt provider does not silently guard nothing.
	Providers []string
}

// Layer names, in the order the layers are merged (least specific first).
const (
	Managed = "managed"
	User    = "user"
	Project = "project"
)

// ProjectFile is the name of the project policy file ([rules.ProjectFile]).
const ProjectFile = rules.ProjectFile

// Load finds the policy files for o, reads each strictly and merges them, managed first. With no
// file anywhere it returns a Policy without Files, under which the caller allows everything.
// When a file does not load, the error comes with the layers merged before it (nil when the
// files cannot be found), so that a trail the managed layer turned on still records the deny.
func Load(o Options) (*Policy, error) {
	files, err := find(o)
	if err != nil {
		return nil, err
	}
	p := &Policy{Policy: rules.Policy{Contexts: map[string]*rules.ContextPolicy{}}}
	cache := codec.Cache{Dir: o.PolicyCache(), Build: buildID()}
	for _, f := range files {
		data, err := file.Read(f.File, codec.MaxFile)
		if err != nil {
			return p, fmt.Errorf("read %s policy: %w", f.Layer, err)
		}
		layer, err := parse(cache, data, f.File, f.Layer, o.Providers)
		if err != nil {
			return p, err
		}
		if f.Layer == Managed {
			p.Locked = locked(layer)
		}
		merge(p, layer)
	}
	return p, nil
}

// locked lists what the managed layer wrote that a lift may not lift: its rules, and the
// destructive entries when it sets destructive.
func locked(managed *Policy) []string {
	var out []string
	for _, r := range managed.Rules {
		out = append(out, r.ID)
	}
	if managed.Destructive != rules.SettingUnset {
		out = append(out, rules.RuleDestructive)
	}
	return out
}

// buildID is this program's identity for the policy cache: files are read on every run, their
// trees parsed only when this build has not parsed the same bytes before (see codec.Cache).
var buildID = sync.OnceValue(codec.BuildID)

// find returns the policy files that exist for o, in layer order. A file that exists but cannot
// be examined is an error that names it.
func find(o Options) ([]rules.PolicyFile, error) {
	var files []rules.PolicyFile
	for _, c := range o.fixed() {
		if c.File == "" {
			continue
		}
		ok, err := exists(c.File)
		if err != nil {
			return nil, fmt.Errorf("find %s policy: %w", c.Layer, err)
		}
		if ok {
			files = append(files, c)
		}
	}
	project, err := projectFile(o)
	if err != nil {
		return nil, fmt.Errorf("find project policy: %w", err)
	}
	if project != "" {
		files = append(files, rules.PolicyFile{Layer: Project, File: project})
	}
	return files, nil
}

// projectFile is the nearest .ctxguard.yaml on the way up from o.Cwd ([Options.upToHome]).
func projectFile(o Options) (string, error) {
	if !filepath.IsAbs(o.Cwd) {
		return "", fmt.Errorf("working directory %q is not absolute", o.Cwd)
	}
	for dir := range o.upToHome() {
		f := filepath.Join(dir, ProjectFile)
		switch ok, err := exists(f); {
		case err != nil && !unsearchable(err):
			return "", err
		case ok:
			return f, nil
		}
	}
	return "", nil
}

// upToHome yields the directories a project's files are looked for in: o.Cwd and each one above
// it, up to the home directory (whose own files count), or to the root when Cwd is not under it.
// Both the policy's discovery and self-protection walk it, so that every file the hook would read
// is protected.
func (o Options) upToHome() iter.Seq[string] {
	return func(yield func(string) bool) {
		home := ""
		var homeInfo fs.FileInfo
		if o.Home != "" {
			home = filepath.Clean(o.Home)
			homeInfo, _ = os.Stat(home)
		}
		for dir := range paths.Up(o.Cwd) {
			if !yield(dir) || home != "" && sameDir(dir, home, homeInfo, o.GOOS()) {
				return
			}
		}
	}
}

// sameDir reports whether dir is the home directory: by name, or as the same directory reached
// through a symlink (/home/u and /var/home/u).
func sameDir(dir, home string, homeInfo fs.FileInfo, goos string) bool {
	if dir == home || (goos == "windows" || goos == "darwin") && strings.EqualFold(dir, home) {
		return true
	}
	if homeInfo == nil {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && os.SameFile(fi, homeInfo)
}

// exists reports whether there is a directory entry at f: a file, or a symlink even when it
// dangles (reading it will then fail and name it). A missing file, or a file where a directory
// should be, is no file; any other error (a directory that cannot be searched) leaves it unknown.
func exists(f string) (bool, error) {
	_, err := os.Lstat(f)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, err
}

// unsearchable reports whether err means that a directory on the way to a file cannot be
// searched: no permission, a symlink loop, a path too long. No command can run in such a
// directory, so the project walk passes over it; for the managed and user files, whose place is
// fixed, it is an error instead, since the file may well be there.
func unsearchable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENAMETOOLONG)
}
