package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/telemetry"
)

// Runner is the job.Runner of queue mode: it puts jobs on an asynq queue for Workers.
// It is safe for concurrent use. It does not own the Redis client: the caller closes it.
type Runner struct {
	opts   TaskOptions
	rc     redis.UniversalClient
	client *asynq.Client
	insp   *asynq.Inspector
}

var _ job.Runner = (*Runner)(nil)

// NewRunner returns a Runner that enqueues through rc.
func NewRunner(rc redis.UniversalClient, opts TaskOptions) *Runner {
	return &Runner{
		opts:   opts.withDefaults(),
		rc:     rc,
		client: asynq.NewClientFromRedisClient(rc),
		insp:   asynq.NewInspectorFromRedisClient(rc),
	}
}

// Enqueue puts the job on the queue under its own id as TaskID. Enqueueing a job whose
// task is already queued or running succeeds, so a repeated Enqueue cannot run it twice
// at once.
func (r *Runner) Enqueue(ctx context.Context, rec job.Record) error {
	_, err := r.enqueue(ctx, rec.ID, 0, telemetry.Inject(ctx), rec.Priority)
	return err
}

// enqueue reports whether it made a task; false with a nil error means the task was
// there already.
func (r *Runner) enqueue(ctx context.Context, jobID string, recovery int, trace telemetry.Carrier, p job.Priority) (bool, error) {
	task, opts := r.opts.newTaskAt(jobID, recovery, trace, p)
	_, err := r.client.EnqueueContext(ctx, task, opts...)
	switch {
	case err == nil:
		// The job is queued whatever becomes of the announcement: an idle worker
		// finds it at its next poll if this one is lost.
		_ = r.announce(ctx, r.opts.queueAt(jobID, p), jobID)
		return true, nil
	case errors.Is(err, asynq.ErrTaskIDConflict):
		return false, nil
	default:
		return false, fmt.Errorf("%w: enqueueing job %s: %w", job.ErrQueueUnavailable, jobID, err)
	}
}

// Abandon drops a cancelled job's tasks from the queue and signals the worker running
// one, if any, to stop. A signalled task goes to retry (asynq does that to every
// cancelled task); its redelivery finds the record cancelled and ends at once.
func (r *Runner) Abandon(_ context.Context, id string) error {
	var errs []error
	for n := 0; n <= r.opts.MaxRecoveries; n++ {
		tid := taskID(id, n)
		// The job's priority is not known here: its task is on one of its shard's
		// queues.
		var err error
		for _, p := range job.Priorities {
			err = r.insp.DeleteTask(r.opts.queueAt(id, p), tid)
			if err == nil || !errors.Is(err, asynq.ErrTaskNotFound) && !errors.Is(err, asynq.ErrQueueNotFound) {
				break
			}
		}
		if err == nil || errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		// DeleteTask refuses an active task, with no error to tell that apart from a
		// lost connection; a failed publish below tells the second.
		if err := r.insp.CancelProcessing(tid); err != nil {
			errs = append(errs, fmt.Errorf("task %s: %w", tid, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: abandoning job %s: %w", job.ErrQueueUnavailable, id, errors.Join(errs...))
	}
	return nil
}

// allQueuesKey is the Redis set in which asynq lists the queues it knows (its
// base.AllQueues, internal to asynq).
const allQueuesKey = "asynq:queues"

// announce tells idle workers of queue that it has a task: on the queue's sharded
// channel in Redis Cluster, where a plain PUBLISH would reach every node.
func (r *Runner) announce(ctx context.Context, queue, jobID string) error {
	ch := wakeChannel(queue, r.opts.Cluster)
	if r.opts.Cluster {
		return r.rc.SPublish(ctx, ch, jobID).Err()
	}
	return r.rc.Publish(ctx, ch, jobID).Err()
}

// Register lists the queue (each shard's) in Redis as asynq does on its first enqueue. asynq's client
// does that once per process, so after Redis restarts empty a queue that gets tasks
// again stays unlisted: the inspector reports it not found (inferd_jobs_queued reads 0,
// the dashboard shows no queue, and the recoverer finds no orphans). Callers repeat
// Register every few seconds; it is one idempotent SADD.
func (r *Runner) Register(ctx context.Context) error {
	names := r.Queues()
	members := make([]any, len(names))
	for i, n := range names {
		members[i] = n
	}
	if err := r.rc.SAdd(ctx, allQueuesKey, members...).Err(); err != nil {
		return fmt.Errorf("%w: listing queue %s: %w", job.ErrQueueUnavailable, r.opts.Queue, err)
	}
	return nil
}

// KeepRegistered calls Register now and every interval until ctx ends.
func (r *Runner) KeepRegistered(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		_ = r.Register(ctx) // Redis away: the next tick tries again
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Inspector returns the asynq inspector of the queue, for metrics and asynqmon.
func (r *Runner) Inspector() *asynq.Inspector { return r.insp }

// Queue returns the asynq queue name the Runner uses, that of its first shard when it
// has several.
func (r *Runner) Queue() string { return r.Queues()[0] }

// Queues returns the asynq queues of every shard and priority (TaskOptions.Queues).
func (r *Runner) Queues() []string { return r.opts.Queues() }
