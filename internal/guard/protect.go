package guard

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxguard/ctxguard/internal/audit"
	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/providers"
	"github.com/ctxguard/ctxguard/rules"
	"github.com/ctxguard/ctxguard/spec"
)

// protection is what keeps an agent from changing ctxguard's own policy, providers and hooks
// (the files, found from the same places policy discovery looks), its audit trail and state
// folder, and every provider's state files, past the rules: the files, and the commands that write files named in their arguments.
func protection(o policy.Options, trail audit.Trail, cat *catalog.Catalog, in spec.Input) (rules.Self, []rules.Writer) {
	return &lazySelf{
		home: in.Home,
		get:  sync.OnceValue(func() *policy.Self { return policy.Protected(o, trail) }),
		state: sync.OnceValue(func() []stateFile {
			r := providers.NewReader()
			var out []stateFile
			for _, name := range cat.Names() {
				sp := cat.Spec(name)
				if sp == nil {
					continue
				}
				// helm and oc read kubectl's kubeconfig: it is kubectl's state.
				owner := cmp.Or(sp.Shares, name)
				for _, f := range r.StateFiles(sp, in) {
					out = append(out, stateFile{StateFile: f, provider: owner})
				}
			}
			return out
		}),
	}, catalog.Writers()
}

// lazySelf finds the protected files only when a line writes a file: most lines do not, and
// finding them costs a walk up the directory tree and reading the providers.
type lazySelf struct {
	home  string
	get   func() *policy.Self
	state func() []stateFile
}

type stateFile struct {
	providers.StateFile
	provider string
}

func (l *lazySelf) Match(path string, tree bool, into []string) (rules.Protection, bool) {
	if pr, ok := l.get().Match(path, tree, into); ok {
		return pr, true
	}
	for _, f := range l.state() {
		if f.Anywhere {
			if at, ok := anywhere(f, path, tree, into); ok {
				return rules.Protection{Rule: "state.write", What: fmt.Sprintf("the %s state %s", f.provider, at), Ask: true}, true
			}
			continue
		}
		into := slices.Contains(into, filepath.Base(f.Path)) && filepath.Dir(f.Path) == path
		if path == f.Path || into || f.Tree && strings.HasPrefix(path, f.Path+string(filepath.Separator)) ||
			tree && strings.HasPrefix(f.Path, path+string(filepath.Separator)) {
			return rules.Protection{Rule: "state.write", What: fmt.Sprintf("the %s state %s", f.provider, f.Path), Ask: true}, true
		}
	}
	return rules.Protection{}, false
}

// anywhere matches a written path against state kept under whichever directory a call runs in
// (f.Path is relative: .terraform/environment): the path is that state of some directory, is
// inside it when it is a folder, or creates it (cp x .terraform/ with into), or is a tree that
// holds it (rm -r .terraform). It returns the state's path as it was hit.
func anywhere(f stateFile, path string, tree bool, into []string) (string, bool) {
	sep := string(filepath.Separator)
	ends := func(p, rel string) bool { return strings.HasSuffix(p, sep+rel) }
	switch {
	case ends(path, f.Path), f.Tree && strings.Contains(path+sep, sep+f.Path+sep):
		return path, true
	}
	for _, name := range into {
		if p := filepath.Join(path, name); ends(p, f.Path) {
			return p, true
		}
	}
	if tree {
		parts := strings.Split(f.Path, sep)
		for i := 1; i < len(parts); i++ {
			if ends(path, filepath.Join(parts[:i]...)) {
				return filepath.Join(path, filepath.Join(parts[i:]...)), true
			}
		}
	}
	return "", false
}

// Mentions reports whether a path the line does not spell out may be a protected file: one of
// ctxguard's (policy.Self), or a state file that a glob may match (sed -i … ~/.docker/contexts/
// meta/*/meta.json). A path with a variable in it is not guessed at.
func (l *lazySelf) Mentions(text string) bool {
	if l.get().Mentions(text) {
		return true
	}
	pat := strings.NewReplacer(`"`, "", "'", "").Replace(text)
	for _, h := range []string{"~", "$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(pat, h); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') && l.home != "" {
			pat = l.home + rest
			break
		}
	}
	glob := strings.IndexAny(pat, "*?[")
	if strings.ContainsAny(pat, "$`") {
		return false
	}
	pat = filepath.FromSlash(pat)
	if glob < 0 {
		// What a variable may hold, written out (rules.Call.May): a path under the home.
		_, hit := l.Match(filepath.Clean(pat), false, nil)
		return filepath.IsAbs(pat) && hit
	}
	for _, f := range l.state() {
		if ok, _ := filepath.Match(pat, f.Path); ok {
			return true
		}
		// A folder of state: the glob reaches into it.
		if f.Tree && !f.Anywhere && strings.HasPrefix(pat[:glob], f.Path+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
