package guard

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxguard/ctxguard/internal/file"
	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
)

// maxEdited bounds the file an edit is applied to, to find the lines it leaves: a larger file is
// not read, and its edits are checked by their new text alone.
const maxEdited = 8 << 20

// written is what a file tool's request is about to write, one entry per file it names (a patch
// names several), for the rules about files; nil for a shell line. The text is read from the
// file only when some rule has a content pattern: the changes made to that file, or, for a
// tool that writes one file, all of them.
func written(req rules.Request, pol *policy.Policy) []rules.Write {
	if req.Shell != "" {
		return nil
	}
	content := slices.ContainsFunc(pol.Rules, func(r rules.UserRule) bool { return r.Content != nil })
	var out []rules.Write
	for i, p := range req.Paths {
		if slices.Contains(req.Paths[:i], p) {
			continue
		}
		abs := p
		if !filepath.IsAbs(abs) && req.Cwd != "" {
			abs = filepath.Join(req.Cwd, abs)
		}
		w := rules.Write{Path: filepath.Clean(abs)}
		if content {
			var changes []rules.Change
			for _, ch := range req.Changes {
				if ch.Path == "" || ch.Path == p {
					changes = append(changes, ch)
				}
			}
			w.Text = text(w.Path, changes)
		}
		out = append(out, w)
	}
	return out
}

// text is what a content rule checks: a whole file as written, and for an edit the lines the
// edit leaves in the file (so that turning 'Disabled' into 'Enabled' shows the whole line
// `publicNetworkAccess: 'Enabled'`). Edits are applied in order, as the tool applies them; a
// file that cannot be read, or an old text it does not hold (the tool will fail), leaves the new
// text alone.
func text(path string, changes []rules.Change) string {
	var parts []string
	var content *string
	for _, ch := range changes {
		if ch.Old == "" {
			parts = append(parts, ch.New)
			content = &ch.New
			continue
		}
		if content == nil {
			s, ok := readSmall(path)
			if !ok {
				parts = append(parts, ch.New)
				continue
			}
			content = &s
		}
		parts = append(parts, edit(content, ch)...)
	}
	return strings.Join(parts, "\n")
}

// readSmall reads the file an edit is applied to: a regular file of at most maxEdited bytes
// (the tool names a path the agent chose, which may be a named pipe: see package file).
func readSmall(path string) (string, bool) {
	b, err := file.Read(path, maxEdited)
	return string(b), err == nil
}

// edit applies one change to content and returns, for each replacement, the whole lines that
// hold its new text afterwards.
func edit(content *string, ch rules.Change) []string {
	var b strings.Builder
	var spans [][2]int
	rest := *content
	for {
		i := strings.Index(rest, ch.Old)
		if i < 0 {
			break
		}
		b.WriteString(rest[:i])
		start := b.Len()
		b.WriteString(ch.New)
		spans = append(spans, [2]int{start, b.Len()})
		rest = rest[i+len(ch.Old):]
		if !ch.All {
			break
		}
	}
	if len(spans) == 0 {
		return []string{ch.New}
	}
	b.WriteString(rest)
	*content = b.String()
	out := make([]string, 0, len(spans))
	for _, sp := range spans {
		start := strings.LastIndexByte((*content)[:sp[0]], '\n') + 1
		end := len(*content)
		if j := strings.IndexByte((*content)[sp[1]:], '\n'); j >= 0 {
			end = sp[1] + j
		}
		out = append(out, (*content)[start:end])
	}
	return out
}
