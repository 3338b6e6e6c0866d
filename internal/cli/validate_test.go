package cli

import (
	"errors"
	"testing"

	"github.com/ctxguard/ctxguard/internal/policy"
	"github.com/ctxguard/ctxguard/rules"
)

// TestMachineProblems: a fact of the machine that a condition needs and that cannot be read is a
// problem at the rule's line, as it is a deny in the hook; a policy that needs none reads none.
func TestMachineProblems(t *testing.T) {
	p, err := policy.Parse([]byte("rules:\n  - match: az group create\n    decision: deny\n  - match: az vm create\n    unless: {groups: [deployers]}\n    decision: ask\n"),
		"/r/.ctxguard.yaml", policy.Project, []string{"az"})
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	broken := rules.Facts{Groups: func() ([]string, error) { reads++; return nil, errors.New("open /etc/group: permission denied") }}
	errs := machineProblems(p, broken)
	if len(errs) != 1 || errs[0].Error() != "/r/.ctxguard.yaml:4: rule user.project.2: cannot read the user's groups (open /etc/group: permission denied): the hook denies the calls this rule is about" {
		t.Errorf("problems %v", errs)
	}
	fine := rules.Facts{Groups: func() ([]string, error) { return []string{"staff"}, nil }}
	if errs := machineProblems(p, fine); len(errs) != 0 {
		t.Errorf("problems %v with a group database that reads", errs)
	}
	p.Rules = p.Rules[:1]
	reads = 0
	if errs := machineProblems(p, broken); len(errs) != 0 || reads != 0 {
		t.Errorf("a policy without groups read them %d times: %v", reads, errs)
	}
}
