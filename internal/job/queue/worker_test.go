package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/testkit"
)

func TestJobRunsOnWorker(t *testing.T) {
	e := newEnv(t)
	pred := &echo{}
	e.startWorker(t, pred, WorkerOptions{})
	tests := []struct {
		name  string
		batch bool
		input string
		want  string
	}{
		{"single", false, `{"a":[1,2,3]}`, `{"a":[1,2,3]}`},
		{"batch keeps order", true, `[1,"two",{"3":3},null]`, `[1,"two",{"3":3},null]`},
		{"big integers pass untouched", false, `12345678901234567890`, `12345678901234567890`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := e.submit(t, tt.batch, tt.input)
			got := e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second)
			if string(got.Result) != tt.want {
				t.Fatalf("result = %s, want %s", got.Result, tt.want)
			}
			if got.FinishedAt.IsZero() || got.StartedAt.IsZero() || got.Error != "" {
				t.Fatalf("record = %+v", got)
			}
		})
	}
}

func TestPredictionErrorFailsWithoutRetry(t *testing.T) {
	e := newEnv(t)
	pred := &echo{hold: func(context.Context) error { return errors.New("bad input shape") }}
	e.startWorker(t, pred, WorkerOptions{})
	rec := e.submit(t, false, `1`)
	got := e.waitStatus(t, rec.ID, job.StatusFailed, 30*time.Second)
	if got.Error != "bad input shape" {
		t.Fatalf("error_message = %q", got.Error)
	}
	// No task left in asynq, in any state (a retry is one): none can run it again.
	waitTaskGone(t, e, rec.ID, 10*time.Second)
	if n := pred.calls.Load(); n != 1 {
		t.Fatalf("the failed job ran %d times, want 1", n)
	}
}

func TestDuplicateDelivery(t *testing.T) {
	t.Run("after the job finished", func(t *testing.T) {
		e := newEnv(t)
		pred := &echo{}
		w := e.startWorker(t, pred, WorkerOptions{})
		rec := e.submit(t, false, `"x"`)
		first := e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second)

		// A redelivery straight to the handler, and a second task for the same job
		// (its first task is gone, so the TaskID is free again).
		task, _ := e.tasks.newTask(rec.ID, 0, nil)
		if err := w.ProcessTask(context.Background(), task); err != nil {
			t.Fatalf("ProcessTask of a finished job: %v", err)
		}
		if err := e.runner.Enqueue(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		waitTaskGone(t, e, rec.ID, 5*time.Second)

		got, err := e.store.Get(context.Background(), rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n := pred.calls.Load(); n != 1 {
			t.Errorf("the job ran %d times, want 1", n)
		}
		if got.Status != first.Status || string(got.Result) != string(first.Result) || !got.FinishedAt.Equal(first.FinishedAt) {
			t.Errorf("record changed by a redelivery: %+v, was %+v", got, first)
		}
	})

	t.Run("two deliveries at once", func(t *testing.T) {
		e := newEnv(t)
		n := 0
		var mu sync.Mutex
		both := make(chan struct{})
		returned := make(chan struct{}, 2)
		// A delivery that reaches the model waits there until the other has reached it
		// too, or has returned without it: the two overlap.
		pred := &echo{hold: func(context.Context) error {
			mu.Lock()
			if n++; n == 2 {
				close(both)
			}
			mu.Unlock()
			select {
			case <-both:
			case <-returned:
			}
			return nil
		}}
		// Not started: the test is the only one delivering.
		w := e.newWorker(t, pred, WorkerOptions{})
		rec := e.submit(t, true, `[1,2]`)
		stop := e.watchStatus(t, rec.ID)
		task, _ := e.tasks.newTask(rec.ID, 0, nil)
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if err := w.ProcessTask(context.Background(), task); err != nil {
					t.Errorf("ProcessTask: %v", err)
				}
				returned <- struct{}{}
			})
		}
		wg.Wait()
		got := e.waitStatus(t, rec.ID, job.StatusSucceeded, time.Second)
		seen := stop()
		if string(got.Result) != `[1,2]` {
			t.Fatalf("result = %s", got.Result)
		}
		t.Logf("deliveries that ran the model: %d; statuses seen: %v", n, seen)
	})
}

func TestCancel(t *testing.T) {
	t.Run("pending job leaves the queue", func(t *testing.T) {
		e := newEnv(t)
		rec := e.submit(t, false, `1`) // no worker yet
		if rec.Status != job.StatusPending {
			t.Fatalf("status after submit = %s, want pending", rec.Status)
		}
		got, err := e.svc.Cancel(context.Background(), rec.ID)
		if err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		if got.Status != job.StatusCancelled {
			t.Fatalf("status = %s, want cancelled", got.Status)
		}
		if _, err := e.runner.Inspector().GetTaskInfo(e.tasks.Queue, rec.ID); !errors.Is(err, asynq.ErrTaskNotFound) {
			t.Fatalf("task after cancel: %v, want ErrTaskNotFound", err)
		}
		// One job at a time, first in first out: a job submitted after the cancelled one
		// runs after it, so once that one has run, the cancelled one had its turn.
		pred := &echo{}
		e.startWorker(t, pred, WorkerOptions{Concurrency: 1})
		after := e.submit(t, false, `2`)
		e.waitStatus(t, after.ID, job.StatusSucceeded, 30*time.Second)
		if n := pred.calls.Load(); n != 1 {
			t.Fatalf("the model ran %d times for one job submitted after a cancelled one", n)
		}
		e.waitStatus(t, rec.ID, job.StatusCancelled, time.Millisecond)
	})

	t.Run("running job is stopped and not retried", func(t *testing.T) {
		e := newEnv(t)
		b := newBlocker()
		pred := &echo{hold: b.hold}
		e.startWorker(t, pred, WorkerOptions{})
		rec := e.submit(t, false, `1`)
		waitChan(t, b.started, 5*time.Second, "the job to start")
		e.waitStatus(t, rec.ID, job.StatusRunning, time.Second)
		stop := e.watchStatus(t, rec.ID)

		if _, err := e.svc.Cancel(context.Background(), rec.ID); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		waitChan(t, b.canceled, 5*time.Second, "the running job's context to be cancelled")
		// asynq sends the cancelled task to retry; its redelivery must end it.
		waitTaskGone(t, e, rec.ID, 10*time.Second)
		stop()
		if n := pred.calls.Load(); n != 1 {
			t.Errorf("the model ran %d times, want 1", n)
		}
		got := e.waitStatus(t, rec.ID, job.StatusCancelled, time.Second)
		if got.Result != nil {
			t.Errorf("a cancelled job has result %s", got.Result)
		}
	})

	t.Run("finished job", func(t *testing.T) {
		e := newEnv(t)
		e.startWorker(t, &echo{}, WorkerOptions{})
		rec := e.submit(t, false, `1`)
		e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second)
		if _, err := e.svc.Cancel(context.Background(), rec.ID); !errors.Is(err, job.ErrFinished) {
			t.Fatalf("Cancel of a finished job = %v, want ErrFinished", err)
		}
		e.waitStatus(t, rec.ID, job.StatusSucceeded, time.Second)
	})
}

// waitTaskGone waits until no task of the job's first delivery is left in asynq, in
// any state: it was processed and not retried again.
func waitTaskGone(t testing.TB, e *env, id string, within time.Duration) {
	t.Helper()
	var info *asynq.TaskInfo
	var err error
	testkit.Eventually(t, within, func() bool {
		info, err = e.runner.Inspector().GetTaskInfo(e.tasks.Queue, id)
		return errors.Is(err, asynq.ErrTaskNotFound)
	}, "task %s gone from asynq: %s", id, func() string {
		if info != nil {
			return fmt.Sprintf("state %s, retried %d, last error %q", info.State, info.Retried, info.LastErr)
		}
		return fmt.Sprint(err)
	})
}

func TestPendingUntilWorkerStarts(t *testing.T) {
	e := newEnv(t)
	rec := e.submit(t, true, `["a","b"]`)
	// Queued, in the pending list, where only a worker's dequeue takes it from.
	if info, err := e.runner.Inspector().GetTaskInfo(e.tasks.Queue, rec.ID); err != nil || info.State != asynq.TaskStatePending {
		t.Fatalf("task before any worker: %+v %v, want pending", info, err)
	}
	e.waitStatus(t, rec.ID, job.StatusPending, time.Millisecond)

	e.startWorker(t, &echo{}, WorkerOptions{})
	got := e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second)
	if string(got.Result) != `["a","b"]` {
		t.Fatalf("result = %s", got.Result)
	}
}

func TestRedisOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("stops and restarts Redis under a worker; runs without -short (make test)")
	}
	e := newEnv(t)
	failed := &failures{ch: make(chan struct{}, 64)}
	e.workerHook = failed
	e.startWorker(t, &echo{}, WorkerOptions{})
	ctx := context.Background()
	before := e.submit(t, false, `1`)
	e.waitStatus(t, before.ID, job.StatusSucceeded, 30*time.Second)

	for len(failed.ch) > 0 { // count only the failures of the outage
		<-failed.ch
	}
	e.redis.Stop()
	if _, err := e.svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`2`)); !errors.Is(err, job.ErrQueueUnavailable) {
		t.Fatalf("Submit with Redis down = %v, want ErrQueueUnavailable", err)
	}
	if _, err := e.svc.Get(ctx, before.ID); !errors.Is(err, job.ErrQueueUnavailable) {
		t.Fatalf("Get with Redis down = %v, want ErrQueueUnavailable", err)
	}
	if err := e.runner.Enqueue(ctx, before); !errors.Is(err, job.ErrQueueUnavailable) {
		t.Fatalf("Enqueue with Redis down = %v, want ErrQueueUnavailable", err)
	}
	if err := e.runner.Abandon(ctx, before.ID); !errors.Is(err, job.ErrQueueUnavailable) {
		t.Fatalf("Abandon with Redis down = %v, want ErrQueueUnavailable", err)
	}
	for i := range 3 { // the worker fails a few round trips
		select {
		case <-failed.ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("the worker failed %d round trips in 10s with Redis down", i)
		}
	}

	// Same Runner, store and Worker, nothing restarted but Redis (empty: no persistence).
	e.redis.Restart()
	var rec job.Record
	var err error
	testkit.Eventually(t, 5*time.Second, func() bool {
		rec, err = e.svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`3`))
		return err == nil
	}, "Submit after Redis came back: %s", func() string { return fmt.Sprint(err) })
	got := e.waitStatus(t, rec.ID, job.StatusSucceeded, 10*time.Second)
	if string(got.Result) != `3` {
		t.Fatalf("result = %s", got.Result)
	}
}

func TestShutdown(t *testing.T) {
	tests := []struct {
		name     string
		jobTakes time.Duration
		timeout  time.Duration
		// requeued: the job outlives the shutdown timeout, goes back to the queue and
		// is finished by a second worker.
		requeued bool
	}{
		{"running job finishes within the timeout", 300 * time.Millisecond, 5 * time.Second, false},
		{"running job outlives the timeout and is requeued", time.Hour, 500 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			b := newBlocker()
			slow := &echo{hold: func(ctx context.Context) error {
				b.started <- struct{}{}
				select {
				case <-time.After(tt.jobTakes):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}}
			w := e.newWorker(t, slow, WorkerOptions{ShutdownTimeout: tt.timeout})
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			rec := e.submit(t, false, `"long"`)
			waitChan(t, b.started, 5*time.Second, "the job to start")
			w.Shutdown()

			if !tt.requeued {
				e.waitStatus(t, rec.ID, job.StatusSucceeded, time.Millisecond)
				return
			}
			info, err := e.runner.Inspector().GetTaskInfo(e.tasks.Queue, rec.ID)
			if err != nil || info.State != asynq.TaskStatePending {
				t.Fatalf("task after shutdown: %v %v, want pending", info, err)
			}
			fast := &echo{}
			e.startWorker(t, fast, WorkerOptions{})
			got := e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second)
			if string(got.Result) != `"long"` || fast.calls.Load() != 1 {
				t.Fatalf("record %+v after %d runs on the second worker", got, fast.calls.Load())
			}
		})
	}
}

func TestTimeoutFailsJob(t *testing.T) {
	e := newEnv(t)
	e.tasks.Timeout = time.Second // asynq counts timeouts in whole seconds
	e.runner = NewRunner(e.rc, e.tasks)
	e.svc.Submitter = job.Steps{Store: e.store, Runner: e.runner}
	// The model ignores its context: the deadline must end the job anyway.
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	pred := &echo{hold: func(context.Context) error { <-stuck; return nil }}
	e.startWorker(t, pred, WorkerOptions{})
	rec := e.submit(t, false, `1`)
	got := e.waitStatus(t, rec.ID, job.StatusFailed, 30*time.Second)
	if !strings.Contains(got.Error, "did not finish within 1s") {
		t.Fatalf("error_message = %q", got.Error)
	}
	waitTaskGone(t, e, rec.ID, 5*time.Second)
	if n := pred.calls.Load(); n != 1 {
		t.Fatalf("the model ran %d times, want 1", n)
	}
}

// failingStore fails every write that would finish a job successfully, as a store
// that went away mid-job would.
type failingStore struct{ job.Store }

func (s failingStore) Update(ctx context.Context, id string, fn func(*job.Record) error) (job.Record, error) {
	return s.Store.Update(ctx, id, failSuccess(fn))
}

func (s failingStore) UpdateFrom(ctx context.Context, prev job.Record, fn func(*job.Record) error) (job.Record, error) {
	return s.Store.UpdateFrom(ctx, prev, failSuccess(fn))
}

func failSuccess(fn func(*job.Record) error) func(*job.Record) error {
	return func(r *job.Record) error {
		if err := fn(r); err != nil {
			return err
		}
		if r.Status == job.StatusSucceeded {
			return job.ErrQueueUnavailable
		}
		return nil
	}
}

func TestRetriesExhaustedFailJob(t *testing.T) {
	e := newEnv(t)
	e.tasks.MaxRetry = 1
	e.runner = NewRunner(e.rc, e.tasks)
	e.svc.Submitter = job.Steps{Store: e.store, Runner: e.runner}
	pred := &echo{}
	w := e.newWorker(t, pred, WorkerOptions{})
	w.exec.Store = failingStore{w.exec.Store}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	rec := e.submit(t, false, `1`)
	got := e.waitStatus(t, rec.ID, job.StatusFailed, 10*time.Second)
	if !strings.Contains(got.Error, "after 2 attempts") {
		t.Fatalf("error_message = %q", got.Error)
	}
	if n := pred.calls.Load(); n != 2 {
		t.Fatalf("the model ran %d times, want 2 (one retry)", n)
	}
}

// failures is a go-redis hook that signals each command or pipeline that failed other
// than with redis.Nil (an answer), dropping signals while ch is full.
type failures struct{ ch chan struct{} }

func (f *failures) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *failures) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		f.signal(err)
		return err
	}
}

func (f *failures) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		f.signal(err)
		return err
	}
}

func (f *failures) signal(err error) {
	if err == nil || errors.Is(err, redis.Nil) {
		return
	}
	select {
	case f.ch <- struct{}{}:
	default:
	}
}
