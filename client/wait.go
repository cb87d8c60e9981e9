package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// WaitOptions tunes WaitJob. The zero value polls at once, again after 50 ms, then
// doubles the delay up to 2 s.
type WaitOptions struct {
	Initial time.Duration // the delay after the first poll; default 50 ms
	Max     time.Duration // the cap of the delay; default 2 s
	// Progress, when set, is called with every record polled (for a progress display).
	Progress func(*JobRecord)
}

// WaitJob polls a job (GET /predict/async/{job_id}) until it has finished, waiting
// between polls with capped exponential backoff. A succeeded job's record comes back
// with a nil error; a failed or cancelled one with a *JobError carrying the record.
// While the server answers 429 or 503 (rate limited, queue unreachable, shutting
// down), WaitJob waits at least its Retry-After and polls again; any other error ends
// the wait. When ctx ends first, the last record seen (or nil) is returned with an
// error wrapping ctx.Err().
func (c *Client) WaitJob(ctx context.Context, id string, opts WaitOptions) (*JobRecord, error) {
	delay, maxDelay := opts.Initial, opts.Max
	if delay <= 0 {
		delay = 50 * time.Millisecond
	}
	if maxDelay <= 0 {
		maxDelay = 2 * time.Second
	}
	delay = min(delay, maxDelay)
	var last *JobRecord
	timer := time.NewTimer(time.Hour) // reset before each wait
	defer timer.Stop()
	for {
		wait := delay
		rec, err := c.PollJob(ctx, id)
		var e *Error
		switch {
		case err == nil:
			last = rec
			if opts.Progress != nil {
				opts.Progress(rec)
			}
			switch rec.Status {
			case JobSucceeded:
				return rec, nil
			case JobFailed, JobCancelled:
				return rec, &JobError{Record: rec}
			}
		case errors.As(err, &e) && (e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable):
			wait = max(wait, e.RetryAfter)
		case ctx.Err() != nil:
			return last, fmt.Errorf("inferd: waiting for job %s: %w", id, ctx.Err())
		default:
			return last, err
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("inferd: waiting for job %s: %w", id, ctx.Err())
		case <-timer.C:
		}
		delay = min(2*delay, maxDelay)
	}
}
