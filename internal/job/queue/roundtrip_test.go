package queue

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// roundTrips is a go-redis hook that counts the round trips a client makes: one per
// command, one per pipeline or transaction (sent and answered as one exchange).
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// TestRoundTripsPerJob counts the Redis round trips of a job's life on each side of
// queue mode: the API server's Submit, and a worker's pickup, run and completion. A
// round trip is a wait for Redis, so their number bounds a job's latency and its
// share of Redis; the test keeps it from creeping back up. Polls (one GET each) are
// the client's to spend and are not counted.
func TestRoundTripsPerJob(t *testing.T) {
	const jobs = 200
	e := newEnv(t)
	api := &roundTrips{}
	e.rc.AddHook(api)
	// The first submission loads the enqueue script and registers the queue; count the
	// steady state.
	e.submit(t, false, `0`)
	api.n.Store(0)
	for range jobs - 1 {
		e.submit(t, false, `{"x":1}`)
	}
	apiPerJob := float64(api.n.Load()) / float64(jobs-1)

	// The worker starts with every job queued, so it never finds the queue empty (and
	// sleeps) until the last one; what it spends besides jobs (a heartbeat, the
	// recoverer's first look) is spread over them all.
	c := &finishCounter{done: make(chan struct{})}
	c.left.Store(jobs)
	wrk := &roundTrips{}
	e.workerHook = wrk
	w := e.newWorker(t, &echo{}, WorkerOptions{Concurrency: 8, PollInterval: 200 * time.Millisecond, RetryCheckInterval: time.Minute})
	w.exec.Observer = c
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d of %d jobs unfinished", c.left.Load(), jobs)
	}
	workerPerJob := float64(wrk.n.Load()) / jobs
	t.Logf("round trips per job: API %.2f, worker %.2f", apiPerJob, workerPerJob)
	// The API: create the record, enqueue, mark it pending (from the record it holds).
	if apiPerJob > 3 {
		t.Errorf("Submit makes %.2f round trips, want at most 3", apiPerJob)
	}
	// A worker: dequeue, read the record and mark it running, record the result (from
	// the running record it holds), tell asynq the task is done; and a little for the
	// rest of its time.
	if workerPerJob > 5.5 {
		t.Errorf("a worker makes %.2f round trips per job, want at most 5.5", workerPerJob)
	}
}
