package harness

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ctxguard/ctxguard/rules"
)

// fileTool says which fields of a file tool's input name the file it writes and hold what it
// writes. Each harness lists its own (claudeFileTools, …): the field names are the harness's
// facts.
type fileTool struct {
	// paths are the fields that may name the file; the ones present are read.
	paths []string
	// text is the field with what is written: the whole file, or, with old, an edit's new text.
	text string
	// old is an edit's field with the text it replaces; "" for a tool that writes a whole file.
	old string
	// all is an edit's field that replaces every occurrence: true, or a count above 1.
	all string
	// edits, when set, is a field holding a list of edits, each with old, text and all.
	edits string
	// patch, when set, is the field holding a patch in Codex's apply_patch format, which names
	// the files it writes (codexPatch reads it); paths and the others are then unused.
	patch string
}

// withFilePaths fills req.Paths and req.Changes for a file-writing tool. A file tool whose path
// cannot be read is an error, which the hook answers with a deny: a hook that cannot tell which
// file is written must not wave the write through. What it writes is read where the input has
// it; a field of the wrong type is an error too, since a content rule would miss it.
// raw is the tool's arguments as sent, name the payload's field for them.
func withFilePaths(req *Request, raw json.RawMessage, name string, tools map[string]fileTool) (*Request, error) {
	ft, ok := tools[req.Tool]
	if !ok || req.Shell != "" {
		return req, nil
	}
	if raw == nil || isNull(raw) {
		return nil, fmt.Errorf("missing %s for %s", name, req.Tool)
	}
	obj, err := argsObject(raw, name)
	if err != nil {
		return nil, err
	}
	if ft.patch != "" {
		text, _, err := obj.str(ft.patch)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if req.Paths, req.Changes = codexPatch(text); len(req.Paths) == 0 {
			// Codex would reject it too.
			return nil, fmt.Errorf("%s of %s names no file: no *** Add File, Delete File, Update File or Move to line", name, req.Tool)
		}
		return req, nil
	}
	for _, f := range ft.paths {
		p, present, err := obj.str(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if present && p != "" {
			req.Paths = append(req.Paths, p)
		}
	}
	if len(req.Paths) == 0 {
		return nil, fmt.Errorf("%s of %s names no file (%v)", name, req.Tool, ft.paths)
	}
	if ft.edits == "" {
		ch, present, err := ft.change(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if present {
			req.Changes = []rules.Change{ch}
		}
		return req, nil
	}
	list, present := obj.get(ft.edits)
	if !present || isNull(list) {
		return req, nil
	}
	var edits []json.RawMessage
	if err := json.Unmarshal(list, &edits); err != nil {
		return nil, fmt.Errorf("%s: %s is not a list", name, ft.edits)
	}
	for i, e := range edits {
		eo, err := argsObject(e, ft.edits+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		ch, _, err := ft.change(eo)
		if err != nil {
			return nil, fmt.Errorf("%s: %s[%d]: %w", name, ft.edits, i, err)
		}
		req.Changes = append(req.Changes, ch)
	}
	return req, nil
}

// change reads one change from an input object; present is false when it has no text field.
func (ft fileTool) change(o object) (rules.Change, bool, error) {
	var ch rules.Change
	text, present, err := o.str(ft.text)
	if err != nil || !present {
		return ch, false, err
	}
	ch.New = text
	if ft.old != "" {
		if ch.Old, _, err = o.str(ft.old); err != nil {
			return ch, false, err
		}
	}
	if ft.all != "" {
		if raw, ok := o.get(ft.all); ok {
			var n float64
			switch {
			case string(raw) == "true":
				ch.All = true
			case json.Unmarshal(raw, &n) == nil:
				ch.All = n > 1
			}
		}
	}
	return ch, true, nil
}
