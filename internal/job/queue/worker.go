package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/telemetry"
)

// DefaultShutdownTimeout is the ShutdownTimeout of WorkerOptions that leave it 0 (and
// SHUTDOWN_TIMEOUT's default).
const DefaultShutdownTimeout = 30 * time.Second

// WorkerOptions configure a Worker. The zero value of each field is a documented
// default.
type WorkerOptions struct {
	// Tasks must match the Runners' options.
	Tasks TaskOptions
	// Concurrency is how many jobs run at once. 0 means 4 * runtime.NumCPU(): a job
	// waits on Redis for five round trips around a short model call, so a worker with
	// one job per CPU leaves them idle, while many more than that only contend (see
	// docs/design.md#worker-concurrency).
	Concurrency int
	// ShutdownTimeout is how long Shutdown lets running jobs finish before it puts them
	// back in the queue. 0 means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// PollInterval is how often an idle worker looks for a task that no Runner
	// announced (a retry due, an announcement lost). 0 means 50 ms, which costs Redis
	// one short script call per idle worker every 50 ms. Announced tasks start at once.
	PollInterval time.Duration
	// RetryCheckInterval is asynq's DelayedTaskCheckInterval: how often tasks waiting
	// for a retry are moved back to the queue. 0 means 1 s.
	RetryCheckInterval time.Duration
	// RecoverInterval is how often the worker looks for jobs whose worker died. 0 means
	// 5 s.
	RecoverInterval time.Duration
	// HealthCheck, when set, is called every 5 s with the outcome of a Redis ping, for
	// a readiness probe.
	HealthCheck func(error)
	// PlainAsynq runs asynq as it comes, for an asynq whose layout is not
	// LayoutVersion's: no dequeue is recognised and held, announcements are not
	// listened to, and an idle worker polls every PollInterval.
	PlainAsynq bool
	// FellBack, when set, is told once if the worker falls back to polling while it
	// runs: asynq's dequeue has stopped being recognised (see waker), which the ERROR
	// log line and this hook report.
	FellBack func()
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (o WorkerOptions) withDefaults() WorkerOptions {
	o.Tasks = o.Tasks.withDefaults()
	if o.Concurrency <= 0 {
		o.Concurrency = 4 * runtime.NumCPU()
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 50 * time.Millisecond
	}
	if o.RetryCheckInterval <= 0 {
		o.RetryCheckInterval = time.Second
	}
	if o.RecoverInterval <= 0 {
		o.RecoverInterval = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Worker takes jobs from the queue and runs them with a job.Executor. It does not own
// the Redis client: the caller closes it after Shutdown.
type Worker struct {
	exec   *job.Executor
	opts   WorkerOptions
	log    *slog.Logger
	srv    *asynq.Server
	runner *Runner // re-enqueues recovered jobs
	rc     redis.UniversalClient
	waker  *waker
	wakeup []*redis.PubSub // empty until Start

	stopRecover chan struct{}
	recovered   sync.WaitGroup
	shutdown    sync.Once

	lostMu sync.Mutex
	lost   map[taskRef]lostMark // the losses this worker's recoverer recorded (reportLost)
}

// NewWorker returns a Worker that runs jobs through exec, whose Store must be the
// one the API servers write (a redisstore.Store on the same Redis). It adds a hook to
// rc (see waker), so rc should be the worker's own.
func NewWorker(rc redis.UniversalClient, exec *job.Executor, opts WorkerOptions) *Worker {
	opts = opts.withDefaults()
	w := &Worker{
		exec:        exec,
		opts:        opts,
		log:         opts.Logger,
		runner:      NewRunner(rc, opts.Tasks),
		rc:          rc,
		stopRecover: make(chan struct{}),
		lost:        map[taskRef]lostMark{},
	}
	// The waker holds an empty dequeue for up to PollInterval; asynq's own sleep after
	// it is only a gap in which an announcement waits. Plain asynq sleeps the interval.
	check := time.Millisecond
	if opts.PlainAsynq {
		check = opts.PollInterval
	} else {
		w.waker = newWaker(w.runner.Queues(), opts.PollInterval, func() {
			w.log.Error("asynq's dequeue is no longer recognised: idle workers would poll Redis a thousand times a second, so this one now polls every poll interval; run the asynq version inferd was built for",
				"asynq", AsynqVersion(), "layout", LayoutVersion, "poll_interval", opts.PollInterval)
			if opts.FellBack != nil {
				opts.FellBack()
			}
		})
		rc.AddHook(w.waker)
	}
	// Every shard weighs the same; each priority its job.Priority.Weight: asynq asks
	// the queues in a weighted random order each time.
	queues := opts.Tasks.withDefaults().weights()
	w.srv = asynq.NewServerFromRedisClient(rc, asynq.Config{
		Concurrency:              opts.Concurrency,
		Queues:                   queues,
		TaskCheckInterval:        check,
		DelayedTaskCheckInterval: opts.RetryCheckInterval,
		RetryDelayFunc:           retryDelay,
		IsFailure:                isFailure,
		ErrorHandler:             asynq.ErrorHandlerFunc(w.handleError),
		ShutdownTimeout:          opts.ShutdownTimeout,
		HealthCheckFunc:          opts.HealthCheck,
		HealthCheckInterval:      5 * time.Second,
		Logger:                   asynqLogger{opts.Logger.With("component", "asynq")},
		// asynq logs every empty poll at debug level: 20 lines a second at our interval.
		LogLevel: asynq.InfoLevel,
	})
	return w
}

// Concurrency is how many jobs the worker runs at once: WorkerOptions.Concurrency,
// or its default when that is 0.
func (w *Worker) Concurrency() int { return w.opts.Concurrency }

// Start starts taking jobs, and the recoverer. It does not block.
func (w *Worker) Start() error {
	mux := asynq.NewServeMux()
	mux.Handle(TaskType, w)
	// Subscribed before the first dequeue, so no announcement falls in between. The
	// subscription connects and reconnects by itself, as asynq does.
	if w.waker != nil {
		ctx := context.Background()
		for _, q := range w.runner.Queues() {
			ch := wakeChannel(q, w.opts.Tasks.Cluster)
			// A sharded subscription names channels of one slot: one per shard.
			ps := w.rc.Subscribe
			if w.opts.Tasks.Cluster {
				ps = w.rc.SSubscribe
			}
			sub := ps(ctx, ch)
			w.wakeup = append(w.wakeup, sub)
			w.recovered.Go(func() { w.waker.listen(sub) })
		}
	}
	if err := w.srv.Start(mux); err != nil {
		w.stopWaking()
		return fmt.Errorf("starting the queue worker: %w", err)
	}
	w.recovered.Go(w.recoverLoop)
	return nil
}

// Shutdown stops taking jobs, waits up to ShutdownTimeout for running ones, and puts
// the jobs still running back in the queue. It blocks until then.
func (w *Worker) Shutdown() {
	w.shutdown.Do(func() {
		close(w.stopRecover)
		w.stopWaking() // a dequeue held for an announcement returns now
		w.recovered.Wait()
		w.srv.Shutdown()
	})
}

// stopWaking ends the waker's holds and its subscription.
func (w *Worker) stopWaking() {
	if w.waker != nil {
		w.waker.close()
	}
	for _, ps := range w.wakeup {
		_ = ps.Close()
	}
}

// Ping checks the worker's connection to Redis.
func (w *Worker) Ping() error { return w.srv.Ping() }

// ProcessTask runs one delivery of a job's task. It returns an error, so that asynq
// delivers the task again, only when the job's outcome could not be recorded and the
// job has not finished some other way.
func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := decodePayload(t.Payload())
	if err != nil {
		return fmt.Errorf("%w: %w", err, asynq.SkipRetry) // archived, for an operator to see
	}
	err = w.execute(telemetry.Extract(ctx, p.Trace), p)
	if err == nil {
		return nil
	}
	// A cancel, a timeout or another delivery may have finished the job while this one
	// failed to record its end; then there is nothing left to deliver again.
	if rec, gerr := w.exec.Store.Get(context.WithoutCancel(ctx), p.JobID); gerr == nil && rec.Status.Final() {
		return nil
	}
	w.log.Warn("job not recorded; it will be delivered again", "job_id", p.JobID, "error", err)
	return err
}

// execute runs the job from the record the task carries when it carries one that
// reads, else from the store's: a first delivery at once (ExecuteFresh), a later one,
// which has likely run, after checking and marking it (ExecuteFrom).
func (w *Worker) execute(ctx context.Context, p payload) error {
	if p.Record != nil {
		var held job.Record
		if err := json.Unmarshal(p.Record, &held); err == nil && held.ID == p.JobID {
			if firstDelivery(ctx, held) {
				return w.exec.ExecuteFresh(ctx, held)
			}
			return w.exec.ExecuteFrom(ctx, held)
		}
	}
	return w.exec.Execute(ctx, p.JobID)
}

// freshFor is how young a job's record must be for its task to count as a first
// delivery: half the shortest retry delay, so that clocks a little apart on the API
// server and the worker do not matter.
var freshFor = retryDelay(0, nil, nil) / 2

// firstDelivery tells a task's first delivery from a later one. asynq counts a retry
// after a failure, but not the redelivery of a task cancelled while it ran (its
// context error is no failure, see isFailure); that one, like every retry, comes at
// least retryDelay(0) after the job was created. A young job delivered again anyway
// (its worker stopped at once, or a cancel that raced the dequeue) runs again as
// ExecuteFresh runs it, which stops it if it is final by the time it is marked.
func firstDelivery(ctx context.Context, held job.Record) bool {
	retried, _ := asynq.GetRetryCount(ctx)
	return retried == 0 && time.Since(held.CreatedAt) < freshFor
}

// handleError runs before asynq schedules a failed task's retry or archives it. It
// fails a job that ran out of time, so the retry does not run it again from the start,
// and a job whose task is about to be archived, so its record does not stay running
// forever. It sees the deadline even when the handler ignores its context and never
// returns.
func (w *Worker) handleError(ctx context.Context, t *asynq.Task, err error) {
	if !isFailure(err) {
		return
	}
	p, perr := decodePayload(t.Payload())
	if perr != nil {
		w.log.Error("a task that is not a job failed", "error", perr)
		return
	}
	if errors.Is(err, context.DeadlineExceeded) {
		w.fail(p.JobID, fmt.Sprintf("the job did not finish within %s", w.opts.Tasks.Timeout))
		return
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	if retried >= maxRetry || errors.Is(err, asynq.SkipRetry) {
		w.fail(p.JobID, fmt.Sprintf("the job could not be run after %d attempts: %v", retried+1, err))
	}
}

// fail ends a job failed, unless it already ended. Errors are logged: callers have no
// one to report to.
func (w *Worker) fail(jobID, msg string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ended, err := w.exec.Fail(ctx, jobID, msg)
	switch {
	case err != nil:
		w.log.Error("could not fail job", "job_id", jobID, "reason", msg, "error", err)
	case ended:
		w.log.Warn("job failed", "job_id", jobID, "reason", msg)
	}
}

// retryDelay spaces redeliveries of a task whose outcome could not be recorded: 1 s,
// doubling, at most 30 s. asynq's default (n^4 + 15 s + jitter) suits calls to flaky
// third parties, not a job a client is polling for.
func retryDelay(n int, _ error, _ *asynq.Task) time.Duration {
	return min(time.Second<<min(n, 5), 30*time.Second)
}

// isFailure tells asynq which handler errors count against MaxRetry. A cancellation is
// not a failure: the job was cancelled, and its redelivery ends at once.
func isFailure(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled)
}
