package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Line is one labelled command line.
type Line struct {
	Source       string `json:"source"`
	Command      string `json:"command"`
	Expect       string `json:"expect"`
	CLI          string `json:"cli"`
	Mode         string `json:"mode"`
	CwdDependent bool   `json:"cwd_dependent"`
	// File and N say where it was read: the file's base name and the 1-based line.
	File string `json:"-"`
	N    int    `json:"-"`
}

// Dir finds the corpus from a package directory of this module (internal/<pkg>): ../shared
// beside the clone, as CI lays it out, or /work/shared on a developer's machine. It is "" when
// neither holds it.
func Dir() string {
	for _, dir := range []string{filepath.Join("..", "..", "..", "shared", "peer-corpus"), "/work/shared/peer-corpus"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(m) > 0 {
			return dir
		}
	}
	return ""
}

// Load reads every *.jsonl file of dir.
func Load(dir string) ([]Line, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []Line
	for _, name := range files {
		lines, err := loadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	return out, nil
}

func loadFile(name string) ([]Line, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []Line
	for n := 1; sc.Scan(); n++ {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		l.File, l.N = filepath.Base(name), n
		out = append(out, l)
	}
	return out, sc.Err()
}

// Commands returns the command of every line, for seeding fuzz targets; none when the corpus is
// not there or cannot be read (seeds are a bonus, not a requirement).
func Commands() []string {
	dir := Dir()
	if dir == "" {
		return nil
	}
	lines, _ := Load(dir)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if l.Command != "" {
			out = append(out, l.Command)
		}
	}
	return out
}
