package queue

import (
	"context"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestRoundTripsPerJob counts the Redis round trips of a job's life on each side of
// queue mode: the API server's Submit, and a worker's pickup, run and completion. A
// round trip is a wait for Redis, so their number bounds a job's latency and its
// share of Redis; the test keeps it from creeping back up. Polls are the client's to
// spend and are not counted here (TestLongPollRoundTrips counts the long poll).
//
// It runs on one Redis and on a Redis Cluster with jobs over four shards: a shard's
// keys are in one slot, so a submission is one script on one node there too.
func TestRoundTripsPerJob(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  func(testing.TB) *env
	}{
		{"redis", newEnv},
		{"cluster", func(t testing.TB) *env { return newClusterEnv(t, 4) }},
	} {
		t.Run(tt.name, func(t *testing.T) { roundTripsPerJob(t, tt.env(t)) })
	}
}

func roundTripsPerJob(t *testing.T, e *env) {
	// Enough jobs that what a worker spends once (its recoverer's first look at each
	// of its queues: three per shard, one per priority) stays a small share of each.
	const jobs = 400
	// As a server runs by default: each job counted against its key's cap and budget.
	e.store = redisstore.New(e.rc, redisstore.Options{MaxPerOwner: job.DefaultMaxUnfinishedPerKey, MaxBytesPerOwner: job.DefaultMaxBytesPerKey, Shards: e.tasks.Sharding()})
	e.svc = &job.Service{Store: e.store, Submitter: NewSubmitter(e.runner, e.store)}
	e.owner = "k"
	api := &redistest.RoundTrips{}
	e.rc.AddHook(api)
	// The first submission loads the enqueue script and registers the queue; count the
	// steady state. In a cluster each node loads the script: 20 submissions reach every
	// shard.
	warm := 1
	if e.client != nil {
		warm = 20
	}
	for range warm {
		e.submit(t, false, `0`)
	}
	api.Reset()
	for range jobs - warm {
		e.submit(t, false, `{"x":1}`)
	}
	apiPerJob := float64(api.Count()) / float64(jobs-warm)

	// The worker starts with every job queued, so it never finds the queue empty (and
	// sleeps) until the last one; what it spends besides jobs (a heartbeat, the
	// recoverer's first look) is spread over them all.
	// Every job here is a first delivery, however long the machine took to queue them
	// all: past freshFor, a busy machine's jobs would count as redeliveries, which
	// check and mark the record first. Restored once the worker has shut down.
	was := freshFor
	t.Cleanup(func() { freshFor = was })
	freshFor = time.Hour
	c := &finishCounter{done: make(chan struct{})}
	c.left.Store(jobs)
	wrk := &redistest.RoundTrips{}
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
	workerPerJob := float64(wrk.Count()) / jobs
	t.Logf("round trips per job: API %.2f, worker %.2f", apiPerJob, workerPerJob)
	// The API: one script records the job, queues its task and announces it.
	if apiPerJob > 1 {
		t.Errorf("Submit makes %.2f round trips, want 1", apiPerJob)
	}
	// A worker: dequeue, record the result (from the record its task carries: a job
	// this quick is never marked running on its own), tell asynq the task is done; and
	// a little for the rest of its time.
	if workerPerJob > 3.5 {
		t.Errorf("a worker makes %.2f round trips per job, want at most 3.5", workerPerJob)
	}
}

// TestLongPollRoundTrips: a long poll for a job its server submitted reads nothing
// from Redis; it is answered from the final record the server's subscription hears,
// so a job costs the API its submission alone.
//
// It runs on one Redis and on a Redis Cluster, where the final records come on each
// shard's sharded channel.
func TestLongPollRoundTrips(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  func(testing.TB) *env
	}{
		{"redis", newEnv},
		{"cluster", func(t testing.TB) *env { return newClusterEnv(t, 4) }},
	} {
		t.Run(tt.name, func(t *testing.T) { longPollRoundTrips(t, tt.env(t)) })
	}
}

func longPollRoundTrips(t *testing.T, e *env) {
	const jobs = 20
	waiters := &job.Waiters{Track: jobs}
	e.svc.Waiters = waiters
	// Each job finishes only once its poll waits: one that finished before its poll
	// came is rightly read by the poll (on a loaded machine, 2 of 20 were), and that
	// read is not what this test counts.
	polled := &echo{hold: func(ctx context.Context) error {
		for waiters.Len() == 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Microsecond):
			}
		}
		return nil
	}}
	w := e.newWorker(t, polled, WorkerOptions{})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	ctx, stop := context.WithCancel(context.Background())
	heard := make(chan struct{})
	go func() { defer close(heard); e.store.Finished(ctx, waiters) }()
	t.Cleanup(func() { stop(); <-heard })
	testkit.Eventually(t, 10*time.Second, waiters.Tracking, "the subscription confirmed")
	api := &redistest.RoundTrips{Record: true}
	e.rc.AddHook(api)
	poll := func() {
		rec := e.submit(t, false, `{"x":1}`)
		got, err := e.svc.Wait(context.Background(), rec.ID, 10*time.Second)
		if err != nil || got.Status != job.StatusSucceeded || string(got.Result) != `{"x":1}` {
			t.Fatalf("Wait: %+v, %v", got, err)
		}
	}
	// Loads the submission script; in a cluster on every node.
	warm := 1
	if e.client != nil {
		warm = 20
	}
	for range warm {
		poll()
	}
	api.Reset()
	for range jobs {
		poll()
	}
	perJob := float64(api.Count()) / jobs
	t.Logf("API round trips per job, submission and long poll: %.2f", perJob)
	if perJob > 1 {
		t.Errorf("a job costs the API %.2f round trips, want 1: its submission; they were %v", perJob, api.Commands())
	}
}
