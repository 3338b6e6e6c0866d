//go:build unix

package client

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// shims are the CLIs the test binary stands in for. Each reads its state the way the real CLI
// does (a flag of the call, else its state file), logs the call and the context it would act
// in, and prints a harmless answer. A switch changes the state file, as the real one would.
var shims = map[string]*shimCLI{
	"az": {
		flag: "--subscription", state: "AZURE_CONFIG_DIR", file: "azureProfile.json",
		active: func(doc map[string]any) string {
			for _, s := range list(doc["subscriptions"]) {
				if s["isDefault"] == true {
					return fmt.Sprint(s["id"])
				}
			}
			return ""
		},
		switchTo: func(doc map[string]any, target string) {
			for _, s := range list(doc["subscriptions"]) {
				s["isDefault"] = s["id"] == target || s["name"] == target
			}
		},
		switchCmd: []string{"account", "set"}, switchFlags: []string{"--subscription", "-s"},
		output: "[]\n",
	},
	"kubectl": {
		flag: "--context", state: "KUBECONFIG",
		active: func(doc map[string]any) string { return fmt.Sprint(doc["current-context"]) },
		switchTo: func(doc map[string]any, target string) {
			doc["current-context"] = target
		},
		switchCmd: []string{"config", "use-context"},
		output:    "No resources found in default namespace.\n",
	},
}

type shimCLI struct {
	flag  string // the flag that binds one call
	state string // the environment variable that names the state file, or its folder
	file  string // the state file in that folder ("" = the variable names the file)

	active      func(doc map[string]any) string
	switchTo    func(doc map[string]any, target string)
	switchCmd   []string // the subcommand that switches
	switchFlags []string // the switch's target flag; none = the first argument after switchCmd
	output      string
}

func list(v any) []map[string]any {
	var out []map[string]any
	items, _ := v.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// shim runs as the CLI name and returns its exit code.
func shim(name string, args []string) int {
	cli := shims[name]
	file := os.Getenv(cli.state)
	if cli.file != "" {
		file += string(os.PathSeparator) + cli.file
	}
	ctx, err := cli.run(file, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s (shim): %v\n", name, err)
		return 1
	}
	line, _ := json.Marshal(call{CLI: name, Args: args, Context: ctx})
	f, err := os.OpenFile(os.Getenv("CTXGUARD_SHIM_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s (shim): %v\n", name, err)
		return 1
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		fmt.Fprintf(os.Stderr, "%s (shim): %v\n", name, err)
		return 1
	}
	fmt.Print(cli.output)
	return 0
}

// run returns the context a call acts in, and carries out a switch.
func (cli *shimCLI) run(file string, args []string) (string, error) {
	target, isSwitch := cli.target(args)
	if !isSwitch {
		for i, a := range args {
			if v, ok := strings.CutPrefix(a, cli.flag+"="); ok {
				return v, nil
			}
			if a == cli.flag && i+1 < len(args) {
				return args[i+1], nil
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if !isSwitch {
		return cli.active(doc), nil
	}
	cli.switchTo(doc, target)
	if data, err = json.Marshal(doc); err != nil {
		return "", err
	}
	return target, os.WriteFile(file, data, 0o644)
}

// target is the target of a switch, if args are one.
func (cli *shimCLI) target(args []string) (string, bool) {
	if len(args) < len(cli.switchCmd) || strings.Join(args[:len(cli.switchCmd)], " ") != strings.Join(cli.switchCmd, " ") {
		return "", false
	}
	rest := args[len(cli.switchCmd):]
	if len(cli.switchFlags) == 0 {
		return strings.Join(rest[:min(1, len(rest))], ""), len(rest) > 0
	}
	for i, a := range rest {
		for _, f := range cli.switchFlags {
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				return v, true
			}
			if a == f && i+1 < len(rest) {
				return rest[i+1], true
			}
		}
	}
	return "", false
}
