package shell

import "sync"

// A wrapper is a command that runs another command, or a string as a script, or that changes the
// state of the shell it runs in: sudo, env, xargs, find -exec, bash -c, pwsh -Command, eval,
// Invoke-Expression, cd. Both readers hand every simple command to one resolver (resolve.go),
// which looks its name up in the table below: the table is the only place that knows a wrapper's
// grammar, so the bash and the PowerShell reader see the same wrappers the same way.
type wrapper struct {
	names []string
	in    dialect // the dialects in which the names mean this: programs both, builtins one
	label string  // the Via label of what it runs; the name when ""
	runs  runs

	opts    opts     // its options; an option not listed takes no value
	permute bool     // options may follow operands (GNU getopt), so script options are found anywhere
	skip    int      // operands before the command: timeout's DURATION, chroot's NEWROOT, flock's FILE
	assigns bool     // NAME=value words before the command set its environment (env, sudo)
	noCmd   []string // options with which nothing runs (--help, sudo -l)
	onlyIf  []string // when set, the only options with which a command runs (wsl: others list, install …)

	// The environment and directory of what it runs.
	clearEnv   bool     // it starts from an empty environment (sudo, doas, wsl, ssh)
	keepEnv    []string // options that keep the environment after all (sudo -E)
	emptyEnv   []string // options that empty it (env -i, exec -c)
	unsetEnv   []string // options whose value names a variable to remove (env -u)
	chdir      []string // options whose value is the directory it runs in (env -C, sudo -D)
	dashEmpty  bool     // an operand "-" before the command empties the environment (env -)
	dirUnknown bool     // it runs in a directory the line does not show (wsl, chroot, ssh)
	sameShell  bool     // what it runs acts on this shell: cd and export in it stay (command, eval, source)

	// Arguments and input.
	appends  bool     // it appends arguments to the command, which reads no stdin then (xargs, find -exec)
	noStdin  bool     // the command does not read the statement's stdin (watch)
	replace  []string // options whose value is the string replaced by each input (xargs -I); {} without one
	argFile  []string // options that take the arguments from a file, not from stdin (xargs -a)
	delimit  []string // options that split the input otherwise than at blanks (xargs -0, -d)
	execOpts []string // find -exec: each run of words after one of these, up to ";", is a command
	plusEnds bool     // … or up to "{} +"
	// What such a command finds, which {} stands for and its deleteOpts delete (find -delete):
	// under the operands before its first option (startFirst; else under its directory), files
	// whose names match the values of nameOpts (find -name), else any file.
	deleteOpts []string
	nameOpts   []string
	startFirst bool

	// Scripts.
	lang        dialect  // the dialect of the scripts it runs; bash when 0
	script      []string // options whose value is a script (su -c, flock -c, Invoke-Expression -Command)
	scriptLabel string   // the Via label of such a script; the name and the first option when ""
	split       []string // options whose value, then the operands, are split into words (env -S)
	viaSh       []string // it hands its operands to sh -c unless one of these options is given (watch -x)
	marker      []string // the words after the first of these (in any case) are the script (cmd /c)
	shell       *shellGrammar
	blocks      bool      // runsOpaque: it runs script blocks, which are read where they stand
	state       stateKind // for runsState

	// runsCode: an interpreter. code lists the options whose value is its program (python -c),
	// codeFirst makes the first operand the program (awk); without either, a program read from
	// stdin (python3 -, a here-document) counts. spawn matches the calls of its language that
	// start a process, writes the files its code opens for writing (its first group).
	code      []string
	codeFirst bool
	spawn     string
	writes    string
}

// runs says where a wrapper finds what it runs.
type runs uint8

const (
	runsCommand  runs = iota // the first operand after its options (and skip) is the command
	runsShell                // a shell: see shellGrammar
	runsJoined               // its operands, joined by blanks, are a script (eval, ssh HOST …, cmd /c)
	runsFirst                // its first operand is a script, else its stdin (Invoke-Expression)
	runsHandler              // its first operand is a script when a signal follows (trap)
	runsExec                 // the runs of words after execOpts are commands (find, fd)
	runsParallel             // GNU parallel: a command before :::, or each input after it
	runsOpaque               // it starts something ctxguard does not follow (Start-Process)
	runsState                // it changes the state of the shell it runs in (cd, unset, set)
	runsSource               // it reads a script file into this shell: read when the line shows it
	runsNothing              // only its script options run something (su, script)
	runsCode                 // an interpreter: see wrapper.code
)

// stateKind is the shell state a builtin changes.
type stateKind uint8

const (
	stateCd stateKind = iota + 1
	statePushd
	statePopd
	stateUnset
	stateSet
)

// shellGrammar is how a shell's arguments say what it runs.
type shellGrammar struct {
	lang dialect
	// params are PowerShell's named parameters; nil for a POSIX shell, whose options come in
	// clusters (`-lc`): c runs the first operand as a script, s reads stdin, o and O take a value.
	params []pwshParam
	// bareCommand: the first operand starts the command (powershell.exe), not a script file (pwsh).
	bareCommand bool
}

var posixShell = shellGrammar{lang: bashDialect}

// pwsh's parameters, in the order its parser tries them: the first whose name the word is a
// prefix of, at least as long as its shortest form, wins; aliases match exactly. See
// https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_pwsh
// and about_PowerShell_exe.
var pwshParams = [...]pwshParam{
	{name: "help", min: "h", alias: "?"},
	{name: "login", min: "l"},
	{name: "configurationfile", min: "configurationfile", does: pwshValue},
	{name: "configurationname", min: "config", does: pwshValue},
	{name: "custompipename", min: "cus", does: pwshValue},
	{name: "command", min: "c", does: pwshCommand, label: "-Command"},
	{name: "commandwithargs", min: "commandw", alias: "cwa", does: pwshCommandWithArgs, label: "-CommandWithArgs"},
	{name: "windowstyle", min: "w", does: pwshValue},
	{name: "file", min: "f", does: pwshFile},
	{name: "executionpolicy", min: "ex", alias: "ep", does: pwshValue},
	{name: "encodedcommand", min: "e", alias: "ec", does: pwshEncoded, label: "-EncodedCommand"},
	{name: "encodedarguments", min: "encodeda", alias: "ea", does: pwshValue},
	{name: "settingsfile", min: "settings", does: pwshValue},
	{name: "workingdirectory", min: "wo", alias: "wd", does: pwshValue},
	{name: "outputformat", min: "o", alias: "of", does: pwshValue},
	{name: "inputformat", min: "in", alias: "if", does: pwshValue},
	{name: "version", min: "v", does: pwshValue},
	{name: "psconsolefile", min: "psconsolefile", does: pwshValue},
}

// wrappers is the table. Names are as the reader of the dialect normalises them (PowerShell's
// lowercased).
var wrappers = []wrapper{
	{names: []string{"sudo"}, in: anyDialect, opts: opts{val: "ugpCDrtTUR", long: []string{"--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--host"}},
		assigns: true, noCmd: []string{"-e", "--edit", "-l", "--list", "-V", "--version", "-v", "--validate", "-K", "--remove-timestamp", "-h", "--help", "-L"}, clearEnv: true, keepEnv: []string{"-E", "--preserve-env"}, chdir: []string{"-D", "--chdir"}},
	// doas -C checks a configuration (and a command against it), -L forgets a password.
	{names: []string{"doas"}, in: anyDialect, opts: opts{val: "uCa"}, noCmd: []string{"-C", "-L"}, clearEnv: true},
	{names: []string{"env"}, in: anyDialect, opts: opts{val: "uCSPa", long: []string{"--unset", "--chdir", "--split-string", "--argv0"}},
		assigns: true, noCmd: []string{"--help", "--version", "--list-signal-handling"}, emptyEnv: []string{"-i", "--ignore-environment"},
		unsetEnv: []string{"-u", "--unset"}, chdir: []string{"-C", "--chdir"}, dashEmpty: true, split: []string{"-S", "--split-string"}},
	{names: []string{"command"}, in: bashDialect, noCmd: []string{"-v", "-V"}, sameShell: true},
	{names: []string{"builtin"}, in: bashDialect, sameShell: true},
	{names: []string{"exec"}, in: bashDialect, opts: opts{val: "a"}, emptyEnv: []string{"-c"}},
	{names: []string{"nohup", "setsid", "busybox", "chronic"}, in: anyDialect},
	{names: []string{"time"}, in: anyDialect, opts: opts{val: "fo", long: []string{"--format", "--output"}}},
	{names: []string{"timeout"}, in: anyDialect, opts: opts{val: "sk", long: []string{"--signal", "--kill-after"}}, skip: 1},
	{names: []string{"nice"}, in: anyDialect, opts: opts{val: "n", long: []string{"--adjustment"}}},
	{names: []string{"ionice"}, in: anyDialect, opts: opts{val: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
		noCmd: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}}, // these act on running processes
	{names: []string{"stdbuf"}, in: anyDialect, opts: opts{val: "ioe", long: []string{"--input", "--output", "--error"}}},
	// Without -x, watch joins its operands and hands them to `sh -c`.
	{names: []string{"watch"}, in: anyDialect, opts: opts{val: "nqs", long: []string{"--interval", "--equexit", "--shotsdir"}},
		viaSh: []string{"-x", "--exec"}, noStdin: true},
	{names: []string{"xargs"}, in: anyDialect, opts: opts{val: "adEILnPs", opt: "eil", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
		noCmd: []string{"--help", "--version"}, appends: true, replace: []string{"-I", "-i", "--replace"}, argFile: []string{"-a", "--arg-file"},
		delimit: []string{"-0", "--null", "-d", "--delimiter"}},
	{names: []string{"parallel"}, in: anyDialect, runs: runsParallel, appends: true, opts: opts{val: "aCdEIjPLnNSsJ", long: []string{
		"--arg-file", "--arg-file-sep", "--arg-sep", "--basefile", "--bf", "--block", "--colsep", "--delimiter", "--env", "--jobs",
		"--joblog", "--max-lines", "--max-args", "--max-replace-args", "--results", "--res", "--sshlogin", "--sshloginfile", "--slf",
		"--max-chars", "--tagstring", "--tag-string", "--tmpdir", "--timeout", "--wd", "--workdir", "--delay", "--retries",
		"--memfree", "--load", "--nice", "--termseq", "--halt", "--limit", "--return", "--transferfile", "--tf", "--profile",
		"--semaphorename", "--id"}}},
	{names: []string{"find"}, in: anyDialect, runs: runsExec, execOpts: []string{"-exec", "-execdir", "-ok", "-okdir"}, plusEnds: true, appends: true,
		deleteOpts: []string{"-delete"}, nameOpts: []string{"-name", "-iname"}, startFirst: true},
	{names: []string{"fd", "fdfind"}, label: "fd", in: anyDialect, runs: runsExec, execOpts: []string{"-x", "--exec", "-X", "--exec-batch"}, appends: true},
	{names: []string{"trap"}, in: bashDialect, runs: runsHandler},
	// The words after the host are joined and run by the remote user's shell.
	{names: []string{"ssh"}, in: anyDialect, runs: runsJoined, opts: opts{val: "BbcDEeFIiJLlmOopQRSWw"}, skip: 1, clearEnv: true, dirUnknown: true},
	{names: []string{"wsl"}, in: anyDialect, opts: opts{val: "du", long: []string{"--distribution", "--user", "--cd", "--shell-type"}},
		onlyIf: []string{"-e", "--exec", "-d", "-u", "--distribution", "--user", "--cd", "--shell-type"}, clearEnv: true, dirUnknown: true},
	{names: []string{"chroot"}, in: anyDialect, opts: opts{long: []string{"--userspec", "--groups"}}, skip: 1, dirUnknown: true},
	{names: []string{"eval"}, in: bashDialect, runs: runsJoined, sameShell: true},
	// su -c COMMAND; runuser -u USER [--] COMMAND runs the command itself.
	{names: []string{"su", "runuser"}, in: anyDialect, runs: runsNothing, permute: true, script: []string{"-c", "--command"},
		opts: opts{val: "cgGswu", long: []string{"--command", "--group", "--supp-group", "--shell", "--whitelist-environment", "--user"}}},
	// script [-q] -c 'command' [file] runs the command through a shell.
	{names: []string{"script"}, in: anyDialect, runs: runsNothing, permute: true, script: []string{"-c", "--command"},
		opts: opts{val: "cEIOBTo", long: []string{"--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--output-limit"}}},
	// flock [options] FILE COMMAND [ARGS] or flock [options] FILE -c COMMAND.
	{names: []string{"flock"}, in: anyDialect, opts: opts{val: "wE", long: []string{"--timeout", "--wait", "--conflict-exit-code"}}, skip: 1, script: []string{"-c", "--command"}},
	// cmd.exe /c "…" (or /k): see cmdDialect.
	{names: []string{"cmd"}, label: "cmd /c", in: anyDialect, runs: runsJoined, marker: []string{"/c", "/k"}, lang: cmdDialect},
	{names: []string{"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish"}, in: anyDialect, runs: runsShell, shell: &posixShell},
	{names: []string{"pwsh"}, in: anyDialect, runs: runsShell, shell: &shellGrammar{lang: psDialect, params: pwshParams[:]}},
	{names: []string{"powershell"}, in: anyDialect, runs: runsShell, shell: &shellGrammar{lang: psDialect, params: pwshParams[:], bareCommand: true}},
	{names: []string{"source", "."}, in: bashDialect, runs: runsSource, sameShell: true},
	{names: []string{"invoke-expression", "iex"}, in: psDialect, runs: runsFirst, lang: psDialect, script: []string{"-command"}, scriptLabel: "iex"},
	// What these run is a string or a path that ctxguard does not follow; a script block given
	// to the last four is read where it stands.
	{names: []string{"start-process", "saps", "start"}, in: psDialect, runs: runsOpaque},
	{names: []string{"invoke-command", "icm", "start-job", "start-threadjob"}, in: psDialect, runs: runsOpaque, blocks: true},
	// Tools that run a command given after their options, an operand or two, or "--" (which
	// any command without a row here is taken to mean: see resolve).
	{names: []string{"strace", "ltrace"}, in: anyDialect, opts: opts{val: "abeEIoOpPsSuUX", long: []string{"--output", "--trace", "--signal", "--env", "--user", "--attach"}},
		noCmd: []string{"-p", "--attach"}},
	{names: []string{"taskset"}, in: anyDialect, skip: 1, noCmd: []string{"-p", "--pid"}},
	{names: []string{"chrt"}, in: anyDialect, skip: 1, opts: opts{val: "T", long: []string{"--sched-runtime", "--sched-deadline", "--sched-period"}}, noCmd: []string{"-p", "--pid", "-m", "--max"}},
	{names: []string{"prlimit", "setpriv", "unshare", "unbuffer", "catchsegv"}, in: anyDialect, noCmd: []string{"--pid", "-p", "--dump", "-d"}},
	{names: []string{"systemd-run"}, in: anyDialect, opts: opts{val: "puEMHG", long: []string{"--property", "--unit", "--setenv", "--machine", "--host",
		"--slice", "--uid", "--gid", "--working-directory", "--description", "--on-active", "--on-boot", "--on-calendar", "--timer-property",
		"--socket-property", "--path-property", "--service-type", "--nice", "--expand-environment"}}},
	// direnv exec DIR COMMAND; sops exec-env FILE 'COMMAND' (a string run by sh).
	{names: []string{"direnv"}, in: anyDialect, skip: 2},
	{names: []string{"sops"}, in: anyDialect, runs: runsJoined, skip: 2, opts: opts{long: []string{"--config", "--output", "--input-type", "--output-type"}}},
	// doppler run --command 'COMMAND' (or -- COMMAND).
	{names: []string{"doppler"}, in: anyDialect, runs: runsNothing, permute: true, script: []string{"--command"}, opts: opts{long: []string{"--command"}}},
	// Interpreters whose literal code starts a process that names a guarded CLI are asked about
	// (the engine knows the names); code that only prints or stores text is left alone.
	{names: []string{"python", "python3", "python2", "pypy3"}, in: anyDialect, runs: runsCode, code: []string{"-c"},
		opts: opts{val: "cmWXQ"}, spawn: `subprocess|os\.(system|popen|exec|spawn|posix_spawn)|pty\.spawn|\bcommands\.`,
		writes: `open\(\s*['"]([^'"]+)['"]\s*,\s*['"][^'"]*[wax+]`},
	{names: []string{"node", "nodejs", "bun", "deno"}, in: anyDialect, runs: runsCode, code: []string{"-e", "--eval", "-p", "--print"},
		opts:   opts{val: "er", long: []string{"--eval", "--print", "--require", "--import"}},
		spawn:  `child_process|\b(execSync|spawnSync|execFileSync|execFile|exec|spawn|fork)\s*\(|Bun\.spawn|Deno\.(run|Command)`,
		writes: `writeFileSync\(\s*['"]([^'"]+)['"]`},
	{names: []string{"perl"}, in: anyDialect, runs: runsCode, code: []string{"-e", "-E"}, opts: opts{val: "eEIMmx"},
		spawn: `\b(system|exec)\b|\bqx|open\s*\(?[^;]*\||` + "`", writes: `open\s*\(?[^,;]*,\s*['"]>>?['"]?\s*,?\s*['"]([^'"]+)['"]`},
	{names: []string{"ruby"}, in: anyDialect, runs: runsCode, code: []string{"-e"}, opts: opts{val: "erI"},
		spawn: `\b(system|exec|spawn)\b|%x|IO\.popen|Open3|` + "`"},
	{names: []string{"php"}, in: anyDialect, runs: runsCode, code: []string{"-r"}, opts: opts{val: "rcdf"},
		spawn: `\b(system|exec|shell_exec|passthru|proc_open|popen)\s*\(|` + "`"},
	{names: []string{"awk", "gawk", "mawk", "nawk", "busybox-awk"}, in: anyDialect, runs: runsCode, codeFirst: true,
		opts:  opts{val: "vFf", long: []string{"--assign", "--field-separator", "--file"}},
		spawn: `\bsystem\s*\(|\|\s*getline|\bprint[f]?\b[^;}]*\|`, writes: `>>?\s*"([^"]+)"`},
	{names: []string{"cd"}, in: anyDialect, runs: runsState, state: stateCd},
	{names: []string{"set-location", "sl", "chdir"}, in: psDialect, runs: runsState, state: stateCd},
	{names: []string{"pushd"}, in: anyDialect, runs: runsState, state: statePushd},
	{names: []string{"push-location"}, in: psDialect, runs: runsState, state: statePushd},
	{names: []string{"popd"}, in: anyDialect, runs: runsState, state: statePopd},
	{names: []string{"pop-location"}, in: psDialect, runs: runsState, state: statePopd},
	{names: []string{"unset"}, in: bashDialect, runs: runsState, state: stateUnset},
	{names: []string{"set"}, in: bashDialect, runs: runsState, state: stateSet},
}

// bashWrappers and psWrappers map a name to its row in each dialect that has a reader. Each is
// built on first use rather than as a map literal, which would cost every hook run its
// construction at package init, and a line read in one dialect never builds the other's.
var (
	bashWrappers = sync.OnceValue(func() map[string]*wrapper { return indexWrappers(bashDialect) })
	psWrappers   = sync.OnceValue(func() map[string]*wrapper { return indexWrappers(psDialect) })
)

func indexWrappers(d dialect) map[string]*wrapper {
	m := make(map[string]*wrapper, len(wrappers))
	for i := range wrappers {
		if k := &wrappers[i]; k.in&d != 0 {
			for _, n := range k.names {
				m[n] = k
			}
		}
	}
	return m
}

// wrapperNamed returns the row for a command name read in dialect d, or nil.
func wrapperNamed(d dialect, name string) *wrapper {
	switch d {
	case bashDialect:
		return bashWrappers()[name]
	case psDialect:
		return psWrappers()[name]
	}
	return nil
}
