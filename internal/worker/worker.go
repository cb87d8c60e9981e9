package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/daemon"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/queue"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/problem"
)

// Command is inferd-worker, the queue worker.
func Command() daemon.Command {
	return daemon.Command{
		Name: "inferd-worker",
		About: "inferd-worker runs the asynchronous jobs that inferd servers put on the Redis queue " +
			"of QUEUE_URL, with the same settings and model repository as the server, and serves " +
			"/health, /ready and /metrics. It runs until SIGTERM or an interrupt.",
		Run:  Run,
		Addr: func(c config.Config) string { return c.WorkerListenAddr },
	}
}

// Run runs an inferd-worker until ctx ends. It loads the same pipelines as the
// server, then takes jobs from the Redis queue, and serves /health, /ready and
// /metrics on WORKER_PORT. On shutdown it stops taking jobs, lets running ones finish
// within SHUTDOWN_TIMEOUT and puts the rest back in the queue for another worker.
func Run(ctx context.Context, opts daemon.Options) error {
	if opts.Config.QueueURL == "" {
		return errors.New("inferd-worker needs QUEUE_URL (redis://host:port/db): without it the server runs jobs itself")
	}
	p, err := daemon.Start(ctx, opts, "inferd-worker")
	if err != nil {
		return err
	}
	err = run(ctx, opts, p)
	// Last, so that the spans of the jobs that ran until the end are exported.
	return errors.Join(err, p.StopTracing())
}

// run is Run once tracing has started.
func run(ctx context.Context, opts daemon.Options, p *daemon.Process) error {
	cfg, log, promReg, m, ms, reg := p.Config, p.Log, p.Prometheus, p.Metrics, p.Models, p.Models.Registry
	defer ms.StopPolls() // on every way out; the paths below close it before the registry
	// SIGHUP re-reads the servers' keys; sent to every inferd process of a pod, it must
	// not stop a worker, which has none.
	hupCtx, stopHup := context.WithCancel(ctx)
	var hup sync.WaitGroup
	defer func() { stopHup(); hup.Wait() }()
	hup.Go(func() {
		for {
			select {
			case <-hupCtx.Done():
				return
			case <-opts.Reload:
				log.Info("SIGHUP: inferd-worker authenticates nobody and holds no API keys; there is nothing to re-read")
			}
		}
	})
	rc, conn, err := daemon.RedisClient(cfg, log)
	if err != nil {
		return err
	}
	defer rc.Close()

	tasks := daemon.TaskOptions(cfg, conn)
	store := redisstore.New(rc, redisstore.Options{TTL: cfg.JobTTL, MaxAge: cfg.JobMaxAge, Shards: tasks.Sharding()})
	exec := &job.Executor{
		Store:     store,
		Predictor: ms.WorkerPredictor(log),
		Observer:  m,
		Tracer:    p.Tracing.Tracer,
		// As the server caps a prediction's answer: a record is read whole.
		MaxResultBytes: cfg.MaxResponseBytes,
		Code:           problem.JobCode,
	}
	var redisUp, taking, stopping atomic.Bool
	w := queue.NewWorker(rc, exec, queue.WorkerOptions{
		Tasks:           tasks,
		Concurrency:     cfg.WorkerConcurrency,
		ShutdownTimeout: cfg.ShutdownTimeout,
		HealthCheck: func(err error) {
			if redisUp.Swap(err == nil) != (err == nil) {
				log.Info("queue connection changed", "up", err == nil, "error", err)
			}
		},
		PlainAsynq: !queue.LayoutKnown(daemon.PlainAsynq(log, m)),
		FellBack:   func() { m.PlainAsynq("dequeue_unrecognised") },
		Logger:     log,
	})

	hs := &http.Server{
		Handler: workerMux(promReg, func() string {
			switch {
			case stopping.Load():
				return "stopping"
			case reg.Ready() && !cfg.ReadyAllowFailed && reg.FailedAtStart():
				return "failed" // as the server's /ready says it, strict readiness
			case reg.Ready() && taking.Load() && redisUp.Load():
				return "ready"
			}
			return "loading"
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	serveErr, _, err := p.Serve(opts, hs, cfg.WorkerListenAddr, nil, "worker listening")
	if err != nil {
		return err
	}

	// Jobs are taken only once every pipeline has loaded: a job taken earlier would
	// fail with "model loading" instead of waiting in the queue for a worker that can
	// run it.
	if err := ms.Load(ctx, cfg, log); err != nil {
		return errors.Join(err, hs.Close(), ms.Close())
	}
	// asynq's Start does not touch Redis (it fails only when misused), and its workers
	// reconnect by themselves, so there is nothing to retry here. The health check
	// reports Redis only every 5 s: ping now, so /ready does not claim a Redis that is
	// down.
	if ctx.Err() == nil { // a SIGTERM during the load: take no job at all
		if err := w.Start(); err != nil {
			return errors.Join(err, hs.Close(), ms.Close())
		}
		redisUp.Store(w.Ping() == nil)
		taking.Store(true)
		// Workers post the callbacks of every job, whichever process finished it.
		stopHooks := p.Callbacks.Dispatch(cfg, store, store, m, log)
		defer stopHooks()
		log.Info("worker taking jobs", "concurrency", w.Concurrency())
	}

	select {
	case err := <-serveErr:
		w.Shutdown()
		return errors.Join(fmt.Errorf("serving: %w", err), ms.Close())
	case <-ctx.Done():
	}
	log.Info("worker shutting down", "timeout", cfg.ShutdownTimeout)
	taking.Store(false)
	stopping.Store(true)
	w.Shutdown() // blocks up to ShutdownTimeout, then re-queues what still runs
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs := []error{hs.Shutdown(shutdownCtx), ms.Close()}
	log.Info("worker stopped")
	return errors.Join(errs...)
}

// workerMux serves the worker's probes and metrics, state saying what /ready answers
// (200 for ready, else 503). They are not part of the API contract: the worker has no
// API.
func workerMux(gatherer prometheus.Gatherer, state func() string) http.Handler {
	mux := http.NewServeMux()
	status := func(w http.ResponseWriter, code int, s string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"status":%q}`+"\n", s)
	}
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { status(w, http.StatusOK, "ok") })
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) {
		s := state()
		if s == "ready" {
			status(w, http.StatusOK, s)
			return
		}
		w.Header().Set("Retry-After", "1")
		status(w, http.StatusServiceUnavailable, s)
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	return mux
}
