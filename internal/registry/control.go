package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// StatusNotLoaded is the state Index gives a version its source holds but the registry
// does not: added on disk since start, or unloaded.
const StatusNotLoaded Status = "not_loaded"

// unloaded is why UnloadModel drops versions, for the log.
const unloaded = "unloaded by an operator"

// Index lists every version the registry holds and every version its sources hold
// beside them (StatusNotLoaded), by name then natural version order: the model
// repository as Triton's repository index shows it.
func (r *Registry) Index(ctx context.Context) ([]Entry, error) {
	out := r.List()
	held := map[[2]string]bool{}
	for _, e := range out {
		held[[2]string{e.Name, e.Version}] = true
	}
	for _, src := range r.opts.Sources {
		specs, err := src.Models(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the model repository: %w", err)
		}
		for _, spec := range specs {
			for _, vs := range spec.Versions {
				if !held[[2]string{spec.Name, vs.Version}] {
					out = append(out, Entry{Name: spec.Name, Version: vs.Version, Status: StatusNotLoaded, Err: vs.Err})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if a.Name != b.Name {
			if a.Name < b.Name {
				return -1
			}
			return 1
		}
		return compareNatural(a.Version, b.Version)
	})
	return out, nil
}

// LoadModel makes the registry hold what the model's source holds now: versions added
// since start (or since an unload) are loaded, ones that failed are tried again, ones
// gone from the source are dropped, and the source's routing rule applies when it fits
// the versions. A version that already serves is left as it is (Reload rebuilds one).
// Like Reload, each version's pipeline is swapped in whole, so requests in flight on
// the model's other versions are never refused. The error joins every version's
// failure, each wrapping ErrReloadFailed; the others stay loaded.
func (r *Registry) LoadModel(ctx context.Context, name string) error {
	spec, _, err := r.specFor(ctx, name)
	if errors.Is(err, ErrModelNotFound) {
		r.forget(name, Rule{}, goneFromSource, r.versionsOf(name)...)
	}
	if err != nil {
		return err
	}
	var gone []string
	for _, ver := range r.versionsOf(name) {
		if !slices.ContainsFunc(spec.Versions, func(vs VersionSpec) bool { return vs.Version == ver }) {
			gone = append(gone, ver)
		}
	}
	r.forget(name, spec.Rule, goneFromSource, gone...)
	var errs []error
	for _, vs := range spec.Versions {
		if r.serves(name, vs.Version) {
			continue
		}
		if _, err := r.Reload(ctx, name, vs.Version); err != nil {
			errs = append(errs, err)
		}
	}
	r.mu.Lock()
	if m := r.models[name]; m != nil && spec.Rule.Validate(m.order) == nil {
		m.rule = spec.Rule
	}
	r.mu.Unlock()
	return errors.Join(errs...)
}

// serves reports whether name's version ver has a pipeline.
func (r *Registry) serves(name, ver string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.models[name]
	return m != nil && m.versions[ver] != nil && m.versions[ver].cur != nil
}

// UnloadModel drops every version of the model from the registry: none takes new
// requests, and it returns once the requests in flight on them have finished (or ctx
// ends) and their pipelines are closed. The model stays in its source, and LoadModel
// (or a restart) brings it back. Errors wrap ErrModelNotFound.
func (r *Registry) UnloadModel(ctx context.Context, name string) error {
	vers := r.versionsOf(name)
	if len(vers) == 0 {
		return fmt.Errorf("%w: no model named %q is loaded", ErrModelNotFound, name)
	}
	for _, done := range r.forget(name, Rule{}, unloaded, vers...) {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
