package job

import (
	"context"
	"fmt"
	"time"
)

// WorkerLost records on a job's record that the worker running it stopped: lostAt is
// when that worker was last heard from, retryAt when the job is queued again for
// another worker (zero when it is not to be: its recoveries are spent). What a client
// polls then says why a job reads running with nothing running it, and when that
// ends. The fields stay once the job runs again, the story of its last loss; a later
// loss replaces them.
//
// A record that holds this loss or a later one (lostAt is not after its own) or has
// finished is left as it is, so every worker's recoverer may report a loss on every
// pass, and a stale report of an earlier one changes nothing; wrote says whether this
// call changed the record.
func (e *Executor) WorkerLost(ctx context.Context, id string, lostAt, retryAt time.Time) (wrote bool, err error) {
	_, err = e.Store.Update(ctx, id, func(r *Record) error {
		if r.Status.Final() || !lostAt.After(r.WorkerLostAt) {
			return errNoChange
		}
		r.WorkerLostAt, r.RetryAt = lostAt, retryAt
		return nil
	})
	switch {
	case gone(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("recording the lost worker of job %s: %w", id, err)
	}
	return true, nil
}

// WorkerFound takes back WorkerLost(lostAt) when the worker turned out to be running
// the job after all (it renewed its hold late): a record that holds another loss, or
// has finished, is left as it is.
func (e *Executor) WorkerFound(ctx context.Context, id string, lostAt time.Time) (wrote bool, err error) {
	_, err = e.Store.Update(ctx, id, func(r *Record) error {
		if r.Status.Final() || !r.WorkerLostAt.Equal(lostAt) {
			return errNoChange
		}
		r.WorkerLostAt, r.RetryAt = time.Time{}, time.Time{}
		return nil
	})
	switch {
	case gone(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("taking back the lost worker of job %s: %w", id, err)
	}
	return true, nil
}
