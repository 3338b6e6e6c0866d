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

// Dir is testdata/peer-corpus of this module, found from the working directory upwards (a
// test runs in its package's directory): the corpus is part of the repository, so not finding it
// is an error, not a reason to skip.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "peer-corpus"), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("peer corpus: no go.mod above %s", wd)
		}
	}
}

// Load reads every *.jsonl file of dir; a dir without one is an error.
func Load(dir string) ([]Line, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("peer corpus: no *.jsonl file in %s", dir)
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

// Commands returns the command of every line, for seeding fuzz targets.
func Commands() ([]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	lines, err := Load(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if l.Command != "" {
			out = append(out, l.Command)
		}
	}
	return out, nil
}
