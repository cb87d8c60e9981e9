package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/reposync"
)

// Load loads every pipeline. With LOAD_STRICT a version that failed is fatal: the
// process stops rather than serve without it.
func (ms *Models) Load(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	start := time.Now()
	// ONNX Runtime's own start-up (loading the library, its first session) takes tens
	// of MB; done here, it is not charged to whichever model happens to load first.
	// Without the library only ONNX versions fail, each saying why.
	if err := ms.onnx.Init(); err != nil {
		log.Warn("ONNX Runtime is not available: ONNX models will fail to load", "error", err)
	}
	reg := ms.Registry
	if ms.sync != nil {
		// The first sync before discovery, so that the registry finds the versions it
		// took (or the cache's, with the store down).
		_, err := ms.sync.syncer.Settle(ctx)
		if err == nil {
			err = reg.Discover(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped during the sync: nothing failed
			}
			return err
		}
	}
	reg.Load(ctx)
	var failed []error
	for _, e := range reg.List() {
		if e.Status == registry.StatusFailed {
			failed = append(failed, fmt.Errorf("%s %s: %w", e.Name, e.Version, e.Err))
		}
	}
	log.Info("all pipelines loaded", "duration", time.Since(start), "failed", len(failed))
	if cfg.LoadStrict && len(failed) > 0 {
		return fmt.Errorf("LOAD_STRICT: %d model versions failed to load: %w", len(failed), errors.Join(failed...))
	}
	if ms.sync != nil && ctx.Err() == nil {
		ms.sync.start() // polls after the load at start, never beside it
	}
	return nil
}

// newRegistry discovers the models of every source: echo, the model repository, and
// any extra ones (tests). Loading is left to the caller, after it listens. A synced
// repository (a bucket, or a polled directory) is discovered by Load instead, after
// its first sync, which may take a while: the process listens meanwhile.
func newRegistry(ctx context.Context, cfg config.Config, obs *metrics.Metrics, log *slog.Logger, extra []registry.Source, tracer trace.Tracer) (*Models, error) {
	rt := onnx.New(onnx.Options{Library: cfg.ONNXRuntimeLib})
	// The runtimes a model.yaml may name, in the order errors list them: a new runtime
	// is its package and one line here.
	backends := backend.Catalogue{
		onnx.NewBackend(rt),
		xgboost.Backend{},
		echo.Backend{},
	}
	builtin := builtins()
	ms := &Models{onnx: rt, Dir: cfg.ModelsDir}
	if cfg.Synced() {
		sy, err := openMirror(ctx, cfg, obs, log)
		if err != nil {
			return nil, err
		}
		ms.sync, ms.Dir = sy, sy.mirror.Dir()
	}
	graphs := &repository.Graphs{Tracer: tracer, Steps: obs}
	var repo registry.Source = repository.New(repository.Options{Dir: ms.Dir, Backends: backends, Reserved: names(builtin), MaxModelBytes: cfg.MaxModelBytes, Graphs: graphs})
	if ms.sync != nil {
		ms.sync.source = reposync.NewSource(repo)
		repo = ms.sync.source
	}
	reg := registry.New(registry.Options{
		Sources:           append([]registry.Source{builtin, repo}, extra...),
		LoadConcurrency:   cfg.LoadConcurrency,
		LoadTimeout:       cfg.ModelLoadTimeout,
		UnloadTimeout:     cfg.UnloadTimeout,
		NoDynamicBatching: !cfg.DynamicBatching,
		Logger:            log,
		Observer:          obs,
		Tracer:            tracer,
	})
	ms.Registry = reg
	graphs.Serve(reg)
	if ms.sync != nil {
		sy, err := reposync.New(reposync.Options{Mirror: ms.sync.mirror, Source: ms.sync.source, Registry: reg,
			Interval: cfg.RepositoryPollInterval, Logger: log})
		if err != nil {
			ms.sync.close()
			return nil, err
		}
		ms.sync.syncer = sy
		return ms, nil
	}
	if err := reg.Discover(ctx); err != nil {
		return nil, err
	}
	return ms, nil
}

// Models is the registry, the runtimes its pipelines share, and the repository they
// load from.
type Models struct {
	Registry *registry.Registry
	onnx     *onnx.Runtime
	// Dir is the directory the repository's models load from: MODELS_DIR, or the
	// copy of a synced repository.
	Dir string
	// sync keeps a synced repository's copy in step with its store; nil for a
	// directory read as it is.
	sync *synced
}

// StopPolls stops the repository's polls, waiting for the one under way; Close does it
// too. A process defers it so that every way out stops them, even one that never
// closes the registry.
func (ms *Models) StopPolls() { ms.sync.close() }

// Close stops the repository's polls, before the registry closes: a poll's load after
// that would leave a pipeline open.
func (ms *Models) Close() error {
	ms.sync.close()
	return ms.Registry.Close()
}

// WorkerPredictor is what runs a worker's job: over a synced repository, one that
// syncs when the job names a version not held yet.
func (ms *Models) WorkerPredictor(log *slog.Logger) job.Predictor {
	if ms.sync == nil {
		return Predictor{ms.Registry}
	}
	return syncingPredictor{Predictor: Predictor{ms.Registry}, syncer: ms.sync.syncer, log: log}
}
