package queue

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/testkit"
)

// orphan makes a job look as if a worker took its task and died: the record running,
// and the task active in asynq with a lease ending at leaseEnd (whole seconds, as asynq
// writes it). A lease that ran out 10 s ago is in the window in which only our
// recoverer acts: asynq's waits until a lease is 30 s past. A lease still to end, in
// less than asynqLease - leaseStale, is one whose worker stopped renewing it
// asynqLease - (leaseEnd - now) ago. It writes asynq's keys as asynq v0.26.0's dequeue
// script does, so it breaks (loudly) if asynq changes its layout.
func (e *env) orphan(t *testing.T, jobID string, recovery int, leaseEnd time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.runner.enqueue(ctx, jobID, recovery, nil, job.PriorityNormal); err != nil {
		t.Fatal(err)
	}
	tid := taskID(jobID, recovery)
	q := "asynq:{" + e.tasks.Queue + "}:"
	if n, err := e.rc.LRem(ctx, q+"pending", 0, tid).Result(); err != nil || n != 1 {
		t.Fatalf("taking task %s off the pending list: removed %d, %v", tid, n, err)
	}
	_, err := e.rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, q+"active", tid)
		p.HSet(ctx, q+"t:"+tid, "state", "active")
		p.ZAdd(ctx, q+"lease", redis.Z{Score: float64(leaseEnd.Unix()), Member: tid})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Update(ctx, jobID, func(r *job.Record) error {
		r.Status, r.StartedAt = job.StatusRunning, time.Now()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// createJob writes a job's record without queueing it.
func (e *env) createJob(t *testing.T, input string) job.Record {
	t.Helper()
	rec := job.Record{ID: fmt.Sprintf("job-%d", time.Now().UnixNano()), Status: job.StatusPending, Model: "echo", Version: "v1", Input: []byte(input), CreatedAt: time.Now()}
	if err := e.store.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestRecoverOrphan(t *testing.T) {
	tests := []struct {
		name     string
		recovery int // of the orphaned task
		final    bool
		want     job.Status
		wantErr  string
		// retried: the record says when its worker was lost and when it was queued
		// again; lost: only when it was lost (out of recoveries); neither: untouched.
		retried, lost bool
	}{
		{"first task orphaned", 0, false, job.StatusSucceeded, "", true, true},
		{"recovered task orphaned again", 2, false, job.StatusSucceeded, "", true, true},
		{"out of recoveries", 3, false, job.StatusFailed, "stopped 4 times", false, true},
		{"already finished by another delivery", 0, true, job.StatusSucceeded, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rec := e.createJob(t, `"in"`)
			leaseEnd := time.Now().Add(-10 * time.Second).Truncate(time.Second)
			e.orphan(t, rec.ID, tt.recovery, leaseEnd)
			if tt.final {
				if _, err := e.store.Update(context.Background(), rec.ID, func(r *job.Record) error {
					r.Status, r.Result, r.FinishedAt = job.StatusSucceeded, []byte(`"earlier"`), time.Now()
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			pred := &echo{}
			start := time.Now()
			w := e.startWorker(t, pred, WorkerOptions{})
			got := e.waitStatus(t, rec.ID, tt.want, 5*time.Second)
			t.Logf("orphan handled %s after the worker started", time.Since(start).Round(time.Millisecond))
			if !strings.Contains(got.Error, tt.wantErr) {
				t.Errorf("error_message = %q, want it to contain %q", got.Error, tt.wantErr)
			}
			wantLost := time.Time{}
			if tt.lost {
				wantLost = leaseEnd.Add(-asynqLease) // when the worker last renewed its lease
			}
			if !got.WorkerLostAt.Equal(wantLost) {
				t.Errorf("worker_lost_at %v, want %v", got.WorkerLostAt, wantLost)
			}
			if tt.retried != !got.RetryAt.IsZero() || tt.retried && got.RetryAt.Before(start) {
				t.Errorf("retry_at %v (the worker started at %v), want it set: %v", got.RetryAt, start, tt.retried)
			}
			if tt.final {
				// A whole pass of the recoverer, run here so that its end is known: it
				// queues no recovery of the finished job, and only that would run it
				// before asynq's own recoverer (30 s past the lease).
				if _, err := w.recoverOrphans(context.Background()); err != nil {
					t.Fatal(err)
				}
				if _, err := e.runner.Inspector().GetTaskInfo(e.tasks.Queue, taskID(rec.ID, 1)); !errors.Is(err, asynq.ErrTaskNotFound) {
					t.Errorf("a finished orphan was queued again: %v", err)
				}
				if pred.calls.Load() != 0 || string(got.Result) != `"earlier"` {
					t.Errorf("a finished orphan ran again: %d runs, result %s", pred.calls.Load(), got.Result)
				}
			}
		})
	}
}

// TestLostWorkerReported: a job whose task's lease has gone unrenewed (its worker
// stopped) says so on its record before the lease ends (when its worker was last
// heard from, and when it will be queued again), then runs again at the lease's end
// and keeps the story; a lease renewed after all takes the report back, and a job out
// of recoveries is reported with no retry.
func TestLostWorkerReported(t *testing.T) {
	ctx := context.Background()
	t.Run("reported, then run again when the lease ends", func(t *testing.T) {
		e := newEnv(t)
		rec := e.createJob(t, `"in"`)
		// Last renewed asynqLease - 3 s ago: stale, ending 3 s from now.
		leaseEnd := time.Now().Add(3 * time.Second).Truncate(time.Second).Add(time.Second)
		e.orphan(t, rec.ID, 0, leaseEnd)
		e.startWorker(t, &echo{}, WorkerOptions{})
		var got job.Record
		testkit.Eventually(t, 10*time.Second, func() bool {
			var err error
			if got, err = e.store.Get(ctx, rec.ID); err != nil {
				t.Fatal(err)
			}
			return !got.WorkerLostAt.IsZero()
		}, "worker_lost_at: %s", func() string { return fmt.Sprintf("%+v", got) })
		if got.Status != job.StatusRunning || !got.WorkerLostAt.Equal(leaseEnd.Add(-asynqLease)) || !got.RetryAt.Equal(leaseEnd) {
			t.Errorf("reported as %s, worker_lost_at %v, retry_at %v; want running, %v, %v",
				got.Status, got.WorkerLostAt, got.RetryAt, leaseEnd.Add(-asynqLease), leaseEnd)
		}
		done := e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second)
		if string(done.Result) != `"in"` || !done.WorkerLostAt.Equal(got.WorkerLostAt) || !done.RetryAt.Equal(got.RetryAt) {
			t.Errorf("after the run again: result %s, worker_lost_at %v, retry_at %v; want the report kept", done.Result, done.WorkerLostAt, done.RetryAt)
		}
	})
	t.Run("taken back when the lease is renewed", func(t *testing.T) {
		e := newEnv(t)
		rec := e.createJob(t, `"in"`)
		leaseEnd := time.Now().Add(10 * time.Second).Truncate(time.Second)
		e.orphan(t, rec.ID, 0, leaseEnd)
		w := e.newWorker(t, &echo{}, WorkerOptions{}) // not started: its recoverer runs here alone
		if _, err := w.recoverOrphans(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.store.Get(ctx, rec.ID); got.WorkerLostAt.IsZero() {
			t.Fatalf("a stale lease not reported: %+v", got)
		}
		// The worker was slow, not gone: its heartbeat renews the lease.
		if err := e.rc.ZAdd(ctx, leaseKey(e.tasks.Queue), redis.Z{Score: float64(time.Now().Add(asynqLease).Unix()), Member: taskID(rec.ID, 0)}).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := w.recoverOrphans(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.store.Get(ctx, rec.ID); !got.WorkerLostAt.IsZero() || !got.RetryAt.IsZero() || got.Status != job.StatusRunning {
			t.Errorf("after the renewal: %s, worker_lost_at %v, retry_at %v; want running with neither", got.Status, got.WorkerLostAt, got.RetryAt)
		}
	})
	t.Run("out of recoveries: no retry", func(t *testing.T) {
		e := newEnv(t)
		rec := e.createJob(t, `"in"`)
		leaseEnd := time.Now().Add(10 * time.Second).Truncate(time.Second)
		e.orphan(t, rec.ID, e.tasks.MaxRecoveries, leaseEnd)
		w := e.newWorker(t, &echo{}, WorkerOptions{})
		if _, err := w.recoverOrphans(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.store.Get(ctx, rec.ID); !got.WorkerLostAt.Equal(leaseEnd.Add(-asynqLease)) || !got.RetryAt.IsZero() {
			t.Errorf("worker_lost_at %v, retry_at %v; want %v and none", got.WorkerLostAt, got.RetryAt, leaseEnd.Add(-asynqLease))
		}
	})
	t.Run("a lease renewed on time is not reported", func(t *testing.T) {
		e := newEnv(t)
		rec := e.createJob(t, `"in"`)
		e.orphan(t, rec.ID, 0, time.Now().Add(asynqLease-2*time.Second).Truncate(time.Second))
		w := e.newWorker(t, &echo{}, WorkerOptions{})
		if _, err := w.recoverOrphans(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := e.store.Get(ctx, rec.ID); !got.WorkerLostAt.IsZero() {
			t.Errorf("a healthy job reported lost: %+v", got)
		}
	})
}

// TestRecoverAfterSIGKILL kills a worker process in the middle of a job and measures
// how long another worker takes to finish it. It takes about 35 s.
func TestRecoverAfterSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for asynq's 30 s lease to run out")
	}
	e := newEnv(t)
	child := exec.Command(os.Args[0], "-test.run=^TestHelperWorkerProcess$", "-test.v")
	child.Env = append(os.Environ(), helperRedisEnv+"="+e.redis.Addr())
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == helperReady {
				close(ready)
			}
		}
	}()
	waitChan(t, ready, 30*time.Second, "the worker process to start")

	rec := e.submit(t, false, `"survives"`)
	e.waitStatus(t, rec.ID, job.StatusRunning, 30*time.Second)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()

	e.startWorker(t, &echo{}, WorkerOptions{})
	got := e.waitStatus(t, rec.ID, job.StatusSucceeded, 90*time.Second)
	t.Logf("the job succeeded %s after its worker was killed", time.Since(killed).Round(time.Millisecond))
	if string(got.Result) != `"survives"` {
		t.Fatalf("result = %s", got.Result)
	}
}

const (
	helperRedisEnv = "INFERD_QUEUE_TEST_HELPER_REDIS"
	helperReady    = "helper worker ready"
)

// TestHelperWorkerProcess is the worker process TestRecoverAfterSIGKILL kills: its
// model never returns.
func TestHelperWorkerProcess(t *testing.T) {
	addr := os.Getenv(helperRedisEnv)
	if addr == "" {
		t.Skip("run by TestRecoverAfterSIGKILL")
	}
	rc := redis.NewClient(&redis.Options{Addr: addr})
	exec := &job.Executor{
		Store:     redisstore.New(rc, redisstore.Options{}),
		Predictor: &echo{hold: func(context.Context) error { select {} }},
	}
	w := NewWorker(rc, exec, WorkerOptions{Concurrency: 1, Logger: testLogger()})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Println(helperReady)
	select {}
}
