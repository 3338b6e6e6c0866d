package shell

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxguard/ctxguard/rules"
)

func benchParse(b *testing.B, line string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := Parse(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse1Call(b *testing.B) {
	benchParse(b, `az group list --subscription 11111111-1111-1111-1111-111111111111 -o table`)
}

func BenchmarkParse1000Calls(b *testing.B) {
	benchParse(b, strings.Repeat(`kubectl get pods -n "ns" --context dev && `, 999)+`az group list`)
}

func BenchmarkParse1000CallsMixed(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 250; i++ {
		sb.WriteString(`export K=v; cd sub && sudo -E env X=1 az vm list | grep -v "$(echo x)" ; bash -c 'kubectl get pods' ; `)
	}
	sb.WriteString("true")
	benchParse(b, sb.String())
}

func BenchmarkRewrite(b *testing.B) {
	line := `cd infra && kubectl apply -f x.yaml && echo done # deploy`
	edit := []rules.Edit{{At: strings.Index(line, "x.yaml") + len("x.yaml"), Text: " --context dev"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Rewrite(line, edit); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRewriteCalls binds every call of a line of 1, 100 and 1000 calls, as the hook does:
// the line's calls are already parsed, and only the edited line is parsed again to verify it.
// The sizes show the cost, and the memory, growing linearly with the line.
func BenchmarkRewriteCalls(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		line := strings.Repeat("kubectl get pods -n team-a && ", n-1) + "kubectl get pods -n team-a"
		calls, err := Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		var edits []rules.Edit
		for _, c := range calls {
			edits = append(edits, rules.Edit{At: c.End, Text: " --context dev"})
		}
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RewriteCalls(line, calls, edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
