package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestLoadCountsOpsLongerThanTheRun: a case whose requests take longer than the
// measured time (64 connections of 1 MB JSON bodies: about 3 s each on two cores, for a
// 3 s run) still reports what it did. Each connection finishes the op it has in flight
// when the time is up, the op counts, and Elapsed covers it; cutting ops off at the
// deadline reported 0 req/s. The ops are released by the test rather than timed, so
// that the load of the machine cannot change the outcome; in a synctest bubble, so
// that the run's end is on a clock the test moves.
func TestLoadCountsOpsLongerThanTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var started atomic.Int64
		op := func(ctx context.Context, _ *Conn) (int, error) {
			started.Add(1)
			select {
			case <-release:
				return 3, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		const run = 200 * time.Millisecond // long enough for a late goroutine to start its op
		l := &Load{Conns: 4, Op: op, Samples: true, For: run}
		done := make(chan Result)
		go func() { done <- l.Run(context.Background(), func(int64) bool { return false }) }()
		// Released once every op has started (each timed from before its start) and the
		// run is over: no connection may start a second op, and every op outlasts the run.
		// In the bubble, every op has started once all the goroutines are blocked, and the
		// sleep moves the bubble's clock past the run's end.
		synctest.Wait()
		if n := started.Load(); n != 4 {
			t.Fatalf("%d ops started before the end of the run, want 4", n)
		}
		time.Sleep(run + 50*time.Millisecond)
		close(release)
		r := <-done
		if r.Requests != 4 || r.Items != 12 || r.Errors != 0 || started.Load() != 4 {
			t.Errorf("%d requests, %d items, %d errors, %d ops started; want 4, 12, 0, 4", r.Requests, r.Items, r.Errors, started.Load())
		}
		if r.P50 < run || r.Elapsed < r.P50 || r.ReqPerSec() <= 0 {
			t.Errorf("p50 %s, elapsed %s, %.1f req/s: the ops' whole time must count", r.P50, r.Elapsed, r.ReqPerSec())
		}
	})
}

// TestLoadFirstError: a failing case's row says what the first failure was.
func TestLoadFirstError(t *testing.T) {
	var n atomic.Int64
	op := func(context.Context, *Conn) (int, error) {
		if n.Add(1) == 1 {
			return 1, errors.New("POST /v2/models/echo/infer: 429 concurrency_limited")
		}
		return 1, nil
	}
	l := &Load{Conns: 1, Op: op}
	r := l.Run(context.Background(), func(done int64) bool { return done >= 3 })
	if r.Errors != 1 || r.Requests != 2 || r.FirstError != "POST /v2/models/echo/infer: 429 concurrency_limited" {
		t.Errorf("%d errors, %d requests, first error %q", r.Errors, r.Requests, r.FirstError)
	}
}
