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
)

// orphan makes a job look as if a worker took its task and died about 40 s ago: the
// record running, and the task active in asynq with a lease that ran out 10 s ago. That
// is the window in which only our recoverer acts: asynq's waits until a lease is 30 s
// past. It writes asynq's
// keys as asynq v0.26.0's dequeue script does, so it breaks (loudly) if asynq changes
// its layout.
func (e *env) orphan(t *testing.T, jobID string, recovery int) {
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
		p.ZAdd(ctx, q+"lease", redis.Z{Score: float64(time.Now().Add(-10 * time.Second).Unix()), Member: tid})
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
	}{
		{"first task orphaned", 0, false, job.StatusSucceeded, ""},
		{"recovered task orphaned again", 2, false, job.StatusSucceeded, ""},
		{"out of recoveries", 3, false, job.StatusFailed, "stopped 4 times"},
		{"already finished by another delivery", 0, true, job.StatusSucceeded, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rec := e.createJob(t, `"in"`)
			e.orphan(t, rec.ID, tt.recovery)
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
			if tt.final {
				// A whole pass of the recoverer, run here so that its end is known: it
				// queues no recovery of the finished job, and only that would run it
				// before asynq's own recoverer (30 s past the lease).
				if err := w.recoverOrphans(context.Background()); err != nil {
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
	e.waitStatus(t, rec.ID, job.StatusRunning, 5*time.Second)
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
