package registry

import (
	"slices"
)

// forget drops versions: ones their source no longer has (their directory was deleted),
// so that listings agree with the 404 their reload answers, or ones an operator
// unloads; why says which, for the log. A pipeline that served one retires once its
// requests have finished; the channels returned close when each has. The model keeps
// rule when it still fits the versions left, else routes to the latest; a model left
// without versions is dropped.
func (r *Registry) forget(name string, rule Rule, why string, vers ...string) []<-chan struct{} {
	r.mu.RLock()
	m := r.models[name]
	var vs []*version
	if m != nil {
		for _, ver := range vers {
			if v := m.versions[ver]; v != nil {
				vs = append(vs, v)
			}
		}
	}
	r.mu.RUnlock()
	var retired []<-chan struct{}
	for _, v := range vs {
		v.reload.Lock() // no load of it is under way, and none starts: put sees gone
		r.mu.Lock()
		old := v.cur
		v.cur, v.gone = nil, true
		if m := r.models[name]; m != nil && m.versions[v.version] == v {
			delete(m.versions, v.version)
			v.obs.Forgotten() // under the lock, before a version of the same name is observed anew
			m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == v.version })
			switch {
			case len(m.order) == 0:
				delete(r.models, name)
			case rule.Validate(m.order) == nil:
				m.rule = rule
			case m.rule.Validate(m.order) != nil:
				m.rule = Rule{Strategy: Latest}
			}
		}
		n := r.loadedLocked()
		r.mu.Unlock()
		v.reload.Unlock()
		r.obs.Loaded(n)
		if old != nil {
			retired = append(retired, r.retire(old))
		}
		r.log.Info("model version dropped: "+why, "model", name, "version", v.version)
	}
	return retired
}

// versionsOf lists the versions the registry holds of name.
func (r *Registry) versionsOf(name string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if m := r.models[name]; m != nil {
		return slices.Clone(m.order)
	}
	return nil
}
