package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/internal/catalog"
	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/spec"
	"github.com/google/go-cmp/cmp"
)

const valid = `name: demo
commands: [demo]
context:
  read:
    - let: dir
      env: DEMO_DIR
      default: ~/.demo
    - file: ${dir}/state.json
      format: json
      value: current
`

func TestParseDefaults(t *testing.T) {
	s, err := catalog.Parse([]byte(valid+"bind: {flags: [--ctx]}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Noun != "context" || s.Bind.Place != "end" || s.Source != "p.yaml" {
		t.Errorf("defaults: noun %q, place %q, source %q", s.Noun, s.Bind.Place, s.Source)
	}
	if got := s.Context.Read[1].File; !cmp.Equal(got, spec.Strings{"${dir}/state.json"}) {
		t.Errorf("File = %q", got)
	}
	s, err = catalog.Parse([]byte(strings.Replace(valid, "    - file: ${dir}/state.json\n", "    - file: ['${dir}/a.json', '${dir}/b.json']\n", 1)), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Context.Read[1].File; !cmp.Equal(got, spec.Strings{"${dir}/a.json", "${dir}/b.json"}) {
		t.Errorf("File list = %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // every error, in order
	}{
		{"unknown key", valid + "bnd: {}\n", []string{"p.yaml:11:1: unknown key \"bnd\": did you mean `bind`?"}},
		{"unknown key in a step", strings.Replace(valid, "format: json", "fromat: json", 1),
			[]string{"p.yaml:9:7: unknown key \"fromat\": did you mean `format`?"}},
		{"wrong type", valid + "switch: {command: x}\n", []string{"p.yaml:11:9: switch must be a list, not a mapping"}},
		{"file as a map", strings.Replace(valid, "file: ${dir}/state.json", "file: {a: b}", 1),
			[]string{"p.yaml:8:13: file must be a single value or a list, not a mapping"}},
		{"empty", "", []string{
			"p.yaml: name is required",
			"p.yaml: commands is required: the command words this provider guards",
			"p.yaml: context.read is required: the steps that read the active context"}},
		{"bad name", strings.Replace(valid, "name: demo", "name: Demo", 1),
			[]string{`p.yaml:1:1: name "Demo" must be lowercase letters, digits and -, starting with a letter`}},
		{"bad command", strings.Replace(valid, "[demo]", "[/usr/bin/demo]", 1),
			[]string{`p.yaml:2:12: command "/usr/bin/demo" must be one word without a directory`}},
		{"format", strings.Replace(valid, "format: json", "format: toml", 1),
			[]string{`p.yaml:9:7: format must be one of json, yaml, ini, text, not "toml"`}},
		{"no format", strings.Replace(valid, "      format: json\n", "", 1),
			[]string{`p.yaml:8:7: format is required with file: one of json, yaml, ini, text`}},
		{"no value", strings.Replace(valid, "      value: current\n", "", 1),
			[]string{`p.yaml:8:7: value is required: the gjson path of the value in the file`}},
		{"last step with let", strings.Replace(valid, "    - file:", "    - let: x\n      file:", 1),
			[]string{`p.yaml:8:7: the last step gives the context and has no let`}},
		{"two final steps", strings.Replace(valid, "    - let: dir\n", "    - ", 1)[:0] + `name: demo
commands: [demo]
context:
  read:
    - env: A
    - env: B
`, []string{`p.yaml:5:7: every step but the last needs a let: only the last one gives the context`}},
		{"let used before it is read", strings.Replace(valid, "default: ~/.demo", "default: ${dir}/x", 1),
			[]string{`p.yaml:7:7: ${dir} in "${dir}/x" is read before let dir is`}},
		{"gjson ref to no let", strings.Replace(valid, "value: current", "value: ${host}.user", 1),
			[]string{`p.yaml:10:7: ${host} in "${host}.user" names no earlier let`}},
		{"malformed template", strings.Replace(valid, "${dir}/state.json", "${dir/state.json", 1),
			[]string{`p.yaml:8:7: malformed ${…} in "${dir/state.json"`}},
		{"step without a source", `name: demo
commands: [demo]
context:
  read:
    - list: false
`, []string{`p.yaml:5:7: a step needs at least one of flag, env, file and default`}},
		{"bind", valid + "bind: {flags: [ctx], place: middle, reject: ['']}\n", []string{
			`p.yaml:11:16: "ctx" is not a flag (-x, -name or --name)`,
			`p.yaml:11:22: place must be end or after-command, not "middle"`,
			`p.yaml:11:46: empty command pattern`}},
		{"switch", valid + `switch:
  - command: use
    flags: [-u]
    arg: 2
  - command: other
    unknown: true
    arg: 1
  - command: use
    sets: nope
  - command: --x
`, []string{
			`p.yaml:14:5: arg and flags exclude each other: write two entries`,
			`p.yaml:16:5: an unknown switch has no target: drop flags, arg, lookup and sets`,
			`p.yaml:19:5: sets "nope" names no let step`,
			`p.yaml:20:5: a switch command starts with a subcommand word`}},
		{"lookup refs", valid + "switch:\n  - command: use\n    lookup: list.${target}.${other}\n",
			[]string{`p.yaml:13:5: ${other} in "list.${target}.${other}" names no earlier let`}},
		{"patterns", valid + "exempt: [a*b, '--x=', 'x = y']\n", []string{
			`p.yaml:11:10: "a*b" in "a*b": * and ** are whole words or end a word (delete-*), = belongs to a flag`,
			`p.yaml:11:15: "--x=" in "--x=" is not a flag (-x, --name, --name=value)`,
			`p.yaml:11:23: "=" in "x = y": * and ** are whole words or end a word (delete-*), = belongs to a flag`}},
		{"destructive", valid + "destructive:\n  - {match: drop, tier: maybe}\n", []string{
			`p.yaml:12:5: why is required: it is what the reason tells the agent`,
			`p.yaml:12:19: tier must be ask or deny, not "maybe"`}},
		{"switched_by", valid + "switched_by: [demo x, --y, other tool]\n", []string{
			`p.yaml:11:15: "demo x" is this provider's own command: list it under switch`,
			`p.yaml:11:23: "--y" must start with the command word of the other CLI`}},
		{"exists", valid + "  exists: [{equals: a, path: b}, {}]\n", []string{
			`p.yaml:11:12: an exists check needs exactly one of equals and path`,
			`p.yaml:11:34: an exists check needs exactly one of equals and path`}},
		{"known", valid + "  known: {list: items}\n", []string{`p.yaml:11:3: known.id is required: the gjson path of an id in the list`}},
		{"second document", valid + "---\nname: x\n", []string{"p.yaml:11:1: a second YAML document (after ---): a file holds one; remove the --- line and merge the two, or move the second into a file of its own"}},
		{"replaced", strings.Replace(valid, "      default: ~/.demo\n", "      default: ~/.demo\n      replaced: [{by: [HOST]}]\n", 1) +
			"      replaced: [{by: [a-b, --api]}]\nbind: {flags: [--ctx]}\n", []string{
			`p.yaml:8:18: only the last step has replaced: it is about the context itself`,
			`p.yaml:12:24: "a-b" is neither a flag nor an environment variable name`,
			`p.yaml:13:8: --ctx must be among the last read step's flags: replaced checks a binding by reading the call as bound`}},
		{"redefinitions", valid + `redefine:
  - {command: configure, selected: true, arg: 1, except: [--x=]}
switched_by:
  - {command: fetch creds, unknown: true, redefines: true}
`, []string{
			`p.yaml:12:26: selected names the context the call selects: drop arg, match and current`,
			`p.yaml:12:59: "--x=" in "--x=" is not a flag (-x, --name, --name=value)`,
			`p.yaml:14:43: redefines needs a target that the switch names and writes: not unknown, not sets`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.Parse([]byte(tt.src), "p.yaml")
			if err == nil {
				t.Fatalf("Parse: no error, want %q", tt.want)
			}
			var got []string
			for _, e := range codec.Unjoin(err) {
				var ce *codec.Error
				if !errors.As(e, &ce) {
					t.Errorf("%v (%T) is not a *codec.Error", e, e)
				}
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse errors (-want +got):\n%s", diff)
			}
		})
	}
}
