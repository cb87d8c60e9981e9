package registry

import (
	"context"
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/pipeline"
)

// Signature is what a tensor call (Infer) to name and ver sends and gets, batch
// dimension first: ver's tensors, or for ver "" those of the version such calls are
// routed to, the rule's main (tensorVersionLocked keeps unversioned tensor calls to
// its signature), so that one signature holds for every call a graph makes. A graph
// is checked against it when it loads; a version that is not serving, or is a graph
// itself, is an error.
func (r *Registry) Signature(name, ver string) (inputs, outputs []pipeline.Tensor, err error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.models[name]
	if m == nil {
		return nil, nil, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
	}
	if ver == "" {
		ver = m.rule.Main(m.order)
	}
	v := m.versions[ver]
	if v == nil {
		return nil, nil, fmt.Errorf("%w: model %q has no version %q (it has %v)", ErrVersionNotFound, name, ver, m.order)
	}
	if len(v.calls) > 0 {
		return nil, nil, fmt.Errorf("%s %s is a graph: a graph's steps call models, not other graphs", name, ver)
	}
	if err := v.servable(); err != nil {
		return nil, nil, err
	}
	info := v.cur.p.Info
	return slices.Clone(info.TensorInputs), slices.Clone(info.TensorOutputs), nil
}

// changed re-checks every graph version that calls model name, after name's versions
// changed (a load, a reload, a version dropped): a graph typed against what its
// members were is loaded afresh against what they are now. It returns once every
// such graph serves again or has failed with its reason. except, when not nil, is
// the version whose change this is, whose load lock the caller may hold: a graph
// calling other versions of its own model is not re-checked by its own load.
func (r *Registry) changed(ctx context.Context, name string, except *version) {
	r.mu.RLock()
	var graphs []*version
	for _, m := range r.models {
		for _, ver := range m.order {
			v := m.versions[ver]
			// A graph still in its first load checks its members itself.
			if v != except && slices.Contains(v.calls, name) && !(v.cur == nil && v.status == StatusLoading) {
				graphs = append(graphs, v)
			}
		}
	}
	r.mu.RUnlock()
	for _, v := range graphs {
		r.recheck(context.WithoutCancel(ctx), v)
	}
}

// recheck loads graph version v again. Unlike a reload, a load that fails does not
// leave the old pipeline serving: its members are no longer what it was typed
// against, so the version fails with the reason, and serves again once a member's
// change makes it check.
func (r *Registry) recheck(ctx context.Context, v *version) {
	v.reload.Lock()
	defer v.reload.Unlock()
	r.mu.RLock()
	l, gone := v.loader, v.gone
	r.mu.RUnlock()
	if gone || l == nil {
		return
	}
	inst, err := r.build(ctx, v, l)
	r.mu.Lock()
	if v.gone {
		r.mu.Unlock()
		if inst != nil {
			r.retire(inst)
		}
		return
	}
	old := v.cur
	if err != nil {
		v.cur, v.status, v.err, v.loadErr = nil, StatusFailed, err, nil
		v.obs.LoadFailed()
		v.obs.State(StatusFailed)
	} else {
		v.cur, v.status, v.err, v.loadErr = inst, StatusReady, nil, nil
		v.obs.State(StatusReady)
	}
	n := r.loadedLocked()
	r.mu.Unlock()
	r.obs.Loaded(n)
	if old != nil {
		r.retire(old)
	}
	if err != nil {
		r.log.Error("graph failed: a member changed and it no longer checks", "model", v.name, "version", v.version, "error", err)
	} else {
		r.log.Info("graph checked again after a member changed", "model", v.name, "version", v.version)
	}
}
