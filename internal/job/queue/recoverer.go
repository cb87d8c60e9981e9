package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/inferd/inferd/internal/job"
)

// recoverPageSize is how many active tasks one inspector call lists.
const recoverPageSize = 100

// recoverLoop looks for orphaned jobs at start, since a worker is often started to
// replace one that died, and then every RecoverInterval.
func (w *Worker) recoverLoop() {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-w.stopRecover:
			return
		case <-t.C:
		}
		if err := w.recoverOrphans(context.Background()); err != nil {
			w.log.Warn("looking for jobs of dead workers", "error", err)
		}
		t.Reset(w.opts.RecoverInterval)
	}
}

// recoverOrphans re-enqueues the jobs whose task is active but whose lease has ended:
// their worker died or lost Redis for 30 s. Every worker does this; the derived TaskID
// makes a second worker's re-enqueue of the same orphan a no-op.
func (w *Worker) recoverOrphans(ctx context.Context) error {
	// A queue Redis lost (a restart without persistence) is listed again, or its
	// orphans would wait for asynq's own, slower recovery.
	if err := w.runner.Register(ctx); err != nil {
		return err
	}
	var errs []error
	for _, q := range w.runner.Queues() {
		if err := w.recoverQueue(ctx, q); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// recoverQueue is recoverOrphans on one shard's queue.
func (w *Worker) recoverQueue(ctx context.Context, queue string) error {
	insp := w.runner.Inspector()
	for page := 1; ; page++ {
		tasks, err := insp.ListActiveTasks(queue, asynq.PageSize(recoverPageSize), asynq.Page(page))
		if errors.Is(err, asynq.ErrQueueNotFound) {
			return nil // nothing was ever enqueued
		}
		if err != nil {
			return err
		}
		for _, t := range tasks {
			if t.IsOrphaned {
				w.recoverOne(ctx, t)
			}
		}
		if len(tasks) < recoverPageSize {
			return nil
		}
	}
}

func (w *Worker) recoverOne(ctx context.Context, t *asynq.TaskInfo) {
	p, err := decodePayload(t.Payload)
	if err != nil {
		return // not ours; asynq's recoverer will retry it and the handler archive it
	}
	rec, err := w.exec.Store.Get(ctx, p.JobID)
	switch {
	case errors.Is(err, job.ErrNotFound):
		return
	case err != nil:
		w.log.Warn("reading an orphaned job", "job_id", p.JobID, "error", err)
		return
	case rec.Status.Final():
		// Already run by another delivery; asynq's recoverer retires the orphan later
		// and its redelivery does nothing.
		return
	}
	next := p.Recovery + 1
	if next > w.opts.Tasks.MaxRecoveries {
		w.fail(p.JobID, fmt.Sprintf("the workers running the job stopped %d times; it is not retried again", next))
		return
	}
	created, err := w.runner.enqueue(ctx, p.JobID, next, p.Trace, rec.Priority)
	if err != nil {
		w.log.Warn("re-enqueueing an orphaned job", "job_id", p.JobID, "error", err)
		return
	}
	if created {
		w.log.Info("re-enqueued a job whose worker stopped", "job_id", p.JobID, "task_id", t.ID, "recovery", next)
	}
}
