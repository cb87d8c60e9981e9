package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// WaitOptions tunes WaitJob. The zero value long-polls 20 s at a time and, when a
// poll answers early without a final record (an older server, one holding too many
// waits, one shutting down), pauses 50 ms, doubling up to 2 s, before the next.
type WaitOptions struct {
	// Poll is how long each request asks the server to wait (the wait parameter of
	// getJob), cut to the server's 30 s cap and to ctx's deadline; default 20 s.
	Poll    time.Duration
	Initial time.Duration // the pause after an early answer; default 50 ms
	Max     time.Duration // the cap of that pause; default 2 s
	// Progress, when set, is called with every record polled (for a progress display).
	Progress func(*JobRecord)
}

// maxPoll is the longest wait the server honours.
const maxPoll = 30 * time.Second

// WaitJob waits for a job to finish with long polls (GET /jobs/{job_id}?wait=...): the
// server answers as soon as the job finishes, so a job costs one request or a few
// rather than a poll every few milliseconds. A succeeded job's record comes back with
// a nil error; a failed or cancelled one with a *JobError carrying the record. While
// the server answers 429 or 503 (rate limited, queue unreachable, shutting down),
// WaitJob waits at least its Retry-After and polls again; any other error ends the
// wait. When ctx ends first, the last record seen (or nil) is returned with an error
// wrapping ctx.Err().
func (c *Client) WaitJob(ctx context.Context, id string, opts WaitOptions) (*JobRecord, error) {
	if id == "" {
		return nil, errEmptyID
	}
	delay, maxDelay, poll := opts.Initial, opts.Max, opts.Poll
	if delay <= 0 {
		delay = 50 * time.Millisecond
	}
	if maxDelay <= 0 {
		maxDelay = 2 * time.Second
	}
	if poll <= 0 {
		poll = 20 * time.Second
	}
	poll = min(poll, maxPoll)
	delay = min(delay, maxDelay)
	var last *JobRecord
	timer := time.NewTimer(time.Hour) // reset before each pause
	defer timer.Stop()
	for {
		w := poll
		if dl, ok := ctx.Deadline(); ok {
			// The server must answer before the context ends: a poll that lasts until
			// the deadline loses its record with the request.
			w = min(w, time.Until(dl)*3/4)
		}
		started := time.Now()
		rec, err := c.jobWaiting(ctx, id, w)
		var pause time.Duration
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
			// A server that waited out the poll is asked again at once; one that
			// answered early is not hammered.
			if time.Since(started) < w/2 {
				pause = delay
				delay = min(2*delay, maxDelay)
			}
		case errors.As(err, &e) && (e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable):
			pause = max(delay, e.RetryAfter)
			delay = min(2*delay, maxDelay)
		case ctx.Err() != nil:
			return last, fmt.Errorf("inferd: waiting for job %s: %w", id, ctx.Err())
		default:
			return last, err
		}
		if pause <= 0 {
			continue
		}
		timer.Reset(pause)
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("inferd: waiting for job %s: %w", id, ctx.Err())
		case <-timer.C:
		}
	}
}
