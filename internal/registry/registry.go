package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// Status is the load state of one version.
type Status string

// The load states of a version.
const (
	StatusLoading Status = "loading"
	StatusReady   Status = "ready"
	StatusFailed  Status = "failed"
)

// Observer is told what the registry does, for metrics. Every method must be cheap and
// safe for concurrent use.
type Observer interface {
	// Stage reports how long one stage of one prediction call took.
	Stage(model, version string, stage pipeline.Stage, d time.Duration)
	// Predicted reports the outcome of a prediction call of n items.
	Predicted(model, version string, async bool, outcome Outcome, n int)
	// Loaded reports how many pipelines are in memory now.
	Loaded(n int)
	// Reloaded reports a reload's outcome.
	Reloaded(ok bool)
}

// Outcome classifies a prediction call for metrics.
type Outcome string

// The outcomes of a prediction call.
const (
	OutcomeSuccess      Outcome = "success"
	OutcomeInvalidInput Outcome = "invalid_input"
	OutcomeError        Outcome = "error"
	OutcomeUnavailable  Outcome = "unavailable"
)

// Options configure a Registry. The zero value of each field is a documented default.
type Options struct {
	// Sources are asked for models in order; a model name may come from one source only.
	Sources []Source
	// LoadConcurrency bounds how many pipelines load at once. 0 means 1, which keeps the
	// memory figures of every load exclusive.
	LoadConcurrency int
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Observer defaults to one that records nothing.
	Observer Observer
	// Rand draws weighted routing decisions. nil means a randomly seeded source.
	Rand *rand.Rand
}

// Registry holds every model version and its pipeline. It is safe for concurrent use.
type Registry struct {
	opts Options
	log  *slog.Logger
	obs  Observer

	mu         sync.RWMutex
	models     map[string]*model
	discovered bool
	loading    int // versions in StatusLoading

	rndMu sync.Mutex
	rnd   *rand.Rand

	loadSeq     atomic.Int64 // loads started, to tell whether a load ran alone
	activeLoads atomic.Int64
	drains      sync.WaitGroup // replaced pipelines draining before they close
}

type model struct {
	name     string
	rule     Rule
	source   Source
	versions map[string]*version
	order    []string // versions in natural order
}

type version struct {
	name, version string
	loader        Loader
	status        Status
	err           error
	cur           *instance
	reload        sync.Mutex // one load of a version at a time
}

// instance is one loaded pipeline; a reload replaces it with a new one.
type instance struct {
	p        *pipeline.Pipeline
	inflight sync.WaitGroup
	loadedAt time.Time
	loadDur  time.Duration
	mem      Memory
}

// New returns an empty registry; Discover and Load fill it.
func New(opts Options) *Registry {
	r := &Registry{opts: opts, log: opts.Logger, obs: opts.Observer, rnd: opts.Rand, models: map[string]*model{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.obs == nil {
		r.obs = nopObserver{}
	}
	if r.rnd == nil {
		r.rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if r.opts.LoadConcurrency <= 0 {
		r.opts.LoadConcurrency = 1
	}
	return r
}

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
			if v.status == StatusLoading {
				r.loading++
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
		v := &version{name: spec.Name, version: vs.Version, loader: vs.Loader, status: StatusLoading}
		if vs.Err != nil || vs.Loader == nil {
			v.status, v.err = StatusFailed, vs.Err
			if v.err == nil {
				v.err = errors.New("no loader")
			}
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

// Load loads every discovered version that is still loading, LoadConcurrency at a time,
// and returns when all have finished, each ready or failed. A failure is logged and
// kept on its version; it never stops the others.
func (r *Registry) Load(ctx context.Context) {
	r.mu.RLock()
	var todo []*version
	for _, m := range r.models {
		for _, name := range m.order {
			if v := m.versions[name]; v.status == StatusLoading {
				todo = append(todo, v)
			}
		}
	}
	r.mu.RUnlock()

	sem := make(chan struct{}, r.opts.LoadConcurrency)
	var wg sync.WaitGroup
	for _, v := range todo {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			v.reload.Lock()
			defer v.reload.Unlock()
			r.mu.Lock()
			if v.cur != nil { // a reload during warm-up loaded it; building again would leak its pipeline
				r.loading--
				r.mu.Unlock()
				return
			}
			r.mu.Unlock()
			inst, err := r.build(ctx, v.name, v.version, v.loader)
			r.mu.Lock()
			r.loading--
			if err != nil {
				v.status, v.err = StatusFailed, err
			} else {
				v.status, v.err, v.cur = StatusReady, nil, inst
			}
			n := r.loadedLocked()
			r.mu.Unlock()
			r.obs.Loaded(n)
			if err != nil {
				r.log.Error("model failed to load", "model", v.name, "version", v.version, "error", err)
			} else {
				r.log.Info("model loaded", "model", v.name, "version", v.version, "duration", inst.loadDur, "memory_bytes", inst.mem.Bytes)
			}
		}()
	}
	wg.Wait()
}

// build loads one pipeline, measuring the memory the load took.
func (r *Registry) build(ctx context.Context, name, ver string, l Loader) (inst *instance, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("loading %s %s panicked: %v", name, ver, v)
		}
	}()
	seq := r.loadSeq.Add(1)
	alone := r.activeLoads.Add(1) == 1
	defer r.activeLoads.Add(-1)
	before := takeSnapshot()
	start := time.Now()
	p, err := l.Load(ctx)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Model == nil {
		return nil, fmt.Errorf("loading %s %s: the loader returned no model", name, ver)
	}
	dur := time.Since(start)
	after := takeSnapshot()
	alone = alone && r.loadSeq.Load() == seq
	return &instance{p: p, loadedAt: time.Now(), loadDur: dur, mem: measure(before, after, p.Info.ArtifactBytes, alone)}, nil
}

func (r *Registry) loadedLocked() int {
	n := 0
	for _, m := range r.models {
		for _, v := range m.versions {
			if v.cur != nil {
				n++
			}
		}
	}
	return n
}

// Ready reports whether discovery has run and no version is still loading. A version
// that failed does not hold readiness back: it is reported by List and answers its
// requests with ErrUnavailable.
func (r *Registry) Ready() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.discovered && r.loading == 0
}

// Resolve returns the version a request for name and version would run on: version
// itself when it exists, else the one the model's rule chooses. Like Predict, it fails
// with ErrLoading or ErrUnavailable when that version has no pipeline to serve with,
// so a job is not accepted for a version that cannot run it now.
func (r *Registry) Resolve(name, version string) (string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, err := r.lookupLocked(name, version)
	if err != nil {
		return "", err
	}
	if err := v.servable(); err != nil {
		return "", err
	}
	return v.version, nil
}

// servable says why a version without a pipeline cannot serve; call it under r.mu.
func (v *version) servable() error {
	switch {
	case v.cur != nil:
		return nil
	case v.status == StatusLoading:
		return fmt.Errorf("%w: %s %s is still loading; retry shortly", ErrLoading, v.name, v.version)
	default:
		return fmt.Errorf("%w: %s %s failed to load: %v", ErrUnavailable, v.name, v.version, v.err)
	}
}

func (r *Registry) lookupLocked(name, ver string) (*version, error) {
	m := r.models[name]
	if m == nil {
		return nil, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
	}
	if ver == "" {
		r.rndMu.Lock()
		ver = m.rule.Choose(m.order, r.rnd)
		r.rndMu.Unlock()
	}
	v := m.versions[ver]
	if v == nil {
		return nil, fmt.Errorf("%w: model %q has no version %q (it has %v)", ErrVersionNotFound, name, ver, m.order)
	}
	return v, nil
}

// Prediction is the result of one prediction call.
type Prediction struct {
	Model   string
	Version string
	Results []json.RawMessage
}

// Predict routes the request to a version and runs items through its pipeline as one
// batch. Errors wrap ErrModelNotFound, ErrVersionNotFound, ErrLoading, ErrUnavailable,
// pipeline.ErrInvalidInput or pipeline.ErrExecution.
func (r *Registry) Predict(ctx context.Context, name, ver string, items []json.RawMessage, async bool) (Prediction, error) {
	r.mu.RLock()
	v, err := r.lookupLocked(name, ver)
	var inst *instance
	if err == nil {
		if err = v.servable(); err == nil {
			inst = v.cur
			inst.inflight.Add(1) // under the read lock, so a swap cannot miss it
		}
	}
	r.mu.RUnlock()
	if err != nil {
		if v != nil {
			r.obs.Predicted(name, v.version, async, OutcomeUnavailable, len(items))
		}
		return Prediction{}, err
	}
	defer inst.inflight.Done()

	observe := func(stage pipeline.Stage, d time.Duration) { r.obs.Stage(name, v.version, stage, d) }
	results, err := inst.p.Run(ctx, items, observe)
	outcome := OutcomeSuccess
	switch {
	case errors.Is(err, pipeline.ErrInvalidInput):
		outcome = OutcomeInvalidInput
	case err != nil:
		outcome = OutcomeError
	}
	r.obs.Predicted(name, v.version, async, outcome, len(items))
	if pe := (*pipeline.PanicError)(nil); errors.As(err, &pe) {
		r.log.Error("pipeline panicked", "model", name, "version", v.version, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
	if err != nil {
		return Prediction{}, err
	}
	return Prediction{Model: name, Version: v.version, Results: results}, nil
}

// Reloaded describes the pipeline a reload put in place.
type Reloaded struct {
	Name, Version string
	LoadedAt      time.Time
	LoadDuration  time.Duration
}

// Reload re-reads one version from its source, builds a new pipeline beside the old one
// and swaps it in. Requests already running finish on the old pipeline, which is closed
// after the last of them. When the build fails the old pipeline keeps serving and the
// error wraps ErrReloadFailed. A version (or model) added to the source after start is
// loaded for the first time this way.
func (r *Registry) Reload(ctx context.Context, name, ver string) (Reloaded, error) {
	spec, src, err := r.specFor(ctx, name)
	if err != nil {
		return Reloaded{}, err
	}
	idx := slices.IndexFunc(spec.Versions, func(vs VersionSpec) bool { return vs.Version == ver })
	if idx < 0 {
		return Reloaded{}, fmt.Errorf("%w: model %q has no version %q", ErrVersionNotFound, name, ver)
	}
	vs := spec.Versions[idx]
	v := r.versionFor(spec, src, ver)
	v.reload.Lock()
	defer v.reload.Unlock()

	var inst *instance
	if err = vs.Err; err == nil {
		inst, err = r.build(ctx, name, ver, vs.Loader)
	}
	if err != nil {
		r.mu.Lock()
		if v.cur == nil { // nothing serves it: keep the reason visible
			v.status, v.err = StatusFailed, err
		}
		r.mu.Unlock()
		r.obs.Reloaded(false)
		r.log.Error("reload failed; the old pipeline keeps serving", "model", name, "version", ver, "error", err)
		return Reloaded{}, fmt.Errorf("%w: %s %s: %v", ErrReloadFailed, name, ver, err)
	}

	r.mu.Lock()
	old := v.cur
	v.cur, v.loader, v.status, v.err = inst, vs.Loader, StatusReady, nil
	if m := r.models[name]; spec.Rule.Validate(m.order) == nil {
		m.rule = spec.Rule // a re-read rule applies only when it fits the versions known
	}
	n := r.loadedLocked()
	r.mu.Unlock()
	r.obs.Loaded(n)
	r.obs.Reloaded(true)
	if old != nil {
		r.retire(old)
	}
	r.log.Info("model reloaded", "model", name, "version", ver, "duration", inst.loadDur)
	return Reloaded{Name: name, Version: ver, LoadedAt: inst.loadedAt, LoadDuration: inst.loadDur}, nil
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
	}
	v := m.versions[ver]
	if v == nil {
		v = &version{name: spec.Name, version: ver, status: StatusFailed, err: errors.New("not loaded yet")}
		m.versions[ver] = v
		m.order = append(m.order, ver)
		slices.SortFunc(m.order, compareNatural)
	}
	return v
}

// retire closes a replaced pipeline once its in-flight requests have finished.
func (r *Registry) retire(old *instance) {
	r.drains.Add(1)
	go func() {
		defer r.drains.Done()
		old.inflight.Wait()
		if err := old.p.Close(); err != nil {
			r.log.Warn("closing a replaced pipeline", "error", err)
		}
	}()
}

// Entry describes one version for listings.
type Entry struct {
	Name, Version string
	Status        Status
	Err           error
	LoadedAt      time.Time
	LoadDuration  time.Duration
	Memory        Memory
	Info          pipeline.Info
	// Pre and Post describe the steps of the loaded pipeline.
	Pre, Post []pipeline.StepInfo
}

// List returns every known version, by name then natural version order.
func (r *Registry) List() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.models))
	for n := range r.models {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Entry
	for _, n := range names {
		m := r.models[n]
		for _, ver := range m.order {
			out = append(out, entryLocked(m.versions[ver]))
		}
	}
	return out
}

// Model describes one model: its rule and every version, in natural order.
type Model struct {
	Name     string
	Rule     Rule
	Versions []Entry
}

// Describe returns one model's rule and versions.
func (r *Registry) Describe(name string) (Model, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.models[name]
	if m == nil {
		return Model{}, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
	}
	out := Model{Name: name, Rule: m.rule}
	for _, ver := range m.order {
		out.Versions = append(out.Versions, entryLocked(m.versions[ver]))
	}
	return out, nil
}

func entryLocked(v *version) Entry {
	e := Entry{Name: v.name, Version: v.version, Status: v.status, Err: v.err}
	if v.cur != nil {
		e.LoadedAt, e.LoadDuration, e.Memory, e.Info = v.cur.loadedAt, v.cur.loadDur, v.cur.mem, v.cur.p.Info
		e.Pre, e.Post = v.cur.p.Steps()
	}
	return e
}

// Close waits for in-flight requests and closes every pipeline, old and current.
func (r *Registry) Close() error {
	r.mu.Lock()
	var insts []*instance
	for _, m := range r.models {
		for _, v := range m.versions {
			if v.cur != nil {
				insts = append(insts, v.cur)
				v.cur = nil
			}
		}
	}
	r.mu.Unlock()
	var errs []error
	for _, inst := range insts {
		inst.inflight.Wait()
		errs = append(errs, inst.p.Close())
	}
	r.drains.Wait()
	return errors.Join(errs...)
}

type nopObserver struct{}

func (nopObserver) Stage(string, string, pipeline.Stage, time.Duration) {}
func (nopObserver) Predicted(string, string, bool, Outcome, int)        {}
func (nopObserver) Loaded(int)                                          {}
func (nopObserver) Reloaded(bool)                                       {}
