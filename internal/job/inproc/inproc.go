package inproc

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/telemetry"
)

// DefaultQueueSize is the QueueSize of Options that leave it 0 (and JOB_QUEUE_SIZE's
// default).
const DefaultQueueSize = 1024

// Options configure a Runner. The zero value of each field is a documented default.
type Options struct {
	// Workers is how many jobs run at once. 0 means runtime.NumCPU().
	Workers int
	// QueueSize is how many jobs may wait; one more is refused with job.ErrQueueFull.
	// 0 means DefaultQueueSize.
	QueueSize int
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Claim, when set, is called with the model of each job queued, and what it
	// returns once the job has run, or been dropped unrun: the registry counts the jobs
	// accepted for each model so that an unload lets them run first
	// (registry.Registry.Claim).
	Claim func(model string) (release func())
}

// queued is a job waiting in the queue, with the trace context of its submission.
type queued struct {
	id      string
	trace   telemetry.Carried
	release func() // Options.Claim's; nil without one
}

// Runner is a job.Runner backed by a channel per priority and a worker pool. A
// worker takes a ticket from ready, one per job queued, then a job from the
// priorities' channels in job.PickOrder, as a queue-mode worker takes from asynq's
// weighted queues.
type Runner struct {
	exec   *job.Executor
	log    *slog.Logger
	claim  func(string) func()
	queues map[job.Priority]chan queued
	ready  chan struct{}
	depth  atomic.Int64
	size   int

	mu      sync.RWMutex // guards closed against sends on a closed queue
	closed  bool
	cancels sync.Map // job id -> context.CancelFunc of a running job

	ctx     context.Context // ends when Shutdown gives up waiting
	stop    context.CancelFunc
	wg      sync.WaitGroup
	running atomic.Int64
}

var _ job.Runner = (*Runner)(nil)

// New starts the worker pool.
func New(exec *job.Executor, opts Options) *Runner {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Runner{exec: exec, log: opts.Logger, claim: opts.Claim, ready: make(chan struct{}, opts.QueueSize), size: opts.QueueSize,
		queues: map[job.Priority]chan queued{}}
	for _, p := range job.Priorities {
		// Each as large as the whole queue, so a send never blocks: depth bounds them
		// together.
		r.queues[p] = make(chan queued, opts.QueueSize)
	}
	r.ctx, r.stop = context.WithCancel(context.Background())
	for range opts.Workers {
		r.wg.Add(1)
		go r.work()
	}
	return r
}

// Enqueue queues a job without blocking. The job's run joins the trace of ctx.
func (r *Runner) Enqueue(ctx context.Context, rec job.Record) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return job.ErrShuttingDown
	}
	if r.depth.Add(1) > int64(r.size) {
		r.depth.Add(-1)
		return fmt.Errorf("%w: %d jobs are waiting", job.ErrQueueFull, r.size)
	}
	q := queued{id: rec.ID, trace: telemetry.Carry(ctx)}
	if r.claim != nil {
		q.release = r.claim(rec.Model)
	}
	r.queues[rec.Priority.Or()] <- q
	r.ready <- struct{}{}
	return nil
}

// Abandon stops a running job. A queued one needs nothing: its record is cancelled, so
// the executor skips it when its turn comes.
func (r *Runner) Abandon(_ context.Context, id string) error {
	if cancel, ok := r.cancels.Load(id); ok {
		cancel.(context.CancelFunc)()
	}
	return nil
}

// Depth returns how many jobs wait in the queue.
func (r *Runner) Depth() int { return int(r.depth.Load()) }

// Running returns how many jobs run now.
func (r *Runner) Running() int { return int(r.running.Load()) }

// Shutdown stops taking jobs and waits for the queued and running ones to finish. When
// ctx ends first, the running jobs are interrupted and left unfinished (in this mode
// their records go with the process).
func (r *Runner) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.ready)
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		r.stop()
		<-done
		return fmt.Errorf("jobs interrupted after the shutdown timeout: %w", ctx.Err())
	}
}

func (r *Runner) work() {
	defer r.wg.Done()
	for range r.ready {
		q := r.take()
		if r.ctx.Err() == nil { // else the shutdown timed out: drain the queue without running it
			r.runOne(q.id, q.trace)
		}
		if q.release != nil {
			q.release()
		}
	}
}

// take returns the next job, for a worker holding a ready ticket: each ticket was sent
// after its job, so one is there, though another worker may take the one this one saw
// first.
func (r *Runner) take() queued {
	for {
		for _, p := range job.PickOrder() {
			select {
			case q := <-r.queues[p]:
				r.depth.Add(-1)
				return q
			default:
			}
		}
	}
}

func (r *Runner) runOne(id string, trace telemetry.Carried) {
	ctx, cancel := context.WithCancel(trace.Into(r.ctx))
	defer cancel()
	r.cancels.Store(id, cancel)
	defer r.cancels.Delete(id)
	r.running.Add(1)
	defer r.running.Add(-1)
	err := r.exec.Execute(ctx, id)
	switch {
	case err == nil:
	case ctx.Err() != nil && r.ctx.Err() == nil:
		// Abandon stopped it: the record already says cancelled.
		r.log.Debug("cancelled job stopped", "job_id", id)
	default:
		r.log.Error("job not recorded", "job_id", id, "error", err)
	}
}
