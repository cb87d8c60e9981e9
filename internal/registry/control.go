package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/serve"
)

// StatusNotLoaded is the state Index gives a version its source holds but the registry
// does not: added on disk since start, or unloaded.
const StatusNotLoaded = serve.StatusNotLoaded

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
// The versions it loads are built beside whatever serves and put in place together,
// with the rule, so that the model never routes with only some of them; until then
// they are listed loading, and requests for them get ErrLoading. Requests in flight on
// the model's other versions are never refused. The error joins every version's
// failure, each wrapping ErrReloadFailed; the others are loaded.
//
// LoadModel, UnloadModel and Reload of one model run one at a time, in the order they
// take the model's lock; ctx bounds the wait for it.
func (r *Registry) LoadModel(ctx context.Context, name string) error {
	unlock, err := r.control.lock(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	return r.loadModel(ctx, name)
}

// pendingLoad is one version LoadModel builds, and what the build gave.
type pendingLoad struct {
	v    *version
	spec VersionSpec
	inst *loaded
	err  error
}

// loadModel is LoadModel under the model's control lock.
func (r *Registry) loadModel(ctx context.Context, name string) error {
	spec, src, err := r.specFor(ctx, name)
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

	var todo []*pendingLoad
	for _, vs := range spec.Versions {
		if !r.serves(name, vs.Version) {
			todo = append(todo, &pendingLoad{v: r.versionFor(spec, src, vs.Version), spec: vs})
		}
	}
	// The graphs that call the model are checked again once the locks below are
	// released: one of them may be a version of this model.
	defer r.changed(ctx, name, nil)
	// Each version's load lock, held from its build to the swap: the load at start,
	// the only other taker, then finds it loaded and builds nothing.
	for _, p := range todo {
		p.v.reload.Lock()
	}
	defer func() {
		for _, p := range todo {
			p.v.reload.Unlock()
		}
	}()
	for _, p := range todo {
		switch {
		case r.serves(name, p.v.version): // the load at start put it in place meanwhile
		case p.spec.Err != nil || p.spec.Loader == nil:
			p.err = specErr(p.spec)
		default:
			p.inst, p.err = r.build(ctx, p.v, p.spec.Loader)
		}
	}

	r.mu.Lock()
	r.noteRefusedLocked(spec)
	var errs []error
	for _, p := range todo {
		v := p.v
		switch {
		case p.err != nil:
			v.status, v.err = StatusFailed, p.err
			v.obs.LoadFailed()
			v.obs.State(StatusFailed)
			errs = append(errs, fmt.Errorf("%w: %s %s: %w", ErrReloadFailed, name, v.version, p.err))
		case p.inst != nil:
			v.cur, v.loader, v.status, v.err, v.loadErr, v.atStart = p.inst, p.spec.Loader, StatusReady, nil, nil, false
			v.obs.State(StatusReady)
		}
	}
	if m := r.models[name]; m != nil && spec.Rule.Validate(m.order) == nil {
		m.rule = spec.Rule
	}
	n := r.loadedLocked()
	r.mu.Unlock()
	r.obs.Loaded(n)
	for _, p := range todo {
		switch {
		case p.err != nil:
			r.obs.Reloaded(false)
			r.log.Error("model failed to load", "model", name, "version", p.v.version, "error", p.err)
		case p.inst != nil:
			r.obs.Reloaded(true)
			r.log.Info("model loaded", "model", name, "version", p.v.version, "duration", p.inst.loadDur, "memory_bytes", p.inst.mem.Bytes)
		}
	}
	return errors.Join(errs...)
}

// noteRefusedLocked keeps what spec, just read from the source, says it refused of
// each version the registry holds of the model, and what it verified. Call it under
// r.mu.
func (r *Registry) noteRefusedLocked(spec ModelSpec) {
	m := r.models[spec.Name]
	if m == nil {
		return
	}
	for _, vs := range spec.Versions {
		if v := m.versions[vs.Version]; v != nil {
			v.refused, v.provenance = vs.Refused, vs.Provenance
		}
	}
}

// serves reports whether name's version ver has a pipeline.
func (r *Registry) serves(name, ver string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.models[name]
	return m != nil && m.versions[ver] != nil && m.versions[ver].cur != nil
}

// UnloadModel drops every version of the model from the registry, together. From its
// call on the model takes no new requests (they get ErrModelNotFound), but the work
// claimed for it (Claim: the jobs accepted for it) still runs on it: UnloadModel waits
// up to UnloadTimeout for those claims to be released, then drops the model, and a
// job that runs after that fails with ErrModelUnloaded. It returns once the requests
// in flight on the versions have finished (or ctx ends) and their pipelines are
// closed. The model stays in its source, and LoadModel (or a restart) brings it back.
// Errors wrap ErrModelNotFound.
func (r *Registry) UnloadModel(ctx context.Context, name string) error {
	unlock, err := r.control.lock(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	r.mu.Lock()
	m := r.models[name]
	if m == nil {
		r.mu.Unlock()
		return fmt.Errorf("%w: no model named %q is loaded", ErrModelNotFound, name)
	}
	m.unloading = true
	vers := slices.Clone(m.order)
	r.mu.Unlock()
	// The operator asked for the unload: a caller that stops waiting cuts the wait
	// short, it does not cancel the unload.
	if left := r.claims.wait(ctx, name, r.opts.UnloadTimeout); left > 0 {
		r.log.Warn("unloading a model whose accepted jobs have not all finished: those that have not started fail with model_unloaded",
			"model", name, "jobs", left, "unload_timeout", r.opts.UnloadTimeout)
	}
	r.mu.Lock()
	r.unloaded[name] = true
	r.mu.Unlock()
	for _, done := range r.forget(name, Rule{}, unloaded, vers...) {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// admitLocked applies an unload to a request for model name routed to a version, or
// refused with err: while the model unloads only the jobs accepted before (async)
// still run on it, and once it is unloaded a job's error says what happened to it.
// Call it under r.mu.
func (r *Registry) admitLocked(name string, async bool, err error) error {
	if err != nil {
		if !errors.Is(err, ErrModelNotFound) || !r.unloaded[name] {
			return err
		}
		if async {
			return fmt.Errorf("%w: %s was unloaded before this job could run (the unload waits UNLOAD_TIMEOUT for the jobs accepted before it); load it again (POST /v2/repository/models/%s/load) and submit the job again", ErrModelUnloaded, name, name)
		}
		return fmt.Errorf("%w: %q was unloaded; POST /v2/repository/models/%s/load loads it again", ErrModelNotFound, name, name)
	}
	if m := r.models[name]; m != nil && m.unloading && !async {
		return fmt.Errorf("%w: %q is being unloaded; POST /v2/repository/models/%s/load loads it again once it is", ErrModelNotFound, name, name)
	}
	return nil
}
