package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSameCallsInBothDialects feeds the bash and the PowerShell reader the same lines (or, where
// the syntax differs, the PowerShell way to say the same thing) and requires the same calls:
// wrappers, nested shells and the environment are one table's and one resolver's, whichever
// reader meets them.
func TestSameCallsInBothDialects(t *testing.T) {
	enc := encodePS("kubectl delete ns prod; az group list")
	tests := []struct {
		bash, ps string // ps "" is the same line
		calls    int    // how many calls both must report
	}{
		// Wrappers.
		{bash: "sudo kubectl delete ns prod", calls: 2},
		{bash: "sudo -E -u root -- kubectl get pods", calls: 2},
		{bash: "sudo -l kubectl get pods", calls: 1},
		{bash: "doas kubectl get pods", calls: 2},
		{bash: "wsl kubectl delete ns prod", calls: 2},
		{bash: "wsl -d Ubuntu -e az group list", calls: 2},
		{bash: "wsl --shutdown", calls: 1},
		{bash: "env X=1 kubectl get pods", calls: 2},
		{bash: "env -i X=1 -- kubectl get pods", calls: 2},
		{bash: "env -C infra terraform plan", calls: 2},
		{bash: "nohup timeout 1m nice -n 5 kubectl get pods", calls: 4},
		{bash: "stdbuf -oL ionice -c3 kubectl get pods", calls: 3},
		{bash: "watch -n 5 kubectl get pods", calls: 2},
		{bash: "watch 'kubectl get pods | grep web'", calls: 3},
		{bash: "xargs -n1 kubectl delete pod", calls: 2},
		{bash: "find . -name '*.yaml' -exec kubectl apply -f '{}' ';'", calls: 2},
		{bash: "fd -e yaml -x kubectl apply -f", calls: 2},
		{bash: "parallel kubectl delete pod ::: a b", calls: 2},
		{bash: "flock /tmp/l kubectl get pods", calls: 2},
		{bash: "flock /tmp/l -c 'kubectl get pods'", calls: 2},
		{bash: "chroot /mnt kubectl get pods", calls: 2},
		{bash: "ssh -p 22 host kubectl get pods", calls: 2},
		{bash: "su -c 'kubectl get pods' root", calls: 2},
		{bash: "script -qc 'kubectl get pods' /dev/null", calls: 2},
		// Nested shells, each string read in its own language.
		{bash: "bash -c 'kubectl get pods && az group list'", calls: 3},
		{bash: "bash -lc 'kubectl delete ns prod'", calls: 2},
		{bash: "sh -c 'cd infra && terraform plan'", calls: 3},
		{bash: "sudo bash -c 'kubectl delete ns prod'", calls: 3},
		{bash: "pwsh -c 'az group list; kubectl get pods'", calls: 3},
		{bash: "pwsh -NoProfile -Command 'Set-Location infra; terraform plan'", calls: 3},
		{bash: "powershell kubectl delete ns prod", calls: 2},
		{bash: "pwsh -EncodedCommand " + enc, calls: 3},
		{bash: "pwsh -File deploy.ps1", calls: 1},
		{bash: "cmd /c 'az group list && kubectl get pods'", calls: 3},
		{bash: "echo 'az group list' | bash", calls: 3},
		{bash: "echo 'az group list' | sudo sh", calls: 4},
		// The environment and the directory.
		{bash: "export X=1; kubectl get pods", ps: "$env:X='1'; kubectl get pods", calls: 1},
		{bash: "export K=/k; sudo -E env A=2 kubectl get pods; sudo kubectl get ns", ps: "$env:K='/k'; sudo -E env A=2 kubectl get pods; sudo kubectl get ns", calls: 5},
		{bash: "export X=1; bash -c 'kubectl get pods'", ps: "$env:X='1'; bash -c 'kubectl get pods'", calls: 2},
		{bash: "export X=1; pwsh -c 'kubectl get pods'", ps: "$env:X='1'; pwsh -c 'kubectl get pods'", calls: 2},
		{bash: "cd infra && terraform plan", ps: "cd infra; terraform plan", calls: 2},
		{bash: "cd infra && bash -c 'cd prod && terraform plan'", ps: "cd infra; bash -c 'cd prod && terraform plan'", calls: 4},
		{bash: "cd infra && pwsh -c 'cd prod; terraform plan'", ps: "cd infra; pwsh -c 'cd prod; terraform plan'", calls: 4},
	}
	for _, tt := range tests {
		ps := tt.ps
		if ps == "" {
			ps = tt.bash
		}
		bc, err := Parse(tt.bash)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.bash, err)
			continue
		}
		pc, err := ParsePowerShell(ps)
		if err != nil {
			t.Errorf("ParsePowerShell(%q): %v", ps, err)
			continue
		}
		var b, p []string
		for _, c := range bc {
			b = append(b, psRender(c))
		}
		for _, c := range pc {
			p = append(p, psRender(c))
			checkOffsets(t, ps, c)
		}
		checkCalls(t, tt.bash, bc)
		if diff := cmp.Diff(b, p); diff != "" {
			t.Errorf("bash %q and PowerShell %q read differently (-bash +PowerShell):\n%s", tt.bash, ps, diff)
		}
		if len(b) != tt.calls {
			t.Errorf("bash %q: %d calls %q, want %d", tt.bash, len(b), b, tt.calls)
		}
	}
}
