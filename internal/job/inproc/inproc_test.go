package inproc_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/inproc"
	"github.com/inferd/inferd/internal/job/memstore"
)

// blocker is a predictor whose calls wait until released or until their context ends.
type blocker struct {
	calls   atomic.Int32
	entered chan string // each call's input, as it starts
	ctxErrs chan error  // each call's ctx.Err(), when its context ended first
	release chan struct{}
	once    sync.Once
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan string, 100), ctxErrs: make(chan error, 100), release: make(chan struct{})}
}

func (b *blocker) Predict(ctx context.Context, _, _ string, items []json.RawMessage) ([]json.RawMessage, error) {
	b.calls.Add(1)
	b.entered <- string(items[0])
	select {
	case <-b.release:
		return items, nil
	case <-ctx.Done():
		b.ctxErrs <- ctx.Err()
		return nil, ctx.Err()
	}
}

func (b *blocker) open() { b.once.Do(func() { close(b.release) }) }

// waitEntered waits for n calls to start.
func (b *blocker) waitEntered(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-b.entered:
		case <-time.After(5 * time.Second):
			t.Fatal("timed out waiting for a job to start")
		}
	}
}

type env struct {
	r     *inproc.Runner
	store *memstore.Store
	svc   *job.Service
	b     *blocker
}

func setup(t *testing.T, opts inproc.Options) *env {
	t.Helper()
	e := &env{store: memstore.New(memstore.Options{TTL: time.Hour}), b: newBlocker()}
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	e.r = inproc.New(&job.Executor{Store: e.store, Predictor: e.b}, opts)
	e.svc = &job.Service{Store: e.store, Submitter: job.Steps{Store: e.store, Runner: e.r}}
	t.Cleanup(func() {
		e.b.open()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.r.Shutdown(ctx)
	})
	return e
}

func (e *env) submit(t *testing.T, input string) job.Record {
	t.Helper()
	rec, err := e.svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(input))
	if err != nil {
		t.Fatalf("Submit(%s): %v", input, err)
	}
	return rec
}

func (e *env) status(t *testing.T, id string) job.Status {
	t.Helper()
	rec, err := e.store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return rec.Status
}

// waitFor waits, in a synctest bubble, until every other goroutine is blocked, and
// checks that cond holds by then.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatalf("everything blocked before %s", what)
	}
}

func TestQueueFull(t *testing.T) {
	tests := []struct{ workers, queue int }{
		{1, 1},
		{2, 3},
		{4, 1},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.workers)+" workers, queue "+strconv.Itoa(tt.queue), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := setup(t, inproc.Options{Workers: tt.workers, QueueSize: tt.queue})
				var accepted []job.Record
				for i := range tt.workers { // one at a time, so none waits in the queue
					accepted = append(accepted, e.submit(t, strconv.Itoa(i)))
					e.b.waitEntered(t, 1)
				}
				for i := range tt.queue {
					accepted = append(accepted, e.submit(t, strconv.Itoa(tt.workers+i)))
				}
				if e.r.Running() != tt.workers || e.r.Depth() != tt.queue {
					t.Errorf("Running %d, Depth %d; want %d, %d", e.r.Running(), e.r.Depth(), tt.workers, tt.queue)
				}

				if err := e.r.Enqueue(context.Background(), job.Record{ID: "one-too-many"}); !errors.Is(err, job.ErrQueueFull) {
					t.Fatalf("Enqueue into a full queue = %v, want ErrQueueFull", err)
				}
				if _, err := e.svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`0`)); !errors.Is(err, job.ErrQueueFull) {
					t.Fatalf("Submit into a full queue = %v, want ErrQueueFull", err)
				}

				e.b.open()
				if err := e.r.Shutdown(context.Background()); err != nil {
					t.Fatalf("Shutdown: %v", err)
				}
				for _, rec := range accepted {
					if s := e.status(t, rec.ID); s != job.StatusSucceeded {
						t.Errorf("accepted job %s is %s", rec.Input, s)
					}
				}
			})
		})
	}
}

func TestShutdownDrainsQueuedJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := setup(t, inproc.Options{Workers: 1, QueueSize: 10})
		recs := []job.Record{e.submit(t, `0`)}
		e.b.waitEntered(t, 1)
		for i := 1; i < 5; i++ {
			recs = append(recs, e.submit(t, strconv.Itoa(i)))
		}

		stopped := make(chan error, 1)
		go func() { stopped <- e.r.Shutdown(context.Background()) }()
		// A job id with no record is skipped by the executor, so probing adds no work.
		waitFor(t, "the runner to stop taking jobs", func() bool {
			return errors.Is(e.r.Enqueue(context.Background(), job.Record{ID: "probe"}), job.ErrShuttingDown)
		})
		synctest.Wait()
		select {
		case err := <-stopped:
			t.Fatalf("Shutdown returned %v while jobs were still queued", err)
		default:
		}

		e.b.open()
		select {
		case err := <-stopped:
			if err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Shutdown did not return after the jobs finished")
		}
		for _, rec := range recs {
			if s := e.status(t, rec.ID); s != job.StatusSucceeded {
				t.Errorf("job %s is %s after the drain", rec.Input, s)
			}
		}
		if n := e.b.calls.Load(); n != 5 {
			t.Errorf("predictor called %d times, want 5", n)
		}
		if _, err := e.svc.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`9`)); !errors.Is(err, job.ErrShuttingDown) {
			t.Errorf("Submit after Shutdown = %v, want ErrShuttingDown", err)
		}
	})
}

func TestShutdownTimeoutInterruptsRunningJobs(t *testing.T) {
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
		took time.Duration // on the bubble's clock
	}{
		{"already cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled, 0},
		{"deadline passes", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}, context.DeadlineExceeded, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := setup(t, inproc.Options{Workers: 2, QueueSize: 4})
				recs := []job.Record{e.submit(t, `1`), e.submit(t, `2`)}
				e.b.waitEntered(t, 2)

				ctx, cancel := tt.ctx()
				defer cancel()
				start := time.Now()
				err := e.r.Shutdown(ctx)
				if !errors.Is(err, tt.want) {
					t.Fatalf("Shutdown = %v, want %v", err, tt.want)
				}
				if d := time.Since(start); d != tt.took {
					t.Errorf("Shutdown took %v, want %v", d, tt.took)
				}
				for range recs {
					if err := <-e.b.ctxErrs; !errors.Is(err, context.Canceled) {
						t.Errorf("a running job's context ended with %v, want context.Canceled", err)
					}
				}
				for _, rec := range recs {
					if s := e.status(t, rec.ID); s != job.StatusRunning {
						t.Errorf("interrupted job %s is %s, want it left running", rec.Input, s)
					}
				}
				if e.r.Running() != 0 {
					t.Errorf("Running = %d after Shutdown", e.r.Running())
				}
			})
		})
	}
}

func TestAbandon(t *testing.T) {
	t.Run("running job", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := setup(t, inproc.Options{Workers: 1, QueueSize: 4})
			rec := e.submit(t, `1`)
			e.b.waitEntered(t, 1)
			if _, err := e.svc.Cancel(context.Background(), rec.ID); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			select {
			case err := <-e.b.ctxErrs:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the job's context ended with %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Abandon did not cancel the running job's context")
			}
			waitFor(t, "the worker to be free", func() bool { return e.r.Running() == 0 })
			if s := e.status(t, rec.ID); s != job.StatusCancelled {
				t.Errorf("status %s, want cancelled", s)
			}
			// The worker is free for the next job.
			e.b.open()
			next := e.submit(t, `2`)
			waitFor(t, "the next job", func() bool { return e.status(t, next.ID) == job.StatusSucceeded })
		})
	})

	t.Run("queued job is skipped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := setup(t, inproc.Options{Workers: 1, QueueSize: 4})
			first := e.submit(t, `1`)
			e.b.waitEntered(t, 1)
			queued := e.submit(t, `2`)
			if _, err := e.svc.Cancel(context.Background(), queued.ID); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			e.b.open()
			if err := e.r.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := e.b.calls.Load(); n != 1 {
				t.Errorf("predictor called %d times; the cancelled job must not run", n)
			}
			if s := e.status(t, first.ID); s != job.StatusSucceeded {
				t.Errorf("first job %s", s)
			}
			if s := e.status(t, queued.ID); s != job.StatusCancelled {
				t.Errorf("cancelled job %s", s)
			}
		})
	})

	t.Run("unknown job", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := setup(t, inproc.Options{Workers: 1, QueueSize: 1})
			if err := e.r.Abandon(context.Background(), "no-such-job"); err != nil {
				t.Errorf("Abandon = %v", err)
			}
		})
	})
}

func TestDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := setup(t, inproc.Options{})
		for i := range runtime.NumCPU() {
			e.submit(t, strconv.Itoa(i))
			e.b.waitEntered(t, 1)
		}
		if e.r.Running() != runtime.NumCPU() {
			t.Fatalf("Running = %d, want a worker per CPU (%d)", e.r.Running(), runtime.NumCPU())
		}
		// Ids with no record cost nothing when their turn comes.
		for i := range inproc.DefaultQueueSize {
			if err := e.r.Enqueue(context.Background(), job.Record{ID: "x" + strconv.Itoa(i)}); err != nil {
				t.Fatalf("Enqueue %d with the default queue size: %v", i, err)
			}
		}
		if err := e.r.Enqueue(context.Background(), job.Record{ID: "x"}); !errors.Is(err, job.ErrQueueFull) {
			t.Fatalf("Enqueue beyond inproc.DefaultQueueSize = %v, want ErrQueueFull", err)
		}
	})
}
