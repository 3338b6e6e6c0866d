package rules

import "github.com/ctxguard/ctxguard/spec"

// group names the shared state a provider's context lives in: its own name, or that of the
// provider whose state it reads (Spec.Shares: helm reads kubectl's kubeconfig). Switches are
// carried in the line and remembered for the session by group, so that `kubectl config
// use-context dev` binds a later helm call of the same session to dev.
func group(p *spec.Spec) string {
	if p.Shares != "" {
		return p.Shares
	}
	return p.Name
}

// policyFor is the policy's section for the provider: its own, else that of the provider whose
// state it shares, so that contexts.kubectl also guards helm and oc, which act in the same
// kubeconfig contexts.
func (e *engine) policyFor(p *spec.Spec) *ContextPolicy {
	if cp, ok := e.in.Policy.Contexts[p.Name]; ok {
		return cp
	}
	return e.in.Policy.Contexts[group(p)]
}
