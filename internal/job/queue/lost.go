package queue

import (
	"context"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// asynq v0.26.0 holds a task under a lease of asynqLease, which the heartbeat of the
// worker running it renews every 5 s (neither is configurable). A lease not renewed
// for leaseStale has missed three beats: its worker has stopped, or lost Redis, and
// unless it comes back within the lease the recoverer queues the job again once the
// lease ends.
const (
	asynqLease = 30 * time.Second
	leaseStale = 15 * time.Second
)

// leaseKey is asynq v0.26.0's sorted set of a queue's active task ids, each scored by
// the Unix second its lease ends.
func leaseKey(queue string) string { return "asynq:{" + queue + "}:lease" }

// staleLeases reads the lease ends of queue's tasks whose lease has not been renewed
// for leaseStale, expired ones included, by task id; nil under plain asynq, whose
// layout inferd does not know.
func (w *Worker) staleLeases(ctx context.Context, queue string) (map[string]time.Time, error) {
	if w.opts.PlainAsynq {
		return nil, nil
	}
	max := time.Now().Add(asynqLease - leaseStale).Unix()
	zs, err := w.rc.ZRangeByScoreWithScores(ctx, leaseKey(queue), &redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(max, 10)}).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(zs))
	for _, z := range zs {
		if id, ok := z.Member.(string); ok {
			out[id] = time.Unix(int64(z.Score), 0)
		}
	}
	return out, nil
}

// taskRef names a task on its queue.
type taskRef struct{ queue, id string }

// lostMark is a loss this worker recorded on a job whose task's lease had gone stale:
// taken back if the lease is renewed after all.
type lostMark struct {
	jobID  string
	lostAt time.Time
}

// reportLost records on the job of t, whose lease ends at end unrenewed, that its
// worker is lost: last heard from when it last renewed the lease (end - asynqLease),
// and queued again at end, unless its recoveries are spent.
func (w *Worker) reportLost(ctx context.Context, queue string, t *asynq.TaskInfo, end time.Time) {
	p, err := decodePayload(t.Payload)
	if err != nil {
		return // not ours
	}
	lostAt := end.Add(-asynqLease)
	key := taskRef{queue, t.ID}
	w.lostMu.Lock()
	mark, seen := w.lost[key]
	w.lostMu.Unlock()
	if seen && mark.lostAt.Equal(lostAt) {
		return // reported on an earlier pass
	}
	retryAt := end
	if p.Recovery+1 > w.opts.Tasks.MaxRecoveries {
		retryAt = time.Time{} // failed when the lease ends
	}
	wrote, err := w.exec.WorkerLost(ctx, p.JobID, lostAt, retryAt)
	if err != nil {
		w.log.Warn("recording a job's lost worker", "job_id", p.JobID, "error", err)
		return
	}
	w.lostMu.Lock()
	w.lost[key] = lostMark{jobID: p.JobID, lostAt: lostAt}
	w.lostMu.Unlock()
	if wrote {
		w.log.Info("the worker running a job stopped renewing its lease; the job runs again when the lease ends",
			"job_id", p.JobID, "task_id", t.ID, "lost_at", lostAt, "retry_at", retryAt)
	}
}

// settleMarks forgets the marks of queue's tasks that are no longer active, and takes
// back those whose task is active with a lease renewed since (active but not stale):
// their worker was slow, not gone.
func (w *Worker) settleMarks(ctx context.Context, queue string, active map[string]bool, stale map[string]time.Time) {
	w.lostMu.Lock()
	var found []lostMark
	for key, mark := range w.lost {
		if key.queue != queue {
			continue
		}
		if _, still := stale[key.id]; still {
			continue
		}
		delete(w.lost, key)
		if active[key.id] {
			found = append(found, mark)
		}
	}
	w.lostMu.Unlock()
	for _, mark := range found {
		if wrote, err := w.exec.WorkerFound(ctx, mark.jobID, mark.lostAt); err != nil {
			w.log.Warn("taking back a job's lost worker", "job_id", mark.jobID, "error", err)
		} else if wrote {
			w.log.Info("the worker running a job renewed its lease after all", "job_id", mark.jobID)
		}
	}
}
