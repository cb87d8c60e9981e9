package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/keywatch"
	"github.com/inferd/inferd/internal/listen"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/reposync"
)

// Options are what Run needs besides the Config. Zero values are documented defaults.
type Options struct {
	Config config.Config
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registry receives the metrics; nil means a new prometheus.Registry.
	Registry *prometheus.Registry
	// Sources are model sources added after the built-in echo model (tests add theirs).
	Sources []registry.Source
	// Listener, when set, is served instead of listening on Config.ListenAddr.
	Listener net.Listener
	// Started, when set, receives the server's address once it listens.
	Started func(addr string)
	// GRPCListener, when set, is served the gRPC protocol instead of listening on
	// Config.GRPCListenAddr (even when that is off); GRPCStarted, when set, receives its
	// address.
	GRPCListener net.Listener
	GRPCStarted  func(addr string)
	// TracerProvider, when set, traces with it whatever the OTEL_* settings say (tests
	// pass one around an in-memory exporter); its owner shuts it down.
	TracerProvider trace.TracerProvider
	// Reload receives SIGHUP: the server re-reads API_KEYS_FILE at once, the worker,
	// which holds no keys, logs that it has nothing to re-read. nil: no signal comes.
	Reload <-chan os.Signal
}

// Run serves until ctx ends, then shuts down gracefully: it stops accepting
// connections, lets in-flight requests and queued in-process jobs finish within
// SHUTDOWN_TIMEOUT, and closes every pipeline. It returns nil after a clean shutdown.
func Run(ctx context.Context, opts Options) error {
	if opts.Config.Keys == nil {
		return errors.New("no API keys configured")
	}
	p, err := start(ctx, opts, "inferd")
	if err != nil {
		return err
	}
	cfg, log, promReg, m, ms, reg := p.cfg, p.log, p.promReg, p.metrics, p.models, p.models.reg
	defer ms.sync.close() // on every way out; the paths below close it before the registry
	if cfg.Keys.IsDev() {
		log.Warn("API_KEYS is not set: the built-in development keys dev-key and admin-key are active; never use them in production")
	}

	jobs, err := newJobs(cfg, reg, m, promReg, log, p.tracing.Tracer, p.hooks)
	if err != nil {
		return errors.Join(err, p.stopTracing())
	}
	// Until it serves, a failure must still stop the job workers and close Redis.
	abort := func(err error) error {
		return errors.Join(err, jobs.shutdown(context.Background()), ms.close(), p.stopTracing())
	}

	// The keys in force, re-read from API_KEYS_FILE until the server stops.
	keys := auth.NewKeys(cfg.Keys)
	watchCtx, stopWatching := context.WithCancel(ctx)
	var watching sync.WaitGroup
	defer func() { stopWatching(); watching.Wait() }()
	watcher := keywatch.New(keywatch.Options{
		Path: cfg.KeysFile, Keys: keys, Interval: cfg.KeysReloadInterval, Reload: opts.Reload,
		Logger: log, Observer: m.ObserveKeys(),
	})
	watching.Go(func() { watcher.Run(watchCtx) })

	srv, err := httpapi.NewServer(httpapi.Options{
		Registry: reg, Jobs: jobs.svc, Keys: keys, Metrics: m, Gatherer: promReg, Logger: log,
		MaxRequestBytes: cfg.MaxRequestBytes, MaxBatchItems: cfg.MaxBatchItems, MaxResponseBytes: cfg.MaxResponseBytes,
		RateLimitRPS: cfg.RateLimitRPS, RateLimitBurst: cfg.RateLimitBurst, SharedRateLimit: jobs.limit, QueueUI: jobs.ui, QueueControl: jobs.control,
		MaxConcurrentPerKey: cfg.MaxConcurrentPerKey, AuthFailuresPerMinute: cfg.AuthFailuresPerMinute,
		TrustedProxies: cfg.TrustedProxies,
		PublicURL:      cfg.PublicURL, CORSAllowedOrigins: cfg.CORSAllowedOrigins, ModelsDir: ms.dir,
		ReadyAllowFailed: cfg.ReadyAllowFailed,
		Tracer:           p.tracing.Tracer, TracerProvider: p.tracing.Provider,
		Callbacks: p.hooks.allow,
	})
	if err != nil {
		return abort(err)
	}
	handler, err := srv.Handler()
	if err != nil {
		return abort(err)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      5 * time.Minute, // a large synchronous batch may take a while
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState:         srv.ConnState,
	}

	// Listen first, so /health answers while the pipelines load.
	// Answers net/http writes by itself are problems too (httpapi.ProblemListener).
	// net/http arms WriteTimeout for each request itself and the connection is left
	// as it is, so a handler can move its deadline with http.ResponseController.
	wrap := httpapi.ProblemListener
	serveErr, ln, err := p.serve(opts, hs, cfg.ListenAddr, wrap, "listening", "queue", queueMode(cfg))
	if err != nil {
		return abort(err)
	}
	grpcLn, err := p.serveGRPC(opts, srv)
	if err != nil {
		return abort(errors.Join(err, hs.Close()))
	}

	loadCtx, stopLoading := context.WithCancel(ctx)
	defer stopLoading()
	loadErr := make(chan error, 1)
	go func() { loadErr <- load(loadCtx, ms, cfg, log) }()

	// Wait for the end: a signal, a failed strict load, or a listener that died (which
	// must stop the process rather than leave it running deaf).
	var runErr error
	loading := true
wait:
	for {
		select {
		case err := <-serveErr:
			runErr = fmt.Errorf("serving: %w", err)
			break wait
		case err := <-grpcLn.serveErr():
			runErr = fmt.Errorf("serving gRPC: %w", err)
			break wait
		case runErr = <-loadErr:
			loading = false
			if runErr != nil {
				break wait
			}
		case <-ctx.Done():
			break wait
		}
	}

	if ctx.Err() != nil {
		grpcLn.drain() // gRPC health answers NOT_SERVING as /ready answers 503
	}
	if err := drain(ctx, srv, cfg, serveErr, log); err != nil {
		runErr = fmt.Errorf("serving: %w", err)
	}
	// Long polls answer now rather than hold Shutdown for up to their whole wait.
	jobs.svc.EndWaits()
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if ctx.Err() != nil && runErr == nil {
		quiesce(shutdownCtx, ln, log)
	}
	var errs []error
	grpcStopped := make(chan error, 1)
	go func() { grpcStopped <- grpcLn.shutdown(shutdownCtx) }()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		errs = append(errs, fmt.Errorf("draining requests: %w", err))
	}
	if err := <-grpcStopped; err != nil {
		errs = append(errs, err)
	}
	if err := jobs.shutdown(shutdownCtx); err != nil {
		errs = append(errs, err)
	}
	stopLoading()
	if loading {
		// A load still running would put pipelines in the registry after Close.
		select {
		case <-loadErr:
		case <-shutdownCtx.Done():
		}
	}
	if err := ms.close(); err != nil {
		errs = append(errs, fmt.Errorf("closing pipelines: %w", err))
	}
	if err := p.stopTracing(); err != nil {
		errs = append(errs, err)
	}
	log.Info("stopped")
	return errors.Join(append([]error{runErr}, errs...)...)
}

// drain keeps serving for SHUTDOWN_DRAIN after a signal, with /ready answering 503 and
// every answer closing its connection, so that load balancers stop sending before the
// listener closes (Kubernetes updates endpoints a few seconds after SIGTERM). A stop
// for another reason (a failed strict load, a dead listener) does not wait.
func drain(ctx context.Context, srv *httpapi.Server, cfg config.Config, serveErr <-chan error, log *slog.Logger) error {
	if ctx.Err() == nil {
		return nil
	}
	// Even with no drain, the answers sent while quiesce waits close their connections.
	srv.Drain()
	if cfg.ShutdownDrain <= 0 {
		return nil
	}
	log.Info("draining: /ready answers 503 until the listener closes", "drain", cfg.ShutdownDrain)
	t := time.NewTimer(cfg.ShutdownDrain)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case err := <-serveErr:
		return err
	}
}

// quiesce makes the kernel refuse new connections and serves those it had already
// taken before the listener closes: closing it with connections in its queue resets
// them, and net/http's Shutdown drops a request it reads after it began. Past the
// drain, a client is either served in full or refused, and a refused one sent nothing.
func quiesce(ctx context.Context, ln *listen.Listener, log *slog.Logger) {
	start := time.Now()
	if err := ln.Quiesce(ctx); err != nil {
		log.Warn("closing the listener without refusing new connections first: connections still in the kernel's queue are reset", "error", err)
		return
	}
	log.Info("new connections refused; closing the listener", "waited", time.Since(start))
}

// load loads every pipeline. With LOAD_STRICT a version that failed is fatal: the
// process stops rather than serve without it.
func load(ctx context.Context, ms *models, cfg config.Config, log *slog.Logger) error {
	start := time.Now()
	// ONNX Runtime's own start-up (loading the library, its first session) takes tens
	// of MB; done here, it is not charged to whichever model happens to load first.
	// Without the library only ONNX versions fail, each saying why.
	if err := ms.onnx.Init(); err != nil {
		log.Warn("ONNX Runtime is not available: ONNX models will fail to load", "error", err)
	}
	reg := ms.reg
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
// repository (a bucket, or a polled directory) is discovered by load instead, after
// its first sync, which may take a while: the process listens meanwhile.
func newRegistry(ctx context.Context, cfg config.Config, obs *metrics.Metrics, log *slog.Logger, extra []registry.Source, tracer trace.Tracer) (*models, error) {
	rt := onnx.New(onnx.Options{Library: cfg.ONNXRuntimeLib})
	// The runtimes a model.yaml may name, in the order errors list them: a new runtime
	// is its package and one line here.
	backends := backend.Catalogue{
		onnx.NewBackend(rt),
		xgboost.Backend{},
		echo.Backend{},
	}
	builtin := builtins()
	ms := &models{onnx: rt, dir: cfg.ModelsDir}
	if cfg.Synced() {
		sy, err := openMirror(ctx, cfg, obs, log)
		if err != nil {
			return nil, err
		}
		ms.sync, ms.dir = sy, sy.mirror.Dir()
	}
	graphs := &repository.Graphs{Tracer: tracer, Steps: obs}
	var repo registry.Source = repository.New(repository.Options{Dir: ms.dir, Backends: backends, Reserved: names(builtin), MaxModelBytes: cfg.MaxModelBytes, Graphs: graphs})
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
	ms.reg = reg
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

// models is the registry, the runtimes its pipelines share, and the repository they
// load from.
type models struct {
	reg  *registry.Registry
	onnx *onnx.Runtime
	// dir is the directory the repository's models load from: MODELS_DIR, or the
	// copy of a synced repository.
	dir string
	// sync keeps a synced repository's copy in step with its store; nil for a
	// directory read as it is.
	sync *synced
}

// close stops the repository's polls, before the registry closes: a poll's load after
// that would leave a pipeline open.
func (ms *models) close() error {
	ms.sync.close()
	return ms.reg.Close()
}

// predictor is what runs a job's prediction: on a worker of a synced repository, one
// that syncs when the job names a version not held yet.
func (ms *models) predictor(log *slog.Logger) job.Predictor {
	if ms.sync == nil {
		return predictor{ms.reg}
	}
	return syncingPredictor{predictor: predictor{ms.reg}, syncer: ms.sync.syncer, log: log}
}

func queueMode(cfg config.Config) string {
	if cfg.QueueURL == "" {
		return "in-process"
	}
	return "redis"
}
