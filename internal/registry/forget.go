package registry

import (
	"context"
	"slices"
)

// forget drops versions: ones their source no longer has (their directory was deleted),
// so that listings agree with the 404 their reload answers, or ones an operator
// unloads; why says which, for the log. They go together, in one swap, so that the
// model never routes with some of them gone and the others still there (a canary
// alone taking every request that names no version). A pipeline that served one
// retires once its requests have finished; the channels returned close when each has.
// The model keeps rule when it still fits the versions left, else routes to the
// latest; a model left without versions is dropped. The caller holds the model's
// control lock.
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
	if len(vs) == 0 {
		return nil
	}
	// No load of them is under way, and none starts: put sees gone. Only a load at
	// start takes a version's lock without the model's, and it takes one at a time.
	for _, v := range vs {
		v.reload.Lock()
	}
	r.mu.Lock()
	var olds []*loaded
	for _, v := range vs {
		if v.cur != nil {
			olds = append(olds, v.cur)
		}
		v.cur, v.gone = nil, true
		if m := r.models[name]; m != nil && m.versions[v.version] == v {
			delete(m.versions, v.version)
			v.obs.Forgotten() // under the lock, before a version of the same name is observed anew
			m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == v.version })
		}
	}
	if m := r.models[name]; m != nil {
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
	for _, v := range vs {
		v.reload.Unlock()
	}
	r.obs.Loaded(n)
	retired := make([]<-chan struct{}, 0, len(olds))
	for _, old := range olds {
		retired = append(retired, r.retire(old))
	}
	for _, v := range vs {
		r.log.Info("model version dropped: "+why, "model", name, "version", v.version)
	}
	r.changed(context.Background(), name, nil)
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
