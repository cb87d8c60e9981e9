package registry

// fallbackLocked picks the version a request goes to when the rule chose skip, which
// has no pipeline: under a weighted rule another weighted version with a pipeline,
// drawn by the weights among those; under latest the highest version with one. A
// static rule names its version on purpose, and when no other version of the rule can
// serve the request goes to skip, whose error says why. Call it under r.mu and r.rndMu.
func (r *Registry) fallbackLocked(m *model, skip *version) string {
	servable := func(ver string) bool {
		v := m.versions[ver]
		return v != nil && v != skip && v.cur != nil
	}
	to := ""
	switch m.rule.Strategy {
	case Static:
	case Weighted:
		total := 0.0
		for _, ver := range m.order {
			if w := m.rule.Weights[ver]; w > 0 && servable(ver) {
				total += w
			}
		}
		x := r.rnd.Float64() * total
		for _, ver := range m.order {
			w := m.rule.Weights[ver]
			if w <= 0 || !servable(ver) {
				continue
			}
			to = ver
			if x < w {
				break
			}
			x -= w
		}
	default:
		for i := len(m.order) - 1; i >= 0; i-- {
			if servable(m.order[i]) {
				to = m.order[i]
				break
			}
		}
	}
	if to == "" {
		return skip.version
	}
	skip.obs.RoutedAway()
	return to
}
