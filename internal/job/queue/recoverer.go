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
// replace one that died, and then every RecoverInterval, or sooner when a lease it
// found unrenewed ends sooner: the job whose record says it is queued again at the
// lease's end is.
func (w *Worker) recoverLoop() {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-w.stopRecover:
			return
		case <-t.C:
		}
		next, err := w.recoverOrphans(context.Background())
		if err != nil {
			w.log.Warn("looking for jobs of dead workers", "error", err)
		}
		wait := w.opts.RecoverInterval
		if !next.IsZero() {
			// asynq counts a lease ended from its second on.
			wait = min(wait, max(time.Until(next)+50*time.Millisecond, 0))
		}
		t.Reset(wait)
	}
}

// recoverOrphans re-enqueues the jobs whose task is active but whose lease has ended:
// their worker died or lost Redis for 30 s. Every worker does this; the derived TaskID
// makes a second worker's re-enqueue of the same orphan a no-op. A job whose lease has
// gone unrenewed without ending yet is reported lost on its record (reportLost). next
// is the earliest end of such a lease, zero when there is none.
func (w *Worker) recoverOrphans(ctx context.Context) (next time.Time, err error) {
	// A queue Redis lost (a restart without persistence) is listed again, or its
	// orphans would wait for asynq's own, slower recovery.
	if err := w.runner.Register(ctx); err != nil {
		return time.Time{}, err
	}
	var errs []error
	for _, q := range w.runner.Queues() {
		end, err := w.recoverQueue(ctx, q)
		if err != nil {
			errs = append(errs, err)
		}
		if !end.IsZero() && (next.IsZero() || end.Before(next)) {
			next = end
		}
	}
	return next, errors.Join(errs...)
}

// recoverQueue is recoverOrphans on one shard's queue.
func (w *Worker) recoverQueue(ctx context.Context, queue string) (next time.Time, err error) {
	stale, err := w.staleLeases(ctx, queue)
	if err != nil {
		return time.Time{}, err
	}
	insp := w.runner.Inspector()
	active := map[string]bool{}
	for page := 1; ; page++ {
		tasks, err := insp.ListActiveTasks(queue, asynq.PageSize(recoverPageSize), asynq.Page(page))
		if errors.Is(err, asynq.ErrQueueNotFound) {
			return next, nil // nothing was ever enqueued
		}
		if err != nil {
			return next, err
		}
		for _, t := range tasks {
			active[t.ID] = true
			end, unrenewed := stale[t.ID]
			switch {
			case t.IsOrphaned:
				w.recoverOne(ctx, t, end)
			case unrenewed:
				w.reportLost(ctx, queue, t, end)
				if next.IsZero() || end.Before(next) {
					next = end
				}
			}
		}
		if len(tasks) < recoverPageSize {
			break
		}
	}
	w.settleMarks(ctx, queue, active, stale)
	return next, nil
}

// recoverOne re-enqueues an orphaned task's job, whose lease ended at end (zero when
// unknown), unless it has finished or its recoveries are spent. Its record says so
// first, if no recoverer's pass saw the lease go stale before it ended.
func (w *Worker) recoverOne(ctx context.Context, t *asynq.TaskInfo, end time.Time) {
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
		w.recordLost(ctx, p.JobID, end, time.Time{})
		w.fail(p.JobID, fmt.Sprintf("the workers running the job stopped %d times; it is not retried again", next))
		return
	}
	// Before the enqueue, so that the loss is never recorded after the next run began.
	w.recordLost(ctx, p.JobID, end, time.Now())
	created, err := w.runner.enqueue(ctx, p.JobID, next, p.Trace, rec.Priority)
	if err != nil {
		w.log.Warn("re-enqueueing an orphaned job", "job_id", p.JobID, "error", err)
		return
	}
	if created {
		w.log.Info("re-enqueued a job whose worker stopped", "job_id", p.JobID, "task_id", t.ID, "recovery", next)
	}
}

// recordLost records the loss of the worker whose lease on the job ended at end, with
// retryAt, unless the record holds it already; an end not known records nothing.
func (w *Worker) recordLost(ctx context.Context, jobID string, end, retryAt time.Time) {
	if end.IsZero() {
		return
	}
	if _, err := w.exec.WorkerLost(ctx, jobID, end.Add(-asynqLease), retryAt); err != nil {
		w.log.Warn("recording a job's lost worker", "job_id", jobID, "error", err)
	}
}
