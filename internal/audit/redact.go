package audit

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxguard/ctxguard/internal/codec"
	"github.com/ctxguard/ctxguard/internal/shell"
)

// Redacted replaces every secret in a logged text.
const Redacted = "[REDACTED]"

// Secret names flags whose value is a secret on some commands (builtin/secrets.yaml).
type Secret struct {
	Commands []string `yaml:"commands"`
	// Flags are followed by the secret, or carry it after "=".
	Flags []string `yaml:"flags"`
	// Attached are short flags with the secret joined on (-pSECRET).
	Attached []string `yaml:"attached"`
}

type secretsFile struct {
	Secrets []Secret `yaml:"secrets"`
}

// ParseSecrets reads builtin/secrets.yaml.
func ParseSecrets(data []byte, file string) ([]Secret, error) {
	var f secretsFile
	pos, err := codec.Decode(data, file, &f)
	if pos == nil {
		return nil, err
	}
	problems := codec.NewProblems(pos, err)
	for i, s := range f.Secrets {
		at := "secrets." + strconv.Itoa(i)
		if len(s.Commands) == 0 || len(s.Flags)+len(s.Attached) == 0 {
			problems.Add(at, "a secret needs commands, and flags or attached")
		}
		for j, a := range s.Attached {
			if len(a) != 2 || a[0] != '-' {
				problems.Add(at+".attached."+strconv.Itoa(j), "attached %q is not a short flag", a)
			}
		}
	}
	if err := problems.Err(); err != nil {
		return nil, err
	}
	return f.Secrets, nil
}

// anyFlags are flags whose value is a secret whatever the command (PowerShell's parameters
// among them: flags are compared without regard to case, short ones excepted).
var anyFlags = []string{
	"--password", "--passwd", "--pass", "--http-password", "--ftp-password", "--proxy-password",
	"--secret", "--client-secret", "--token", "--access-token", "--auth-token", "--refresh-token",
	"--api-key", "--apikey", "--account-key", "--sas-token", "--secret-key", "--secret-access-key",
	"-password", "-token", "-apikey", "-secret", "-clientsecret", "-accesstoken",
	"-storepass", "-keypass", "-passin", "-passout",
}

// anyFlagNames is anyFlags as an alternation of their names without dashes, longest first, for
// the pattern of a secret flag in a line the shell reader cannot read.
func anyFlagNames() string {
	var names []string
	for _, f := range anyFlags {
		if n := regexp.QuoteMeta(strings.TrimLeft(f, "-")); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return len(b) - len(a) })
	return strings.Join(names, "|")
}

// secretWords are the words in the names of environment variables that hold secrets (GH_TOKEN,
// AWS_SECRET_ACCESS_KEY, PGPASSWORD, ARM_CLIENT_SECRET, …), as a regular expression.
const secretWords = `PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL`

// secretName matches the name of a variable that holds a secret. Compiled on first use: every
// hook run would pay for it at start-up, audited or not.
var secretName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(` + secretWords + `)`) })

// pattern is a shape of secret found in any text. Hints are lowercase substrings one of which
// the text must contain for the pattern to be tried at all, so that the usual command, which
// has none, costs a few substring searches and compiles no expression.
type pattern struct {
	hints []string
	repl  string
	re    func() *regexp.Regexp
}

func newPattern(hints []string, expr, repl string) *pattern {
	return lazyPattern(hints, func() string { return expr }, repl)
}

// lazyPattern is a pattern whose expression is built on first use too.
func lazyPattern(hints []string, expr func() string, repl string) *pattern {
	return &pattern{hints: hints, repl: repl, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr()) })}
}

// value matches a shell word's text after a flag or "=": quoted (also cut short), or bare;
// quoted keeps its quotes (see the replacement).
const (
	value  = `(?:(?P<o1>')[^']*(?P<c1>'?)|(?P<o2>")[^"]*(?P<c2>"?)|[^\s'";&|]+)`
	quoted = "${o1}${o2}" + Redacted + "${c1}${c2}"
)

// patterns are the shapes of secrets, most specific first. Each keeps what says what the secret
// was (the flag, the header, the key's prefix) and blanks the rest. The list is made on first
// use: some 25 K instructions that a hook run without the audit trail would pay at start-up.
var patterns = sync.OnceValue(func() []*pattern {
	return []*pattern{
		// GitHub tokens: classic, OAuth, user-to-server, server-to-server, refresh, fine-grained.
		newPattern([]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, `(ghp_|gho_|ghu_|ghs_|ghr_)[A-Za-z0-9]{20,}`, "${1}"+Redacted),
		newPattern([]string{"github_pat_"}, `(github_pat_)[A-Za-z0-9_]{20,}`, "${1}"+Redacted),
		// Slack, npm, OpenAI and Anthropic style keys.
		newPattern([]string{"xox"}, `(xox[abposr]-)[A-Za-z0-9-]{10,}`, "${1}"+Redacted),
		newPattern([]string{"npm_"}, `(npm_)[A-Za-z0-9]{30,}`, "${1}"+Redacted),
		newPattern([]string{"sk-"}, `\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_-]{20,}`, "${1}"+Redacted),
		// AWS access key ids (the secret key that goes with one is only known by its name, below).
		newPattern([]string{"akia", "asia"}, `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, Redacted),
		// JSON Web Tokens: three base64url parts, the first a JSON object ({" is eyJ).
		newPattern([]string{"eyj"}, `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, Redacted),
		// PEM private keys.
		newPattern([]string{"private key-----"}, `-----BEGIN[A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z ]*PRIVATE KEY-----|$)`, Redacted),
		// HTTP headers that carry credentials: the whole value goes, scheme included.
		newPattern([]string{"authorization", "api-key", "auth-token", "cookie"},
			`(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|cookie)(\s*:\s*)[^'"\r\n]+`, "${1}${2}"+Redacted),
		newPattern([]string{"bearer", "basic"}, `(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{8,}`, "${1}${2}"+Redacted),
		// A password in a URL: scheme://user:password@host.
		newPattern([]string{"://"}, `(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@'"]*):[^@\s/'"]+@`, "${1}:"+Redacted+"@"),
		// key=value in a query string (an Azure SAS's sig=, an access_token=): up to the next &.
		newPattern([]string{"sig=", "token=", "key=", "code=", "password=", "secret="},
			`(?i)([?&](?:sig|token|access_token|refresh_token|id_token|api_key|apikey|key|code|password|secret|client_secret)=)[^&\s'"#]+`,
			"${1}"+Redacted),
		// key=value in a connection string (Password=…;), up to the next ;.
		newPattern([]string{"pass", "pwd", "secret", "token", "key", "sharedaccess"},
			`(?i)(^|[\s;'"(,{-])((?:password|passwd|pwd|pass|secret|client_secret|token|access_token|api_key|apikey|accountkey|sharedaccesskey|sharedaccesssignature|_authtoken)\s*=\s*)[^;\s'"]+`,
			"${1}${2}"+Redacted),
		// AWS's configuration keys, written as a key and a value.
		newPattern([]string{"aws_secret_access_key", "aws_session_token"},
			`(?i)\b(aws_secret_access_key|aws_session_token)(\s+|\s*[=:]\s*)`+value, "${1}${2}"+quoted),
		// Environment variables named for a secret: GH_TOKEN=…, export AWS_SECRET_ACCESS_KEY=…,
		// $env:ARM_CLIENT_SECRET = '…'.
		newPattern([]string{"password", "passwd", "secret", "token", "key", "credential"},
			`(?i)\b([A-Z0-9_]*(?:`+secretWords+`)[A-Z0-9_]*)(\s*=\s*)`+value,
			"${1}${2}"+quoted),
		// Secret flags written out, for lines the shell reader cannot read (cut short, or nested in
		// quotes it does not follow): --password X, --password=X, -Token X.
		lazyPattern([]string{"pass", "secret", "token", "key"},
			func() string { return `(?i)(^|[\s'"(])(--?(?:` + anyFlagNames() + `))(\s+|=)` + value },
			"${1}${2}${3}"+quoted),
	}
})

// Redactor blanks secrets in the texts of a logged decision.
type Redactor struct {
	secrets []Secret
}

// NewRedactor returns a redactor that knows the given per-command secret flags on top of its
// own.
func NewRedactor(secrets []Secret) *Redactor { return &Redactor{secrets: secrets} }

// Entry makes an entry fit to keep, in place: its texts are shortened to what a line may hold
// (see clip) and their secrets blanked. Secret values found by reading the command (and the rewrite) in its shell are blanked
// wherever they appear, since the reason and the rewrite repeat the command; then every text
// is searched for the shapes of secrets.
func (r *Redactor) Entry(e *Entry) {
	e.Command, e.Rewrite, e.Reason = clip(e.Command, maxText), clip(e.Rewrite, maxText), clip(e.Reason, maxText)
	if len(e.Paths) > maxPaths {
		e.Paths = e.Paths[:maxPaths]
	}
	var found []pair
	if e.Shell != "" {
		found = r.values(e.Command, e.Shell, found)
		found = r.values(e.Rewrite, e.Shell, found)
	}
	// Longest first, so that a secret that contains another is blanked whole.
	slices.SortFunc(found, func(a, b pair) int { return len(b.old) - len(a.old) })
	texts := []*string{&e.Command, &e.Rewrite, &e.Reason}
	for i := range e.Notes {
		texts = append(texts, &e.Notes[i])
	}
	for _, t := range texts {
		*t = text(replaceValues(*t, found))
	}
}

// text blanks the shapes of secrets in s: tokens, keys, credential headers, passwords in URLs
// and connection strings, secret flags and variables.
func text(s string) string {
	if s == "" {
		return s
	}
	lower := strings.ToLower(s)
	for _, p := range patterns() {
		if !slices.ContainsFunc(p.hints, func(h string) bool { return strings.Contains(lower, h) }) {
			continue
		}
		s = p.re().ReplaceAllString(s, p.repl)
		lower = strings.ToLower(s)
	}
	return s
}

// pair is a text to blank and what replaces it: a secret value and Redacted, or a short flag
// with its value attached and the flag followed by Redacted.
type pair struct{ old, new string }

// values adds the secret values in line, read as the given shell: the values of secret flags
// and of variables named for secrets that the line sets.
func (r *Redactor) values(line, sh string, found []pair) []pair {
	if !r.mayHold(line) {
		return found
	}
	calls, err := shell.For(sh).Parse(line)
	if err != nil {
		return found // the shapes in Text still apply
	}
	add := func(old, new string) {
		if old != "" && !slices.Contains(found, pair{old, new}) {
			found = append(found, pair{old, new})
		}
	}
	for _, c := range calls {
		for _, a := range c.Env {
			if secretName().MatchString(a.Name) && a.Value.Literal {
				add(a.Value.Value, Redacted)
			}
		}
		flags, attached := anyFlags, []string(nil)
		for _, s := range r.secrets {
			if slices.Contains(s.Commands, strings.ToLower(c.Name)) {
				flags = append(slices.Clip(flags), s.Flags...)
				attached = append(attached, s.Attached...)
			}
		}
		for i, w := range c.Args {
			if !w.Literal || !strings.HasPrefix(w.Value, "-") {
				continue
			}
			name, v, eq := strings.Cut(w.Value, "=")
			switch {
			case isFlag(name, flags) && eq:
				add(v, Redacted)
			case isFlag(name, flags) && i+1 < len(c.Args) && c.Args[i+1].Literal:
				add(c.Args[i+1].Value, Redacted)
			default:
				for _, a := range attached {
					if len(w.Value) > len(a) && strings.HasPrefix(w.Value, a) {
						add(w.Value, a+Redacted)
					}
				}
			}
		}
	}
	return found
}

// mayHold reports whether line may set a secret flag or variable, so that the usual line is not
// read again: it names a word of a secret flag or variable, or one of a command's secret flags
// and that command.
func (r *Redactor) mayHold(line string) bool {
	lower := strings.ToLower(line)
	for _, w := range []string{"pass", "secret", "token", "key", "credential"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	for _, s := range r.secrets {
		has := func(w string) bool { return strings.Contains(line, w) }
		if (slices.ContainsFunc(s.Flags, has) || slices.ContainsFunc(s.Attached, has)) && slices.ContainsFunc(s.Commands, func(c string) bool { return strings.Contains(lower, c) }) {
			return true
		}
	}
	return false
}

// isFlag reports whether name is one of flags: a short flag exactly (-p is not -P), a longer
// one without regard to case (PowerShell's -Password is -password).
func isFlag(name string, flags []string) bool {
	for _, f := range flags {
		if len(f) == 2 && name == f || len(f) > 2 && strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

// replaceValues blanks each value wherever it appears in s. A value shorter than four bytes is
// blanked only where it stands alone (between characters that are not letters or digits), so
// that a password "ab" does not blank every "ab" in a reason.
func replaceValues(s string, values []pair) string {
	for _, p := range values {
		v := p.old
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, p.new)
			continue
		}
		var b strings.Builder
		last := 0
		for i := 0; ; {
			j := strings.Index(s[i:], v)
			if j < 0 {
				break
			}
			at, end := i+j, i+j+len(v)
			if (at == 0 || !alnum(s[at-1])) && (end == len(s) || !alnum(s[end])) {
				b.WriteString(s[last:at])
				b.WriteString(p.new)
				last, i = end, end
			} else {
				i = at + 1
			}
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return s
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
