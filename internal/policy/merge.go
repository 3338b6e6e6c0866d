package policy

import "github.com/ctxguard/ctxguard/rules"

// merge adds the next, more specific layer src to dst. Nothing src says can widen dst: allow
// lists are kept side by side for the engine to intersect, and each setting becomes the stricter
// of the two, keeping the earlier source when they are equal (the layer that imposed it first).
// Only defaults go in front, since the most specific layer knows best where to bind. A setting
// an earlier layer leaves out imposes nothing: a later layer may set it to any value, allow
// included, and cannot undo only what an earlier layer wrote.
func merge(dst, src *Policy) {
	dst.Files = append(dst.Files, src.Files...)
	if dst.Contexts == nil {
		dst.Contexts = map[string]*rules.ContextPolicy{}
	}
	for name, s := range src.Contexts {
		d := dst.Contexts[name]
		if d == nil {
			d = &rules.ContextPolicy{}
			dst.Contexts[name] = d
		}
		d.Allow = append(d.Allow, s.Allow...)
		d.Defaults = append(append([]rules.Valued(nil), s.Defaults...), d.Defaults...)
		d.Unbound, d.UnboundSrc = stricter(d.Unbound, d.UnboundSrc, s.Unbound, s.UnboundSrc)
	}
	dst.Destructive, dst.DestructiveSrc = stricter(dst.Destructive, dst.DestructiveSrc, src.Destructive, src.DestructiveSrc)
	dst.RewriteMode, dst.RewriteModeSrc = stricter(dst.RewriteMode, dst.RewriteModeSrc, src.RewriteMode, src.RewriteModeSrc)
	dst.Rules = append(dst.Rules, src.Rules...)
	dst.Notes = append(dst.Notes, src.Notes...)
	if src.Forget && !dst.Forget {
		dst.Forget, dst.ForgetSrc = true, src.ForgetSrc
	}
	mergeAudit(&dst.Audit, src.Audit)
}

// stricter picks the stricter setting with its source, as in the Setting order.
func stricter(a rules.Setting, aSrc rules.Source, b rules.Setting, bSrc rules.Source) (rules.Setting, rules.Source) {
	if rules.Stricter(a, b) != a {
		return b, bSrc
	}
	return a, aSrc
}
