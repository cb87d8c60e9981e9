package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	asynqmetrics "github.com/hibiken/asynq/x/metrics"
	"github.com/hibiken/asynqmon"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/daemon"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/inproc"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/job/queue"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/ratelimit"
	"github.com/inferd/inferd/internal/registry"
)

// jobs is how the server runs jobs: in this process, or on the Redis queue.
type jobs struct {
	svc *job.Service
	// ui is the queue dashboard, in queue mode only, and control its pause and resume.
	ui      http.Handler
	control job.QueueControl
	// limit shares the per-key rate limit between servers, in queue mode only (and
	// when RATE_LIMIT_RPS is not 0).
	limit admission.SharedLimiter
	// shutdown drains in-process jobs and releases connections.
	shutdown func(context.Context) error
}

func newJobs(cfg config.Config, reg *registry.Registry, m *metrics.Metrics, prom prometheus.Registerer, log *slog.Logger, tracer trace.Tracer, hooks daemon.Callbacks) (*jobs, error) {
	var js *jobs
	var err error
	if cfg.QueueURL == "" {
		js = inProcessJobs(cfg, reg, m, log, tracer, hooks)
	} else if js, err = queuedJobs(cfg, m, prom, log); err != nil {
		return nil, err
	}
	js.svc.Tracer = tracer
	return js, nil
}

// inProcessJobs runs jobs on a goroutine pool in this process.
// Callbacks are posted from this process too; in-process records, and so their
// callbacks, go with it.
func inProcessJobs(cfg config.Config, reg *registry.Registry, m *metrics.Metrics, log *slog.Logger, tracer trace.Tracer, hooks daemon.Callbacks) *jobs {
	waiters := &job.Waiters{}
	store := memstore.New(memstore.Options{TTL: cfg.JobTTL, MaxAge: cfg.JobMaxAge, IdempotencyTTL: cfg.IdempotencyTTL, MaxPerOwner: cfg.MaxJobsPerKey, MaxBytesPerOwner: cfg.MaxJobBytesPerKey, OnFinal: waiters.Finish})
	exec := &job.Executor{Store: store, Predictor: daemon.Predictor{Registry: reg}, Observer: m, Tracer: tracer, MaxResultBytes: cfg.MaxResponseBytes, Code: problem.JobCode}
	// Claimed per model, so that an unload lets the jobs accepted for it run first.
	runner := inproc.New(exec, inproc.Options{Workers: cfg.JobWorkers, QueueSize: cfg.JobQueueSize, Logger: log, Claim: reg.Claim})
	m.ObserveQueue(runner.Depth, runner.Running)
	m.ObserveWorkers(func() int { return 1 })
	m.ObserveWaits(waiters.Len)
	stopHooks := hooks.Dispatch(cfg, store, store, m, log)
	return &jobs{svc: &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: runner}, Waiters: waiters}, shutdown: func(ctx context.Context) error {
		err := runner.Shutdown(ctx)
		stopHooks() // after the jobs, whose final writes queue callbacks
		return err
	}}
}

// queuedJobs records jobs in Redis and queues them for inferd-worker processes. Redis
// need not be up: submissions answer queue_unavailable until it is, and the client
// reconnects by itself.
func queuedJobs(cfg config.Config, m *metrics.Metrics, prom prometheus.Registerer, log *slog.Logger) (*jobs, error) {
	rc, conn, err := daemon.RedisClient(cfg, log)
	if err != nil {
		return nil, err
	}
	m.JobsRunByWorkers()
	tasks := daemon.TaskOptions(cfg, conn)
	runner := queue.NewRunner(rc, tasks)
	insp := runner.Inspector()
	// Two of asynq's gauges are named like counters; promtool rejects that.
	queueMetrics := metrics.Renamed(asynqmetrics.NewQueueMetricsCollector(insp), map[string]string{
		"asynq_tasks_enqueued_total": "asynq_tasks_enqueued",
		"asynq_queue_paused_total":   "asynq_queue_paused",
	})
	if err := prom.Register(queueMetrics); err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("registering queue metrics: %w", err)
	}
	m.ObserveQueue(queueCount(insp, runner.Queues(), func(q *asynq.QueueInfo) int { return q.Pending + q.Scheduled + q.Retry }),
		queueCount(insp, runner.Queues(), func(q *asynq.QueueInfo) int { return q.Active }))
	m.ObserveWorkers(queueWorkers(insp, runner.Queue()))
	ui := asynqmon.New(asynqmon.Options{RootPath: "/admin/queues", RedisConnOpt: conn.AsynqOpt()})
	store := redisstore.New(rc, redisstore.Options{TTL: cfg.JobTTL, MaxAge: cfg.JobMaxAge, IdempotencyTTL: cfg.IdempotencyTTL, MaxPerOwner: cfg.MaxJobsPerKey, MaxBytesPerOwner: cfg.MaxJobBytesPerKey, Shards: tasks.Sharding()})
	var limit admission.SharedLimiter
	if cfg.RateLimitRPS > 0 {
		limit = ratelimit.NewRedis(rc, ratelimit.Options{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst})
	}
	// The queue is listed again within seconds of Redis coming back empty, so its
	// metrics and the dashboard see it before the next submission would.
	regCtx, stopRegistering := context.WithCancel(context.Background())
	registered := make(chan struct{})
	go func() { defer close(registered); runner.KeepRegistered(regCtx, queueRegisterInterval) }()
	// Long polls wait for the workers' final writes, heard on one subscription; one
	// for a job submitted here starts without reading the record.
	waiters := &job.Waiters{Track: trackedJobs}
	m.ObserveWaits(waiters.Len)
	finished := make(chan struct{})
	go func() { defer close(finished); store.Finished(regCtx, waiters) }()
	svc := &job.Service{Store: store, Submitter: queue.NewJobSubmitter(runner, store, daemon.PlainAsynq(log, m)), Waiters: waiters}
	if cfg.QueueMinReplicas > 0 {
		svc.Replicas = redisstore.NewReplicas(rc, redisstore.ReplicasOptions{Count: cfg.QueueMinReplicas, Timeout: cfg.QueueReplicaTimeout, Shards: tasks.Sharding()})
		// An idempotent submission is being accepted while it waits for the replicas:
		// a duplicate then is told to retry, one after the wait (its server died in
		// it) gets the job that was written.
		svc.AcceptTimeout = cfg.QueueReplicaTimeout + acceptSlack
	}
	return &jobs{
		svc:     svc,
		ui:      ui,
		control: queue.NewControl(insp),
		limit:   limit,
		shutdown: func(context.Context) error {
			stopRegistering()
			<-registered
			<-finished
			return errors.Join(ui.Close(), rc.Close())
		},
	}, nil
}

// trackedJobs is how many of the jobs it submitted a queue-mode server remembers as
// unfinished until it hears of their final records (job.Waiters.Track): a long poll
// for one of them starts without a read. A client polls its job moments after it
// submitted it; about 100 bytes each.
const trackedJobs = 10000

// queueRegisterInterval is how often the server lists its queue in Redis again.
const queueRegisterInterval = 5 * time.Second

// queueCount reads one figure of the queues (every shard's, summed) at scrape time; a
// queue Redis does not answer for counts 0.
func queueCount(insp *asynq.Inspector, names []string, f func(*asynq.QueueInfo) int) func() int {
	return func() int {
		n := 0
		for _, name := range names {
			if q, err := insp.GetQueueInfo(name); err == nil {
				n += f(q)
			}
		}
		return n
	}
}

// queueWorkers counts at scrape time the worker processes (asynq servers with a live
// heartbeat) that take jobs from queue; 0 while Redis is away.
func queueWorkers(insp *asynq.Inspector, queue string) func() int {
	return func() int {
		servers, err := insp.Servers()
		if err != nil {
			return 0
		}
		n := 0
		for _, s := range servers {
			if _, ok := s.Queues[queue]; ok && s.Status != "closed" {
				n++
			}
		}
		return n
	}
}

// acceptSlack is what an idempotent submission in queue mode may take past its
// replicas' wait before a duplicate is given its job: the answer's write, a slow
// scheduler.
const acceptSlack = time.Second
