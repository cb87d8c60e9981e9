package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/daemon"
	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/keywatch"
	"github.com/inferd/inferd/internal/listen"
)

// Options are what Run needs besides the Config: daemon.Options, which the worker
// starts from too.
type Options = daemon.Options

// ServerCommand is inferd, the API server.
func ServerCommand() daemon.Command {
	return daemon.Command{
		Name: "inferd",
		About: "inferd serves the models of MODELS_DIR and the built-in echo model over HTTP, " +
			"as openapi.yaml describes (it serves the contract at /openapi.yaml and /docs). " +
			"It runs until SIGTERM or an interrupt, then drains requests and jobs; SIGHUP re-reads API_KEYS_FILE " +
			"(which it also re-reads every KEYS_RELOAD_INTERVAL).",
		Run:       Run,
		Addr:      func(c config.Config) string { return c.ListenAddr },
		NeedsKeys: true,
	}
}

// Run serves until ctx ends, then shuts down gracefully: it stops accepting
// connections, lets in-flight requests and queued in-process jobs finish within
// SHUTDOWN_TIMEOUT, and closes every pipeline. It returns nil after a clean shutdown.
func Run(ctx context.Context, opts Options) error {
	if opts.Config.Keys == nil {
		return errors.New("no API keys configured")
	}
	p, err := daemon.Start(ctx, opts, "inferd")
	if err != nil {
		return err
	}
	cfg, log, promReg, m, ms, reg := p.Config, p.Log, p.Prometheus, p.Metrics, p.Models, p.Models.Registry
	defer ms.StopPolls() // on every way out; the paths below close it before the registry
	if cfg.Keys.IsDev() {
		log.Warn("API_KEYS is not set: the built-in development keys dev-key and admin-key are active; never use them in production")
	}

	jobs, err := newJobs(cfg, reg, m, promReg, log, p.Tracing.Tracer, p.Callbacks)
	if err != nil {
		return errors.Join(err, p.StopTracing())
	}
	// Until it serves, a failure must still stop the job workers and close Redis.
	abort := func(err error) error {
		return errors.Join(err, jobs.shutdown(context.Background()), ms.Close(), p.StopTracing())
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
		PublicURL:      cfg.PublicURL, CORSAllowedOrigins: cfg.CORSAllowedOrigins, ModelsDir: ms.Dir,
		ReadyAllowFailed: cfg.ReadyAllowFailed,
		Tracer:           p.Tracing.Tracer, TracerProvider: p.Tracing.Provider,
		Callbacks: p.Callbacks.Allow,
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
	serveErr, ln, err := p.Serve(opts, hs, cfg.ListenAddr, wrap, "listening", "queue", queueMode(cfg))
	if err != nil {
		return abort(err)
	}
	grpcLn, err := serveGRPC(p, opts, srv)
	if err != nil {
		return abort(errors.Join(err, hs.Close()))
	}

	loadCtx, stopLoading := context.WithCancel(ctx)
	defer stopLoading()
	loadErr := make(chan error, 1)
	go func() { loadErr <- ms.Load(loadCtx, cfg, log) }()

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
	if err := ms.Close(); err != nil {
		errs = append(errs, fmt.Errorf("closing pipelines: %w", err))
	}
	if err := p.StopTracing(); err != nil {
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

func queueMode(cfg config.Config) string {
	if cfg.QueueURL == "" {
		return "in-process"
	}
	return "redis"
}
