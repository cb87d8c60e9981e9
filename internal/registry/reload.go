package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// goneFromSource is why forget drops a version its source no longer has.
const goneFromSource = "its source no longer has it"

// Reloaded describes the pipeline a reload put in place.
type Reloaded struct {
	Name, Version string
	LoadedAt      time.Time
	LoadDuration  time.Duration
}

// Reload re-reads one version from its source, builds a new pipeline beside the old one
// and swaps it in. Requests already running finish on the old pipeline, which is closed
// after the last of them. When the build fails the old pipeline keeps serving and the
// error wraps ErrReloadFailed. A version added to the source of a model the registry
// holds is loaded for the first time this way; a version of a model it does not hold
// (added to the source since start, or unloaded) loads the whole model, as LoadModel
// does, so that the model's routing rule finds every version it names rather than
// sending everything to the one reloaded. Like LoadModel, it runs alone among the
// model's load, unload and reload calls.
func (r *Registry) Reload(ctx context.Context, name, ver string) (Reloaded, error) {
	unlock, err := r.control.lock(ctx, name)
	if err != nil {
		return Reloaded{}, err
	}
	defer unlock()
	return r.reload(ctx, name, ver)
}

// reload is Reload under the model's control lock.
func (r *Registry) reload(ctx context.Context, name, ver string) (Reloaded, error) {
	spec, src, err := r.specFor(ctx, name)
	if errors.Is(err, ErrModelNotFound) {
		r.forget(name, Rule{}, goneFromSource, r.versionsOf(name)...)
	}
	if err != nil {
		return Reloaded{}, err
	}
	idx := slices.IndexFunc(spec.Versions, func(vs VersionSpec) bool { return vs.Version == ver })
	if idx < 0 {
		r.forget(name, spec.Rule, goneFromSource, ver)
		return Reloaded{}, fmt.Errorf("%w: model %q has no version %q", ErrVersionNotFound, name, ver)
	}
	if len(r.versionsOf(name)) == 0 {
		return r.reloadWhole(ctx, name, ver)
	}
	vs := spec.Versions[idx]
	v := r.versionFor(spec, src, ver)
	r.mu.Lock()
	r.noteRefusedLocked(spec)
	r.mu.Unlock()
	l, err := vs.Loader, specErr(vs)
	if err == nil {
		var inst *loaded
		inst, err = r.put(ctx, v, l, false, func() {
			if m := r.models[name]; spec.Rule.Validate(m.order) == nil {
				m.rule = spec.Rule // a re-read rule applies only when it fits the versions known
			}
		})
		if err == nil {
			r.obs.Reloaded(true)
			r.log.Info("model reloaded", "model", name, "version", ver, "duration", inst.loadDur)
			return Reloaded{Name: name, Version: ver, LoadedAt: inst.loadedAt, LoadDuration: inst.loadDur}, nil
		}
	} else {
		r.mu.Lock()
		if v.cur == nil { // nothing serves it: keep the reason visible
			v.status, v.err = StatusFailed, err
			v.obs.State(StatusFailed)
		} else {
			v.loadErr = err
		}
		r.mu.Unlock()
		v.obs.LoadFailed()
	}
	r.obs.Reloaded(false)
	r.log.Error("reload failed; the old pipeline keeps serving", "model", name, "version", ver, "error", err)
	return Reloaded{}, fmt.Errorf("%w: %s %s: %w", ErrReloadFailed, name, ver, err)
}

// reloadWhole is Reload of a version of a model the registry does not hold: the whole
// model loads, and the answer is ver's.
func (r *Registry) reloadWhole(ctx context.Context, name, ver string) (Reloaded, error) {
	err := r.loadModel(ctx, name)
	r.mu.RLock()
	defer r.mu.RUnlock()
	if m := r.models[name]; m != nil {
		if v := m.versions[ver]; v != nil && v.cur != nil {
			return Reloaded{Name: name, Version: ver, LoadedAt: v.cur.loadedAt, LoadDuration: v.cur.loadDur}, nil
		}
		if v := m.versions[ver]; v != nil && v.err != nil {
			return Reloaded{}, fmt.Errorf("%w: %s %s: %w", ErrReloadFailed, name, ver, v.err)
		}
	}
	if err == nil {
		err = fmt.Errorf("%w: %s %s did not load", ErrReloadFailed, name, ver)
	}
	return Reloaded{}, err
}

// specFor asks the model's source, or for a model not seen yet every source, for the
// current spec of name.
func (r *Registry) specFor(ctx context.Context, name string) (ModelSpec, Source, error) {
	r.mu.RLock()
	m := r.models[name]
	r.mu.RUnlock()
	sources := r.opts.Sources
	if m != nil {
		sources = []Source{m.source}
	}
	for _, src := range sources {
		spec, err := src.Model(ctx, name)
		if errors.Is(err, ErrModelNotFound) {
			continue
		}
		if err != nil {
			return ModelSpec{}, nil, fmt.Errorf("%w: reading model %q: %v", ErrReloadFailed, name, err)
		}
		return spec, src, nil
	}
	return ModelSpec{}, nil, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
}

// versionFor returns the registry's entry for a version, adding the model or version
// when the source has gained it since start.
func (r *Registry) versionFor(spec ModelSpec, src Source, ver string) *version {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.models[spec.Name]
	if m == nil {
		m = &model{name: spec.Name, source: src, versions: map[string]*version{}}
		r.models[spec.Name] = m
		delete(r.unloaded, spec.Name) // loading again: its jobs run once it has
	}
	v := m.versions[ver]
	if v == nil {
		v = &version{name: spec.Name, version: ver, status: StatusLoading}
		r.observe(v)
		m.versions[ver] = v
		m.order = append(m.order, ver)
		slices.SortFunc(m.order, compareNatural)
	}
	if i := slices.IndexFunc(spec.Versions, func(vs VersionSpec) bool { return vs.Version == ver }); i >= 0 {
		v.calls = spec.Versions[i].Calls
	}
	return v
}
