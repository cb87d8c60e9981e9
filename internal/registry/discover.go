package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Discover asks every source for its models and lists their versions as loading. It
// reads only configuration, so it is quick; an invalid routing rule or a model name
// offered by two sources is an error.
func (r *Registry) Discover(ctx context.Context) error {
	models := map[string]*model{}
	for _, src := range r.opts.Sources {
		specs, err := src.Models(ctx)
		if err != nil {
			return fmt.Errorf("discovering models: %w", err)
		}
		for _, spec := range specs {
			if _, dup := models[spec.Name]; dup {
				return fmt.Errorf("model %q is offered by two sources", spec.Name)
			}
			m, err := newModel(spec, src)
			if err != nil {
				return err
			}
			models[spec.Name] = m
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.models = models
	r.loading = 0
	for _, m := range models {
		for _, v := range m.versions {
			r.observe(v)
			switch v.status {
			case StatusLoading:
				r.loading++
			case StatusFailed: // its config was rejected: a load at start that failed
				v.atStart = v.err != v.refused // unless the source refused what it was sent
				v.obs.LoadFailed()
			}
		}
	}
	r.discovered = true
	return nil
}

func newModel(spec ModelSpec, src Source) (*model, error) {
	m := &model{name: spec.Name, rule: spec.Rule, source: src, versions: map[string]*version{}}
	for _, vs := range spec.Versions {
		if _, dup := m.versions[vs.Version]; dup {
			return nil, fmt.Errorf("model %q lists version %q twice", spec.Name, vs.Version)
		}
		v := &version{name: spec.Name, version: vs.Version, loader: vs.Loader, status: StatusLoading, refused: vs.Refused, provenance: vs.Provenance, calls: vs.Calls}
		if vs.Err != nil || vs.Loader == nil {
			v.status, v.err = StatusFailed, specErr(vs)
		}
		m.versions[vs.Version] = v
		m.order = append(m.order, vs.Version)
	}
	slices.SortFunc(m.order, compareNatural)
	if err := m.rule.Validate(m.order); err != nil {
		return nil, fmt.Errorf("model %q: %w", spec.Name, err)
	}
	return m, nil
}

// specErr is why vs cannot load: its error, else its refusal, else that it has no
// loader.
func specErr(vs VersionSpec) error {
	switch {
	case vs.Err != nil:
		return vs.Err
	case vs.Loader == nil && vs.Refused != nil:
		return vs.Refused
	case vs.Loader == nil:
		return errors.New("no loader")
	}
	return nil
}

// Load loads every discovered version that is still loading, LoadConcurrency at a time,
// and returns when all have finished, each ready or failed. A failure is logged and
// kept on its version; it never stops the others.
func (r *Registry) Load(ctx context.Context) {
	r.mu.RLock()
	// Graphs load after the rest: a graph is checked against its members' tensors,
	// so they must have loaded (or failed) first.
	var todo, graphs []*version
	for _, m := range r.models {
		for _, name := range m.order {
			switch v := m.versions[name]; {
			case v.status != StatusLoading:
			case len(v.calls) > 0:
				graphs = append(graphs, v)
			default:
				todo = append(todo, v)
			}
		}
	}
	r.mu.RUnlock()
	r.loadAll(ctx, todo)
	r.loadAll(ctx, graphs)
}

// loadAll loads todo, LoadConcurrency at a time, and returns when all have finished.
func (r *Registry) loadAll(ctx context.Context, todo []*version) {
	sem := make(chan struct{}, r.opts.LoadConcurrency)
	var wg sync.WaitGroup
	for _, v := range todo {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			inst, err := r.put(ctx, v, v.loader, true, nil)
			switch {
			case err != nil:
				r.log.Error("model failed to load", "model", v.name, "version", v.version, "error", err)
			case inst != nil: // nil: a reload during warm-up loaded it first
				r.log.Info("model loaded", "model", v.name, "version", v.version, "duration", inst.loadDur, "memory_bytes", inst.mem.Bytes)
			}
		}()
	}
	wg.Wait()
}
