package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/rules"
)

func redactor(t testing.TB) *Redactor {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "builtin", "secrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSecrets(data, "builtin:secrets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return NewRedactor(s)
}

// Tokens shaped like the real ones (made up; the AWS pair is AWS's documented example).
const (
	ghp    = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345a"
	gho    = "gho_16C7e42F292c6912E7710c838347Ae178B4a"
	ghs    = "ghs_Zk3fLmQ9pT2vX8wB5nC7dH1jK4sA6eR0yU3i"
	pat    = "github_pat_11ABCDEFG0abcdefghij12_KLMNOPQRSTuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab"
	sasSig = "Zx%2B3k9Q0aBcDeFgHiJkLmNoPqRsTuVwXyZ012345%3D"
	jwt    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	akid   = "AKIAIOSFODNN7EXAMPLE"
	awsKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	accKey = "q83vEZ8pHv0FkU5Jzr1dW6cL0mR7sT9uXyA2bC4dE6fG8hI0jK2lM4nO6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hI=="
)

func TestRedact(t *testing.T) {
	r := redactor(t)
	for _, tt := range []struct {
		name, shell, in, want string
		secrets               []string // must be gone
	}{
		{"secret flags in a line the reader cannot read", "bash",
			`keytool -storepass s3cr3tStore -keypass s3cr3tKey "unclosed; az login --client-secret=s3cr3tClient`,
			`keytool -storepass [REDACTED] -keypass [REDACTED] "unclosed; az login --client-secret=[REDACTED]`, []string{"s3cr3t"}},
		{"github token in a header", "bash",
			`curl -H "Authorization: token ` + ghp + `" https://api.github.com/user`,
			`curl -H "Authorization: [REDACTED]" https://api.github.com/user`, []string{ghp}},
		{"github token in a variable", "bash",
			`GH_TOKEN=` + gho + ` gh pr list`,
			`GH_TOKEN=[REDACTED] gh pr list`, []string{gho}},
		{"github token in a clone URL", "bash",
			`git clone https://x-access-token:` + ghs + `@github.com/o/r.git`,
			`git clone https://x-access-token:[REDACTED]@github.com/o/r.git`, []string{ghs}},
		{"fine-grained token", "bash",
			`echo ` + pat + ` | gh auth login --with-token`,
			`echo github_pat_[REDACTED] | gh auth login --with-token`, []string{pat[11:]}},
		{"azure SAS in a URL", "bash",
			`curl "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=` + sasSig + `"`,
			`curl "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=[REDACTED]"`, []string{sasSig}},
		{"azure SAS token flag", "bash",
			`az storage blob upload --account-name acct -c c -f f -n f --sas-token "sv=2022-11-02&sp=rw&sig=` + sasSig + `"`,
			`az storage blob upload --account-name acct -c c -f f -n f --sas-token "[REDACTED]"`, []string{sasSig}},
		{"azure storage connection string", "bash",
			`az storage container list --connection-string "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=` + accKey + `;EndpointSuffix=core.windows.net"`,
			`az storage container list --connection-string "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"`, []string{accKey}},
		{"bearer token", "bash",
			`curl -sS -H 'Authorization: Bearer ` + jwt + `' https://example.test/api`,
			`curl -sS -H 'Authorization: [REDACTED]' https://example.test/api`, []string{jwt, "dozjgNryP4J3jVmNHl0w5N"}},
		{"bearer without the header name", "bash",
			`http GET example.test/api "Bearer abcdEFGH1234ijkl"`,
			`http GET example.test/api "Bearer [REDACTED]"`, []string{"abcdEFGH1234ijkl"}},
		{"basic auth header", "bash",
			`wget --header='Authorization: Basic dXNlcjpodW50ZXIy' https://example.test/`,
			`wget --header='Authorization: [REDACTED]' https://example.test/`, []string{"dXNlcjpodW50ZXIy"}},
		{"jwt as a flag value", "bash",
			`kubectl --token=` + jwt + ` get pods`,
			`kubectl --token=[REDACTED] get pods`, []string{jwt}},
		{"password in a SQL Server connection string", "bash",
			`dotnet ef database update --connection "Server=tcp:x.database.windows.net,1433;Database=d;User ID=app;Password=Pa55w0rd!;Encrypt=True"`,
			`dotnet ef database update --connection "Server=tcp:x.database.windows.net,1433;Database=d;User ID=app;Password=[REDACTED];Encrypt=True"`, []string{"Pa55w0rd!"}},
		{"pwd in a connection string", "bash",
			`sqlcmd -S srv -d db -G "Uid=sa;Pwd=Tr0ub4dor&3"`,
			`sqlcmd -S srv -d db -G "Uid=sa;Pwd=[REDACTED]"`, []string{"Tr0ub4dor"}},
		{"password in a postgres URL", "bash",
			`psql "postgres://app:hunter22@db.internal:5432/app?sslmode=require" -c 'select 1'`,
			`psql "postgres://app:[REDACTED]@db.internal:5432/app?sslmode=require" -c 'select 1'`, []string{"hunter22"}},
		{"--password X", "bash",
			`vault login -method=userpass username=me --password 'c0rrect horse'`,
			`vault login -method=userpass username=me --password '[REDACTED]'`, []string{"c0rrect horse", "horse"}},
		{"--password=X", "bash",
			`wget --user=me --password=Sup3rS3cret https://example.test/f`,
			`wget --user=me --password=[REDACTED] https://example.test/f`, []string{"Sup3rS3cret"}},
		{"-p X where it is a password", "bash",
			`az login --service-principal -u 11111111-2222-3333-4444-555555555555 -p 'Xq8~s3cr3t.v4lue' --tenant t`,
			`az login --service-principal -u 11111111-2222-3333-4444-555555555555 -p '[REDACTED]' --tenant t`, []string{"Xq8~s3cr3t.v4lue"}},
		{"-pSECRET", "bash",
			`mysql -u root -pS3cretPw shop -e 'show tables'`,
			`mysql -u root -p[REDACTED] shop -e 'show tables'`, []string{"S3cretPw"}},
		{"docker login -p behind sudo", "bash",
			`sudo docker login -u me -p dckr_pat_2bFg7Kq registry.example.test`,
			`sudo docker login -u me -p [REDACTED] registry.example.test`, []string{"dckr_pat_2bFg7Kq"}},
		{"-p that is not a password stays", "bash",
			`mkdir -p build/out && kubectl get pods -n team-a`,
			`mkdir -p build/out && kubectl get pods -n team-a`, nil},
		{"a short password is blanked where it stands alone", "bash",
			`mysql -pab -e 'select tab'`,
			`mysql -p[REDACTED] -e 'select tab'`, []string{"-pab"}},
		{"aws keys", "bash",
			`AWS_ACCESS_KEY_ID=` + akid + ` AWS_SECRET_ACCESS_KEY=` + awsKey + ` aws s3 ls`,
			`AWS_ACCESS_KEY_ID=[REDACTED] AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls`, []string{akid, awsKey}},
		{"aws key in a config command", "bash",
			`aws configure set aws_secret_access_key ` + awsKey,
			`aws configure set aws_secret_access_key ` + awsKey[:0] + `[REDACTED]`, []string{awsKey}},
		{"nested in bash -c", "bash",
			`bash -c "mysql -u root -pN3sted0ne db"`,
			`bash -c "mysql -u root -p[REDACTED] db"`, []string{"N3sted0ne"}},
		{"exported and used later", "bash",
			`export ARM_CLIENT_SECRET='s~3cr3t.V4lue' && terraform plan`,
			`export ARM_CLIENT_SECRET='[REDACTED]' && terraform plan`, []string{"s~3cr3t.V4lue"}},
		{"powershell variable and parameter", "powershell",
			`$env:ARM_CLIENT_SECRET = 'Ps~s3cr3t'; Connect-Thing -Password 'P4ssw0rd!' -Name x`,
			`$env:ARM_CLIENT_SECRET = '[REDACTED]'; Connect-Thing -Password '[REDACTED]' -Name x`, []string{"Ps~s3cr3t", "P4ssw0rd!"}},
		{"private key", "bash",
			"printf '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n' > k",
			"printf '[REDACTED]\n' > k", []string{"b3BlbnNzaC1rZXktdjEAAAAA"}},
		{"a line that does not parse still loses its secrets", "bash",
			`curl -u me --password 'unterminated s3cret`,
			`curl -u me --password '[REDACTED]`, []string{"s3cret"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := Entry{Shell: tt.shell, Command: tt.in}
			r.Entry(&e)
			if e.Command != tt.want {
				t.Errorf("redacted\n  %s\nto\n  %s\nwant\n  %s", tt.in, e.Command, tt.want)
			}
			for _, s := range tt.secrets {
				if strings.Contains(e.Command, s) {
					t.Errorf("%q is still there: %s", s, e.Command)
				}
			}
		})
	}
}

// TestRedactEverywhere: a secret in the command is blanked in the rewrite, the reason and the
// notes too, which repeat the command.
func TestRedactEverywhere(t *testing.T) {
	r := redactor(t)
	const secret = "Xq8~s3cr3t.v4lue"
	line := "az login --service-principal -u app -p " + secret + " --tenant t && az group list"
	e := Entry{
		Shell:   rules.ShellBash,
		Command: line,
		Rewrite: line + " --subscription Contoso-Dev",
		Reason:  "[ctxguard/az.bind] bound to the subscription Contoso-Dev: " + line + " --subscription Contoso-Dev",
		Notes:   []string{"seen in `" + line + "`", "token " + ghp},
	}
	r.Entry(&e)
	for name, s := range map[string]string{"command": e.Command, "rewrite": e.Rewrite, "reason": e.Reason, "note": e.Notes[0], "note 2": e.Notes[1]} {
		if strings.Contains(s, secret) || strings.Contains(s, ghp) {
			t.Errorf("%s keeps a secret: %s", name, s)
		}
		if !strings.Contains(s, Redacted) {
			t.Errorf("%s: nothing redacted: %s", name, s)
		}
	}
	if want := "az login --service-principal -u app -p [REDACTED] --tenant t && az group list --subscription Contoso-Dev"; e.Rewrite != want {
		t.Errorf("rewrite = %s, want %s", e.Rewrite, want)
	}
}

// TestClip: a long command is cut at a blank, so that no token is cut short of its shape.
func TestClip(t *testing.T) {
	r := redactor(t)
	pad := strings.Repeat("x ", (maxText-10)/2)
	e := Entry{Shell: rules.ShellBash, Command: "echo " + pad + "a " + ghp + " tail"}
	r.Entry(&e)
	if len(e.Command) > maxText+64 {
		t.Errorf("clipped to %d bytes, want about %d", len(e.Command), maxText)
	}
	if strings.Contains(e.Command, "ghp_R4nd") || !strings.Contains(e.Command, "bytes not logged]") {
		t.Errorf("clip end: %q", e.Command[len(e.Command)-80:])
	}
}

func TestParseSecrets(t *testing.T) {
	for bad, want := range map[string]string{
		"secrets:\n  - commands: [x]\n":                         "s.yaml:2:5: a secret needs commands, and flags or attached",
		"secrets:\n  - flags: [-p]\n":                           "s.yaml:2:5: a secret needs commands, and flags or attached",
		"secrets:\n  - commands: [x]\n    attached: [--pass]\n": `s.yaml:3:16: attached "--pass" is not a short flag`,
		"secrets:\n  - commands: [x]\n    flag: [-p]\n":         `s.yaml:3:5: unknown key "flag"`,
	} {
		_, err := ParseSecrets([]byte(bad), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSecrets(%q) = %v, want %s", bad, err, want)
		}
	}
}

func BenchmarkRedact(b *testing.B) {
	r := redactor(b)
	for _, bc := range []struct{ name, line string }{
		{"plain", "az group list -o table --subscription 11111111-1111-4111-8111-111111111111"},
		{"secrets", `GH_TOKEN=` + gho + ` curl -H "Authorization: Bearer ` + jwt + `" https://x.test/?sig=abc && mysql -pS3cret db`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				e := Entry{Shell: rules.ShellBash, Command: bc.line, Rewrite: bc.line, Reason: "[ctxguard/x] " + bc.line}
				r.Entry(&e)
			}
		})
	}
}
