package hookfile

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ctxguard/ctxguard/internal/codec"
)

// Layout is how a harness's file holds its hooks: under the top-level "hooks" object, one array
// per event.
type Layout struct {
	// Nested is set where an event lists groups {matcher, hooks: [handler…]} (Claude Code, Gemini
	// CLI, Codex) rather than handlers (Copilot CLI, Cursor).
	Nested bool
	// Events are every event under which ctxguard may have installed a hook; Uninstall and Find
	// look under all of them.
	Events []string
	// Bare is set where the file is the event map itself, with no "hooks" member around it
	// (Factory Droid's hooks.json).
	Bare bool
	// Self is the program ctxguard's entries run, "" when not known: a handler that runs it is
	// ctxguard's even when the file is not named ctxguard (CTXGUARD_SELF, a packager's renamed
	// binary), so that installing again replaces it rather than adding a second entry.
	Self string
}

// Entry is one hook to install: Value (JSON) goes at the end of the Event's array. It is a
// group when the layout is nested, else a handler.
type Entry struct {
	Event string
	Value []byte
}

// Hook is one of ctxguard's handlers found in a file.
type Hook struct {
	Event   string
	Matcher string // the group's matcher (nested) or the handler's; "" when none
	Handler *Node
}

// Pos is where the handler is written.
func (h Hook) Pos() codec.Pos { return h.Handler.Pos() }

// Command is what the handler runs: argv for an exec form (Claude Code's command + args,
// Copilot CLI's exec + args), otherwise the line given to a shell. On Windows Codex's
// commandWindows or Copilot CLI's powershell line is preferred, elsewhere Copilot's bash one;
// command is the fallback of all.
func (h Hook) Command(goos string) (argv []string, line string) {
	n := h.Handler
	args, hasArgs := n.Get("args").Strs()
	if s, ok := n.Get("exec").Str(); ok {
		return append([]string{s}, args...), ""
	}
	if s, ok := n.Get("command").Str(); ok && hasArgs {
		return append([]string{s}, args...), ""
	}
	keys := []string{"bash", "command"}
	if goos == "windows" {
		keys = []string{"commandWindows", "powershell", "command"}
	}
	for _, k := range keys {
		if s, ok := n.Get(k).Str(); ok {
			return nil, s
		}
	}
	return nil, ""
}

// owned reports whether a handler is ctxguard's: the program it runs ([Program] of
// [Hook.Command]) is named ctxguard or ctxguard.exe, in any directory, or is self, on either
// system (a handler may hold a line for each). Its matcher and its other fields do not count:
// they are what an older install may have written differently.
func owned(handler *Node, self string) bool {
	if handler == nil || handler.Kind != Object {
		return false
	}
	h := Hook{Handler: handler}
	for _, goos := range []string{"linux", "windows"} {
		if p := Program(h.Command(goos)); isSelf(p) || self != "" && p == self {
			return true
		}
	}
	return false
}

// Program is the program a hook runs: argv[0] of an exec form, else the first word of its shell
// line, unquoted, after PowerShell's call operator &. Within single quotes two quotes stand for
// one, as PowerShell reads them (the home folder of a user named O'Brien).
func Program(argv []string, line string) string {
	if argv != nil {
		return argv[0]
	}
	s := strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(s, "&"); ok {
		s = strings.TrimSpace(rest)
	}
	if s == "" {
		return ""
	}
	if q := s[0]; q == '\'' || q == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == q {
				if q != '\'' || i+1 >= len(s) || s[i+1] != q {
					break
				}
				i++
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

// isSelf reports whether path names the ctxguard binary, ctxguard.exe on Windows, whose file
// names are case-insensitive.
func isSelf(path string) bool {
	base := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
	return strings.TrimSuffix(base, ".exe") == "ctxguard"
}

// Find lists ctxguard's handlers in a file, in the order of layout.Events.
func Find(data []byte, file string, layout Layout) ([]Hook, error) {
	d, err := Parse(data, file)
	if err != nil {
		return nil, err
	}
	if _, err := d.hooks(file, layout); err != nil {
		return nil, err
	}
	var out []Hook
	for _, ev := range layout.Events {
		out = append(out, d.find(layout, ev)...)
	}
	return out, nil
}

// hooks returns the object that holds the event arrays: the top-level hooks member (nil when
// there is none), or the root of a bare file; or an error naming the place when the file is not
// shaped as the layout expects.
func (d *Doc) hooks(file string, layout Layout) (*Node, error) {
	if d.Root.Kind != Object {
		return nil, d.Root.errorAt(file, "the file is not a JSON object")
	}
	if layout.Bare {
		return d.Root, nil
	}
	h := d.Root.Get("hooks")
	if h != nil && h.Kind != Object {
		return nil, h.errorAt(file, `"hooks" is not an object`)
	}
	return h, nil
}

func (d *Doc) find(layout Layout, event string) []Hook {
	hooks, _ := d.hooks("", layout)
	arr := hooks.Get(event)
	if arr == nil || arr.Kind != Array {
		return nil
	}
	var out []Hook
	for _, item := range arr.Children {
		if item.Kind != Object {
			continue
		}
		matcher, _ := item.Get("matcher").Str()
		if !layout.Nested {
			if owned(item, layout.Self) {
				out = append(out, Hook{Event: event, Matcher: matcher, Handler: item})
			}
			continue
		}
		hs := item.Get("hooks")
		if hs == nil || hs.Kind != Array {
			continue
		}
		for _, h := range hs.Children {
			if owned(h, layout.Self) {
				out = append(out, Hook{Event: event, Matcher: matcher, Handler: h})
			}
		}
	}
	return out
}

// Install returns the file with each entry installed: a ctxguard handler already there under
// the entry's event is kept if it is exactly the entry (so installing twice changes nothing) and
// replaced otherwise (a moved binary, an older entry). Blank data is a new file: it starts as
// skeleton. Other members, hooks and formatting are kept byte for byte.
func Install(data []byte, file string, layout Layout, skeleton []byte, entries []Entry) ([]byte, error) {
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, bom))) == 0 {
		data = skeleton
	}
	for _, e := range entries {
		var err error
		if data, err = install(data, file, layout, e); err != nil {
			return nil, err
		}
	}
	return data, nil
}

func install(data []byte, file string, layout Layout, e Entry) ([]byte, error) {
	d, err := Parse(data, file)
	if err != nil {
		return nil, err
	}
	hooks, err := d.hooks(file, layout)
	if err != nil {
		return nil, err
	}
	if arr := hooks.Get(e.Event); arr != nil && arr.Kind != Array {
		name := "hooks." + e.Event
		if layout.Bare {
			name = e.Event
		}
		return nil, arr.errorAt(file, fmt.Sprintf("%s is not an array", name))
	}
	found := d.find(layout, e.Event)
	if len(found) == 1 && d.same(found[0], layout, e.Value) {
		return data, nil
	}
	if data, err = remove(data, file, layout, e.Event); err != nil {
		return nil, err
	}
	if d, err = Parse(data, file); err != nil {
		return nil, err
	}
	if hooks, _ = d.hooks(file, layout); hooks == nil {
		return d.put(d.Root, "hooks", []byte(fmt.Sprintf(`{%q:[%s]}`, e.Event, e.Value)))
	}
	arr := hooks.Get(e.Event)
	if arr == nil {
		return d.put(hooks, e.Event, []byte("["+string(e.Value)+"]"))
	}
	return d.appendItem(arr, e.Value)
}

// same reports whether the found handler is installed exactly as value says: alone in a group
// equal to value (nested), or equal to value itself.
func (d *Doc) same(h Hook, layout Layout, value []byte) bool {
	if !layout.Nested {
		return Same(h.Handler.Raw(), value)
	}
	arr := h.Handler.Parent
	return len(arr.Children) == 1 && Same(arr.Parent.Raw(), value)
}

// Uninstall returns the file without any of ctxguard's handlers. A group, event array or hooks
// object that held nothing else goes with them, so that uninstalling after installing gives back
// the file as it was.
func Uninstall(data []byte, file string, layout Layout) ([]byte, error) {
	for _, ev := range layout.Events {
		var err error
		if data, err = remove(data, file, layout, ev); err != nil {
			return nil, err
		}
	}
	return data, nil
}

func remove(data []byte, file string, layout Layout, event string) ([]byte, error) {
	for {
		d, err := Parse(data, file)
		if err != nil {
			return nil, err
		}
		if _, err := d.hooks(file, layout); err != nil {
			return nil, err
		}
		found := d.find(layout, event)
		if len(found) == 0 {
			return data, nil
		}
		data = d.remove(outermost(found[0], layout))
	}
}

// outermost is what to delete to remove a handler: the handler, or the innermost container
// that would be left empty without it: its group (nested), the event's member, the hooks member.
func outermost(h Hook, layout Layout) *Node {
	n := h.Handler
	if layout.Nested {
		if len(n.Parent.Children) > 1 {
			return n
		}
		n = n.Parent.Parent // the group
	}
	for n.Parent.Parent != nil && len(n.Parent.Children) == 1 {
		n = n.Parent // the event array, then the hooks object
	}
	return n
}
