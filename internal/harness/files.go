package harness

import (
	"maps"
	"path"
	"path/filepath"
	"slices"
)

// File is a file or folder through which a harness runs hooks, or could be told to run none:
// the ones `ctxguard install` writes, the others the harness reads hooks from, and its managed
// (system-wide) settings. An agent that could write one could switch ctxguard off, so the guard
// protects every one of them ([Files]); `doctor` reads the ones that hold hooks in the layout
// install writes ([Setup.HookFiles]).
type File struct {
	// Path uses forward slashes. A project file's is relative to a project root and found by
	// name wherever it is (its last element may be a pattern: "settings*.json"); the others'
	// are absolute.
	Path    string
	Project bool
	// Dir is set for a folder whose every file the harness reads (Copilot CLI's hooks folders,
	// a managed-settings folder); everything inside it counts.
	Dir bool
	// What names it in messages: "Gemini CLI's settings".
	What string
}

// Files lists the files and folders of every harness, as they are for this home directory
// ("" = none), environment and system (runtime.GOOS values).
func Files(home string, env func(string) (string, bool), goos string) []File {
	var out []File
	for _, h := range registry {
		s := h.setup
		out = append(out, s.files(home, env, goos)...)
	}
	return out
}

func (s *Setup) files(home string, env func(string) (string, bool), goos string) []File {
	settings, folder := s.Title+"'s settings", s.Title+"'s hooks folder"
	var out []File
	if home != "" {
		u := s.UserPath(home, env, goos)
		out = append(out, File{Path: u, What: settings})
		if s.Glob {
			out = append(out, File{Path: path.Dir(u), Dir: true, What: folder})
		}
	}
	out = append(out, File{Path: s.ProjectPath(goos), Project: true, What: settings})
	if s.Glob {
		out = append(out, File{Path: path.Dir(s.ProjectFile), Project: true, Dir: true, What: folder})
	}
	for _, a := range s.Also {
		out = append(out, File{Path: a, Project: true, What: settings})
	}
	for _, b := range slices.Sorted(maps.Keys(s.Beside)) {
		if home != "" {
			out = append(out, File{Path: path.Join(path.Dir(s.UserFile(home, env)), b), What: settings})
		}
		out = append(out, File{Path: path.Join(path.Dir(s.ProjectFile), b), Project: true, What: settings})
	}
	if s.Others != nil {
		out = append(out, s.Others(home, env, goos)...)
	}
	return out
}

// HookFiles are the files doctor reads this harness's hooks from on goos, with the system's
// separators: the user file (when there is a home), the project file under root and the other
// project files in the same layout. A harness with Glob reads every *.json file in those files'
// folders too.
func (s *Setup) HookFiles(home string, env func(string) (string, bool), root, goos string) []string {
	var files []string
	if home != "" {
		files = append(files, filepath.FromSlash(s.UserPath(home, env, goos)))
	}
	files = append(files, filepath.Join(root, filepath.FromSlash(s.ProjectPath(goos))))
	for _, f := range s.Also {
		files = append(files, filepath.Join(root, filepath.FromSlash(f)))
	}
	return files
}

// systemDir is the folder of machine-wide settings for a product on each system: unix (/etc),
// macOS (/Library/Application Support) and Windows (%ProgramData%) names, which products spell
// differently.
func systemDir(goos string, env func(string) (string, bool), unix, mac, windows string) string {
	switch goos {
	case "windows":
		return fromEnv(env, "ProgramData", "C:/ProgramData") + "/" + windows
	case "darwin":
		return "/Library/Application Support/" + mac
	}
	return "/etc/" + unix
}

// fromEnv is the value of variable as a path with forward slashes, or def when it is unset or
// empty.
func fromEnv(env func(string) (string, bool), variable, def string) string {
	if v, ok := env(variable); ok && v != "" {
		return filepath.ToSlash(v)
	}
	return def
}
