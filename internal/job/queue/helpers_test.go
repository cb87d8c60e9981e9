package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

// env is one Redis (or a Redis Cluster) with the API server's side of queue mode on
// it.
type env struct {
	redis *redistest.Server
	rc    redis.UniversalClient
	// client, when set, makes each worker's own client (a cluster's); else it is a
	// client of redis.
	client func() redis.UniversalClient
	store  *redisstore.Store
	runner *Runner
	svc    *job.Service
	tasks  TaskOptions
	// workerHook, when set, is added to the Redis client of each new worker, inside
	// the worker's own hooks.
	workerHook redis.Hook
	// owner is the key submit submits for; "": none.
	owner string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	srv := redistest.Start(t)
	conn, err := ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(conn.Redis)
	t.Cleanup(func() { _ = rc.Close() })
	e := &env{redis: srv, rc: rc, store: redisstore.New(rc, redisstore.Options{}), tasks: TaskOptions{}.withDefaults()}
	e.runner = NewRunner(rc, e.tasks)
	e.svc = &job.Service{Store: e.store, Submitter: NewSubmitter(e.runner, e.store)}
	return e
}

// newClusterEnv is newEnv on a Redis Cluster of three primaries, with jobs spread
// over shards queues.
func newClusterEnv(t testing.TB, shards int) *env {
	t.Helper()
	c := redistest.StartCluster(t, 3, 0)
	conn, err := ParseURL(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	client := func() redis.UniversalClient {
		rc := conn.NewClient()
		t.Cleanup(func() { _ = rc.Close() })
		return rc
	}
	e := &env{rc: client(), client: client, tasks: TaskOptions{Shards: shards, Cluster: true}.withDefaults()}
	e.store = redisstore.New(e.rc, redisstore.Options{Shards: e.tasks.Sharding()})
	e.runner = NewRunner(e.rc, e.tasks)
	e.svc = &job.Service{Store: e.store, Submitter: NewSubmitter(e.runner, e.store)}
	return e
}

func testLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// startWorker starts a worker process's side on its own Redis client, as a separate
// process would have, and shuts it down when the test ends.
func (e *env) startWorker(t testing.TB, pred job.Predictor, opts WorkerOptions) *Worker {
	t.Helper()
	w := e.newWorker(t, pred, opts)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	return w
}

// startIdle starts a worker as startWorker does and returns, with it, the count of its
// waker's holds, which tells the test when the worker is idle and waiting.
func (e *env) startIdle(t testing.TB, pred job.Predictor, opts WorkerOptions) (*Worker, *holds) {
	t.Helper()
	w := e.newWorker(t, pred, opts)
	h := watchHolds(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	return w, h
}

func (e *env) newWorker(t testing.TB, pred job.Predictor, opts WorkerOptions) *Worker {
	t.Helper()
	var rc redis.UniversalClient
	if e.client != nil {
		rc = e.client()
	} else {
		c := redis.NewClient(&redis.Options{Addr: e.redis.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		rc = c
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = time.Second
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = 4
	}
	if opts.Logger == nil {
		opts.Logger = testLogger()
	}
	opts.Tasks = e.tasks
	exec := &job.Executor{Store: redisstore.New(rc, redisstore.Options{Shards: e.tasks.Sharding()}), Predictor: pred}
	w := NewWorker(rc, exec, opts)
	if e.workerHook != nil {
		// After the worker's own hook (its waker), so that it sees what reaches Redis:
		// the waker answers a dequeue of a queue it knows empty by itself.
		rc.AddHook(e.workerHook)
	}
	return w
}

func (e *env) submit(t testing.TB, batch bool, input string) job.Record {
	t.Helper()
	rec, err := e.svc.SubmitFor(context.Background(), e.owner, "echo", "v1", batch, json.RawMessage(input))
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	return rec
}

// waitStatus polls the store until the job has status want.
func (e *env) waitStatus(t testing.TB, id string, want job.Status, within time.Duration) job.Record {
	t.Helper()
	var rec job.Record
	var err error
	testkit.Eventually(t, within, func() bool {
		rec, err = e.store.Get(context.Background(), id)
		return err == nil && rec.Status == want
	}, "job %s: status %s, want %s", id, func() string { return fmt.Sprintf("%q (error %v)", rec.Status, err) }, want)
	return rec
}

// echo is a Predictor that returns its inputs and counts its calls.
type echo struct {
	calls atomic.Int64
	// hold, when set, is called before the prediction; it may block.
	hold func(ctx context.Context) error
}

func (p *echo) Predict(ctx context.Context, _, _ string, items []json.RawMessage) ([]json.RawMessage, error) {
	p.calls.Add(1)
	if p.hold != nil {
		if err := p.hold(ctx); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// blocker is a hold that signals each start and blocks until released or cancelled.
type blocker struct {
	started  chan struct{}
	release  chan struct{}
	canceled chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}, 16), release: make(chan struct{}), canceled: make(chan struct{}, 16)}
}

func (b *blocker) hold(ctx context.Context) error {
	b.started <- struct{}{}
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		b.canceled <- struct{}{}
		return ctx.Err()
	}
}

func waitChan(t testing.TB, ch <-chan struct{}, within time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(within):
		t.Fatalf("timed out after %s waiting for %s", within, what)
	}
}

var statusRank = map[job.Status]int{
	job.StatusCreated: 0, job.StatusPending: 1, job.StatusRunning: 2,
	job.StatusSucceeded: 3, job.StatusFailed: 3, job.StatusCancelled: 3,
}

// watchStatus samples a job's status until the test calls the returned func, which
// fails the test if the status ever moved backwards or changed after it was final.
func (e *env) watchStatus(t testing.TB, id string) (stop func() []job.Status) {
	var seen []job.Status
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := func() {
			rec, err := e.store.Get(context.Background(), id)
			if err != nil {
				return
			}
			if n := len(seen); n == 0 || seen[n-1] != rec.Status {
				seen = append(seen, rec.Status)
			}
		}
		for {
			sample()
			select {
			case <-done:
				sample()
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() []job.Status {
		close(done)
		<-finished
		for i := 1; i < len(seen); i++ {
			if statusRank[seen[i]] <= statusRank[seen[i-1]] {
				t.Errorf("job %s: status went %v", id, seen)
				break
			}
		}
		return seen
	}
}

// holds counts the holds of a worker's waker: each is a dequeue that found nothing and
// now waits for an announcement or the poll interval, so a worker that holds is idle
// and not polling. It lets a test wait for that state instead of sleeping into it.
type holds struct {
	n    atomic.Int64
	more chan struct{} // one buffered signal: n grew
}

// watchHolds counts w's holds; w must not have started.
func watchHolds(w *Worker) *holds {
	h := &holds{more: make(chan struct{}, 1)}
	w.waker.onHold = func() {
		h.n.Add(1)
		select {
		case h.more <- struct{}{}:
		default:
		}
	}
	return h
}

func (h *holds) count() int64 { return h.n.Load() }

// await waits until more than after holds have begun, and returns their count.
func (h *holds) await(t testing.TB, after int64, within time.Duration) int64 {
	t.Helper()
	timeout := time.After(within)
	for {
		if n := h.n.Load(); n > after {
			return n
		}
		select {
		case <-h.more:
		case <-timeout:
			t.Fatalf("no hold beyond the first %d within %s: the worker is not idle and waiting", after, within)
		}
	}
}
