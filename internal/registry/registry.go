package registry

import (
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/serve"
)

// Status is the load state of one version (serve's, named here too).
type Status = serve.Status

// The load states of a version.
const (
	StatusLoading = serve.StatusLoading
	StatusReady   = serve.StatusReady
	StatusFailed  = serve.StatusFailed
)

// Observer is told what the registry does, for metrics. Every method must be cheap and
// safe for concurrent use.
type Observer interface {
	// Stage reports how long one stage of one prediction call took.
	Stage(model, version string, stage pipeline.Stage, d time.Duration)
	// Predicted reports the outcome of a prediction call of n items.
	Predicted(model, version string, mode Mode, outcome Outcome, n int)
	// Batched reports one model call of n items, which may hold several requests'.
	Batched(model, version string, n int)
	// Queued reports how long a request waited in a version's batcher before its
	// items went to the model.
	Queued(model, version string, d time.Duration)
	// Loaded reports how many pipelines are in memory now.
	Loaded(n int)
	// Reloaded reports a reload's outcome.
	Reloaded(ok bool)
	// Version returns the observer of one version, resolved once when the registry
	// learns of the version so that per-request observations cost no label lookups.
	Version(model, version string) VersionObserver
}

// VersionObserver is told what happens to one version. Every method must be cheap and
// safe for concurrent use.
type VersionObserver interface {
	// State reports the version's load state.
	State(s Status)
	// LoadFailed reports a load (first or reload) that failed.
	LoadFailed()
	// RoutedAway reports a request the routing rule chose this version for, sent to
	// another version of the rule because this one has no pipeline.
	RoutedAway()
	// Begin reports a prediction call starting on this version; End its end, d after
	// Begin.
	Begin()
	End(d time.Duration)
	// Forgotten reports that the registry dropped the version: gone from its source,
	// or unloaded. What was recorded of it may go; requests still in flight on it may
	// End on it after.
	Forgotten()
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
	// NoDynamicBatching turns dynamic batching off for every version, whatever their
	// pipelines ask for (DYNAMIC_BATCHING=false).
	NoDynamicBatching bool
	// LoadTimeout bounds one load of one version (MODEL_LOAD_TIMEOUT); 0: no bound.
	LoadTimeout time.Duration
	// UnloadTimeout bounds how long UnloadModel waits for the work claimed for a model
	// (Claim: the jobs accepted for it) before it drops the model (UNLOAD_TIMEOUT);
	// 0: it does not wait.
	UnloadTimeout time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Observer defaults to one that records nothing.
	Observer Observer
	// Rand draws weighted routing decisions. nil means a randomly seeded source.
	Rand *rand.Rand
	// Tracer, when set, traces predictions: the routing decision, each pipeline stage
	// and each backend call. nil: tracing off, at no cost.
	Tracer trace.Tracer
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

	// unloaded names the models an operator unloaded and nothing has loaded since, so
	// that a job accepted before the unload fails saying so (ErrModelUnloaded).
	unloaded map[string]bool

	control modelLocks // one load, unload or reload of a model at a time
	claims  claims     // work accepted for each model, which an unload waits for

	loadSeq     atomic.Int64 // loads started, to tell whether a load ran alone
	activeLoads atomic.Int64
	drains      sync.WaitGroup // replaced versions draining before they close
}

type model struct {
	name     string
	rule     Rule
	source   Source
	versions map[string]*version
	order    []string // versions in natural order
	// unloading: UnloadModel is waiting for the jobs accepted for the model; only
	// they still run on it.
	unloading bool
}

// version is one version's entry: its state, and the loaded pipeline serving it.
type version struct {
	name, version string
	loader        Loader
	obs           VersionObserver
	status        Status
	err           error
	cur           *loaded
	reload        sync.Mutex // one load of a version at a time
	// gone: the source no longer has the version and the registry dropped it; a load
	// that was under way puts nothing in place.
	gone bool
	// atStart: the version failed in the load at start (or its config at discovery)
	// and has not served since, so it holds readiness back (strict readiness). A
	// load that fails later never sets it: one model's failed load after start must
	// not take the server out of its load balancer.
	atStart bool
	// loadErr is why the last load failed while an earlier pipeline still serves;
	// nil once a load succeeds. (err is why a version has no pipeline.)
	loadErr error
	// refused is the source's VersionSpec.Refused as last read: shown beside a
	// pipeline that serves the content taken before.
	refused error
	// provenance is the source's VersionSpec.Provenance as last read.
	provenance Provenance
	// calls are the models the version calls, when it is a graph (VersionSpec.Calls).
	calls []string
	stats versionStats
}

// New returns an empty registry; Discover and Load fill it.
func New(opts Options) *Registry {
	r := &Registry{opts: opts, log: opts.Logger, obs: opts.Observer, rnd: opts.Rand, models: map[string]*model{}, unloaded: map[string]bool{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.obs == nil {
		r.obs = NopObserver{}
	}
	if r.rnd == nil {
		r.rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if r.opts.LoadConcurrency <= 0 {
		r.opts.LoadConcurrency = 1
	}
	return r
}

// Ready reports whether discovery has run and no version of the load at start is
// still loading: loads after start (a reload, a repository load) never hold it back.
// A version that failed does not either: Failed lists those, with Entry.AtStart on
// the ones whose load at start failed, for the caller to decide (strict readiness),
// and each answers its requests with ErrUnavailable.
func (r *Registry) Ready() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.discovered && r.loading == 0
}

// Failed lists the versions that have no pipeline because their load failed, by name
// then natural version order.
func (r *Registry) Failed() []Entry {
	var out []Entry
	for _, e := range r.List() {
		if e.Status == StatusFailed {
			out = append(out, e)
		}
	}
	return out
}

// FailedAtStart reports whether a version whose load at start failed still has no
// pipeline: what strict readiness waits for.
func (r *Registry) FailedAtStart() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, m := range r.models {
		for _, v := range m.versions {
			if v.atStart && v.cur == nil {
				return true
			}
		}
	}
	return false
}

// NopObserver records nothing; embed it to observe only some things.
type NopObserver struct{}

func (NopObserver) Stage(string, string, pipeline.Stage, time.Duration) {}
func (NopObserver) Predicted(string, string, Mode, Outcome, int)        {}
func (NopObserver) Batched(string, string, int)                         {}
func (NopObserver) Queued(string, string, time.Duration)                {}
func (NopObserver) Loaded(int)                                          {}
func (NopObserver) Reloaded(bool)                                       {}
func (NopObserver) Version(string, string) VersionObserver              { return NopObserver{} }
func (NopObserver) State(Status)                                        {}
func (NopObserver) LoadFailed()                                         {}
func (NopObserver) RoutedAway()                                         {}
func (NopObserver) Begin()                                              {}
func (NopObserver) End(time.Duration)                                   {}
func (NopObserver) Forgotten()                                          {}
