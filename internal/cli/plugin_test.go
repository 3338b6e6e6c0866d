package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/harness"
	"github.com/ctxguard/ctxguard/internal/hookfile"
)

// TestPlugin checks the Claude Code plugin and marketplace manifests in .claude-plugin: valid
// JSON with the fields Claude Code requires, a hooks path that exists, and a hook that matches
// what `ctxguard install claude` writes (same event and matcher) and what doctor expects.
func TestPlugin(t *testing.T) {
	dir := filepath.Join("..", "..", ".claude-plugin")
	read := func(name string, v any) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return data
	}
	var plugin struct {
		Name, Version, Description string
		Hooks                      string
	}
	read("plugin.json", &plugin)
	s, _ := harness.SetupFor("claude")
	if plugin.Name != s.Plugin.Name || plugin.Description == "" || plugin.Version == "" {
		t.Errorf("plugin.json: name %q, version %q, description %q", plugin.Name, plugin.Version, plugin.Description)
	}
	if filepath.Dir(filepath.Clean(plugin.Hooks)) != ".claude-plugin" || plugin.Hooks[:2] != "./" {
		t.Errorf("plugin.json: hooks %q should be ./.claude-plugin/…, relative to the plugin root", plugin.Hooks)
	}
	if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(plugin.Hooks))); err != nil {
		t.Errorf("plugin.json: hooks: %v", err)
	}

	var market struct {
		Name    string
		Owner   struct{ Name string }
		Plugins []struct {
			Name, Source, Description string
		}
	}
	read("marketplace.json", &market)
	if market.Name == "" || market.Owner.Name == "" || len(market.Plugins) != 1 ||
		market.Plugins[0].Name != plugin.Name || market.Plugins[0].Source != "./" {
		t.Errorf("marketplace.json: %+v", market)
	}

	var hooks map[string]any
	data := read("hooks.json", &hooks)
	var onlyHooks struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	_ = json.Unmarshal(data, &onlyHooks)
	var want struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	_ = json.Unmarshal(s.Plugin.Hooks, &want)
	if !hookfile.Same(onlyHooks.Hooks, want.Hooks) {
		t.Errorf("hooks.json hooks = %s, doctor expects %s", onlyHooks.Hooks, want.Hooks)
	}
	found, err := hookfile.Find(data, "hooks.json", hookfile.Layout{Nested: s.Nested, Events: s.Events})
	if err != nil || len(found) != 1 {
		t.Fatalf("hooks.json: ctxguard hooks %v, %v; want one", found, err)
	}
	var installed struct {
		Matcher string `json:"matcher"`
	}
	_ = json.Unmarshal(s.Entries("/x/ctxguard", harness.Options{})[0].Value, &installed)
	if found[0].Event != s.Events[0] || found[0].Matcher != installed.Matcher {
		t.Errorf("plugin hook on %s/%s, install writes %s/%s", found[0].Event, found[0].Matcher, s.Events[0], installed.Matcher)
	}
	// The descriptions a user reads before enabling the plugin name every tool it hooks.
	for _, tool := range strings.Split(installed.Matcher, "|") {
		for file, d := range map[string]string{"plugin.json": plugin.Description, "marketplace.json": market.Plugins[0].Description} {
			if !strings.Contains(d, tool) {
				t.Errorf("%s: the description does not name %s, which the hook sees: %q", file, tool, d)
			}
		}
	}
}
