package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/reposync"
	"github.com/inferd/inferd/internal/store"
	"github.com/inferd/inferd/internal/store/dir"
	"github.com/inferd/inferd/internal/store/gcs"
	"github.com/inferd/inferd/internal/store/s3"
)

// stores open a repository's store by its URL's scheme (MODELS_DIR): a new kind of
// storage is its package and one line here.
var stores = map[string]func(context.Context, string) (store.Store, error){
	"s3": opener(s3.New),
	"gs": opener(gcs.New),
}

// opener adapts a store package's New(ctx, url, Options) to stores, with the zero
// Options: each store is configured its SDK's own way, from the environment.
func opener[S store.Store, O any](open func(context.Context, string, O) (S, error)) func(context.Context, string) (store.Store, error) {
	return func(ctx context.Context, url string) (store.Store, error) {
		var opts O
		s, err := open(ctx, url, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// openStore is the store MODELS_DIR names: a bucket by its URL, or the directory,
// polled.
func openStore(ctx context.Context, models string) (store.Store, error) {
	if !config.RepositoryURL(models) {
		s, err := dir.New(models)
		if err != nil {
			return nil, fmt.Errorf("MODELS_DIR, polled (REPOSITORY_POLL_INTERVAL): %w", err)
		}
		return s, nil
	}
	scheme, _, _ := strings.Cut(models, "://")
	open, ok := stores[strings.ToLower(scheme)]
	if !ok {
		var known []string
		for _, k := range slices.Sorted(maps.Keys(stores)) {
			known = append(known, k+"://")
		}
		// Not the URL itself: what follows the scheme may be a secret pasted by mistake.
		return nil, fmt.Errorf("MODELS_DIR: a repository at %s://... is not one this build reads; it reads a directory or %s", scheme, strings.Join(known, ", "))
	}
	s, err := open(ctx, models)
	if err != nil {
		return nil, fmt.Errorf("MODELS_DIR: %w", err)
	}
	return s, nil
}

// synced is a repository read through a mirror: its copy, the registry's source over
// it and the polls that keep both in step with the store.
type synced struct {
	mirror *mirror.Mirror
	source *reposync.Source
	syncer *reposync.Syncer
	log    *slog.Logger

	mu      sync.Mutex
	closed  bool
	stop    context.CancelFunc // ends Run's loop; nil until it starts
	stopped chan struct{}
}

// openMirror opens the store and the mirror of the repository on MODEL_CACHE_DIR,
// which puts in the copy what the cache kept of the last good sync.
func openMirror(ctx context.Context, cfg config.Config, m *metrics.Metrics, log *slog.Logger) (*synced, error) {
	st, err := openStore(ctx, cfg.ModelsDir)
	if err != nil {
		return nil, err
	}
	mr, err := mirror.New(mirror.Options{
		Store: st, CacheDir: cfg.ModelCacheDir, MaxBytes: cfg.ModelCacheMaxBytes, RequireDigests: cfg.RequireDigests,
		Keys: cfg.SigningKeys, Logger: log, Observer: m.ObserveRepository(cfg.RepositoryPollInterval),
	})
	if err != nil {
		return nil, fmt.Errorf("MODEL_CACHE_DIR: %w", err)
	}
	// The store's name carries no credentials (store.Store.String).
	log.Info("model repository", "store", st.String(), "cache", cfg.ModelCacheDir, "poll_interval", cfg.RepositoryPollInterval,
		"require_digests", cfg.RequireDigests, "cache_max_bytes", cfg.ModelCacheMaxBytes, "signing_keys", cfg.SigningKeys.Fingerprints())
	return &synced{mirror: mr, log: log}, nil
}

// start polls in the background until close; after close (a shutdown that did not
// wait for the load at start) it does nothing.
func (s *synced) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop, s.stopped = cancel, make(chan struct{})
	go func() {
		defer close(s.stopped)
		s.syncer.Run(ctx)
	}()
}

// close stops the polls, waiting for the one under way, and releases the cache
// directory. It may be called more than once; the copy stays for the next start.
func (s *synced) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.stop != nil {
		s.stop()
		<-s.stopped
	}
	if s.syncer != nil {
		s.syncer.Close()
	}
	if err := s.mirror.Close(); err != nil {
		s.log.Warn("releasing the model cache", "error", err)
	}
}

// demandWait bounds how long a worker's job for a version the worker does not hold
// waits for the sync (and load) it asks for, before it fails as it would have.
const demandWait = time.Minute

// syncingPredictor is a worker's predictor over a synced repository: a job for a model
// or version the worker does not hold yet (a server, polling on its own schedule, may
// have taken it first), or one still loading, makes the worker sync once and try
// again, rather than fail "not found".
type syncingPredictor struct {
	Predictor
	syncer *reposync.Syncer
	log    *slog.Logger
}

var _ job.EachPredictor = syncingPredictor{}

func (p syncingPredictor) Predict(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, error) {
	since := time.Now()
	out, err := p.Predictor.Predict(ctx, model, version, items)
	if !missing(err) || !p.demand(ctx, since, model, version, err) {
		return out, err
	}
	return p.Predictor.Predict(ctx, model, version, items)
}

func (p syncingPredictor) PredictEach(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, []*pipeline.InputError, error) {
	since := time.Now()
	out, failed, err := p.Predictor.PredictEach(ctx, model, version, items)
	if !missing(err) || !p.demand(ctx, since, model, version, err) {
		return out, failed, err
	}
	return p.Predictor.PredictEach(ctx, model, version, items)
}

// missing reports whether err is of a version the worker may not have synced yet.
func missing(err error) bool {
	return errors.Is(err, registry.ErrModelNotFound) || errors.Is(err, registry.ErrVersionNotFound) || errors.Is(err, registry.ErrLoading)
}

// demand syncs for a job that missed at since, within demandWait, and reports whether
// the job is worth trying again (its own context has not ended).
func (p syncingPredictor) demand(ctx context.Context, since time.Time, model, version string, miss error) bool {
	start := time.Now()
	wait, cancel := context.WithTimeout(ctx, demandWait)
	defer cancel()
	err := p.syncer.Demand(wait, since)
	p.log.Info("a job names a version this worker did not hold: the repository synced on demand", "model", model, "version", version,
		"miss", miss.Error(), "waited", time.Since(start), "error", err)
	return ctx.Err() == nil
}
