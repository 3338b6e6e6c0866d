package providers_test

import (
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxguard/ctxguard/builtin"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/spec"
)

var (
	loadOnce sync.Once
	builtins map[string]*spec.Spec
	loadErr  error
)

// provider returns a built-in provider spec: the tests read the fixtures through the real YAML.
func provider(tb testing.TB, name string) *spec.Spec {
	tb.Helper()
	loadOnce.Do(func() {
		var specs []*spec.Spec
		specs, loadErr = catalog.Load(builtin.Providers(), "builtin:providers")
		builtins = map[string]*spec.Spec{}
		for _, s := range specs {
			builtins[s.Name] = s
		}
	})
	if loadErr != nil {
		tb.Fatal(loadErr)
	}
	s, ok := builtins[name]
	if !ok {
		tb.Fatalf("no built-in provider %s", name)
	}
	return s
}

// place copies testdata files into dir: pairs of source (under testdata) and destination
// (under dir).
func place(tb testing.TB, dir string, pairs ...string) {
	tb.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		data, err := os.ReadFile(filepath.Join("testdata", pairs[i]))
		if err != nil {
			tb.Fatal(err)
		}
		write(tb, filepath.Join(dir, pairs[i+1]), string(data))
	}
}

func write(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// homeEnv is env(m) over the variables of a user whose home is root/home on the running system
// (testenv.HomeVars: on Windows the CLIs' folders there).
func homeEnv(root string, m map[string]string) func(string) (string, bool) {
	all := testenv.HomeVars(filepath.Join(root, "home"))
	maps.Copy(all, m)
	return env(all)
}

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// flags returns an Input.Flag over a map of flag name to value.
func flags(m map[string]string) func([]string) (string, bool) {
	return func(names []string) (string, bool) {
		for _, n := range names {
			if v, ok := m[n]; ok {
				return v, true
			}
		}
		return "", false
	}
}
