package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestTaskMessageAsAsynq checks that taskMessage encodes a task as asynq's client
// does, byte for byte: a Submitter's tasks must be asynq's own to every worker,
// inspector and dashboard.
func TestTaskMessageAsAsynq(t *testing.T) {
	tests := []struct {
		name  string
		tasks TaskOptions
	}{
		{"defaults", TaskOptions{}},
		{"other options", TaskOptions{Queue: "other", MaxRetry: 3, Timeout: 90 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			opts := tt.tasks.withDefaults()
			const id = "0b6f2b0e-2f5e-4c55-9d43-6f1c3b1e7a10"
			task, enqOpts := opts.newTask(id, 0, nil)
			if _, err := asynq.NewClientFromRedisClient(e.rc).Enqueue(task, enqOpts...); err != nil {
				t.Fatal(err)
			}
			got, err := e.rc.HGet(context.Background(), taskKey(opts.Queue, id), "msg").Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if want := opts.taskMessage(id, task.Payload()); !bytes.Equal(got, want) {
				t.Errorf("asynq's message\n %x\ntaskMessage's\n %x", got, want)
			}
		})
	}
}

// TestSubmitterAsAsynq checks what a Submitter writes: the record, pending, expiring
// after the store's MaxAge, and a task that asynq sees as one its client queued.
func TestSubmitterAsAsynq(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rec := e.submit(t, true, `[1,"<&>"]`)
	if rec.Status != job.StatusPending {
		t.Fatalf("Submit returned status %s, want pending", rec.Status)
	}
	got, err := e.store.Get(ctx, rec.ID)
	if err != nil || got.Status != job.StatusPending || string(got.Input) != `[1,"<&>"]` || !got.Batch {
		t.Fatalf("record %+v, %v", got, err)
	}
	ttl := e.rc.PTTL(ctx, redisstore.DefaultPrefix+rec.ID).Val()
	if ttl <= 0 || ttl > job.DefaultMaxAge {
		t.Errorf("record expires in %s, want at most the max age %s", ttl, job.DefaultMaxAge)
	}

	info, err := e.runner.Inspector().GetTaskInfo(e.tasks.Queue, rec.ID)
	if err != nil {
		t.Fatalf("asynq does not see the task: %v", err)
	}
	if info.Type != TaskType || info.State != asynq.TaskStatePending || info.MaxRetry != e.tasks.MaxRetry ||
		info.Timeout != e.tasks.Timeout || info.Queue != e.tasks.Queue {
		t.Errorf("task %+v, want a pending %s task with the queue's options", info, TaskType)
	}
	p, err := decodePayload(info.Payload)
	if err != nil || p.JobID != rec.ID || p.Recovery != 0 {
		t.Fatalf("payload %s: %+v, %v", info.Payload, p, err)
	}
	var held job.Record
	if err := json.Unmarshal(p.Record, &held); err != nil || held.ID != rec.ID || held.Status != job.StatusPending {
		t.Errorf("held record %s: %v", p.Record, err)
	}
	// The hash has what asynq's own client writes for a task of the same options (the
	// message itself is TestTaskMessageAsAsynq's), and the queue is listed.
	const byAsynq = "0b6f2b0e-2f5e-4c55-9d43-6f1c3b1e7a11"
	task, enqOpts := e.tasks.newTask(byAsynq, 0, nil)
	if _, err := asynq.NewClientFromRedisClient(e.rc).Enqueue(task, enqOpts...); err != nil {
		t.Fatal(err)
	}
	if got, want := asynqHash(t, e, rec.ID), asynqHash(t, e, byAsynq); !maps.Equal(got, want) {
		t.Errorf("the task hash holds %v (%v); asynq's client writes %v (%v)", keysOf(got), got, keysOf(want), want)
	}
	if qs := e.rc.SMembers(ctx, allQueuesKey).Val(); !slices.Contains(qs, e.tasks.Queue) {
		t.Errorf("queues %v, want %s listed", qs, e.tasks.Queue)
	}

	// An id taken, by a record or by a task, writes nothing.
	sub := NewSubmitter(e.runner, e.store)
	if _, _, err := sub.Submit(ctx, got, nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Submit of an existing job = %v", err)
	}
	if e.rc.Del(ctx, redisstore.DefaultPrefix+rec.ID).Val() != 1 {
		t.Fatal("no record to delete")
	}
	if _, _, err := sub.Submit(ctx, got, nil); err == nil || !strings.Contains(err.Error(), "task exists") {
		t.Errorf("Submit of a job whose task exists = %v", err)
	}
	if n := e.rc.Exists(ctx, redisstore.DefaultPrefix+rec.ID).Val(); n != 0 {
		t.Error("a refused Submit wrote the record")
	}
	if n := e.rc.LLen(ctx, pendingKey(e.tasks.Queue)).Val(); n != 2 {
		t.Errorf("%d tasks pending, want the Submitter's and asynq's", n)
	}
}

// TestHeldRecord checks the record a task carries: a worker marks the job running
// from it without reading the record, goes by the stored record when the held one is
// stale, and a large record is not carried at all.
func TestHeldRecord(t *testing.T) {
	ctx := context.Background()
	heldTask := func(t *testing.T, rec job.Record) *asynq.Task {
		b, err := job.EncodeJSON(rec)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := submittedPayload(rec.ID, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		return asynq.NewTask(TaskType, pb)
	}

	t.Run("current", func(t *testing.T) {
		e := newEnv(t)
		rt := &redistest.RoundTrips{}
		e.workerHook = rt
		pred := &echo{}
		w := e.newWorker(t, pred, WorkerOptions{}) // not started: the test delivers
		// The first job connects and loads the scripts; count the second.
		if err := w.ProcessTask(ctx, heldTask(t, e.submit(t, false, `0`))); err != nil {
			t.Fatal(err)
		}
		rec := e.submit(t, false, `{"x":"<&>"}`)
		before := rt.Count()
		if err := w.ProcessTask(ctx, heldTask(t, rec)); err != nil {
			t.Fatal(err)
		}
		// Finished in one compare-and-set, from pending: a first delivery this quick is
		// never marked running on its own, and nothing is read.
		if n := rt.Count() - before; n != 1 {
			t.Errorf("a job run from its held record took %d round trips, want 1", n)
		}
		got := e.waitStatus(t, rec.ID, job.StatusSucceeded, time.Second)
		if string(got.Result) != `{"x":"<&>"}` || got.StartedAt.IsZero() || pred.calls.Load() != 2 {
			t.Errorf("record %+v after %d runs", got, pred.calls.Load())
		}
	})

	// Cancelled in the store only, as if the worker took the task before the cancel
	// could drop it. A task delivered later than a first delivery can be goes by the
	// stored record and does not run; a first delivery may run, but its result is
	// discarded.
	for _, tc := range []struct {
		name   string
		age    time.Duration // of the record when its task is delivered
		mayRun bool
	}{
		{"cancelled since it was queued, delivered again", 2 * freshFor, false},
		{"cancelled as it was dequeued, first delivery", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			pred := &echo{}
			w := e.newWorker(t, pred, WorkerOptions{})
			rec := e.submit(t, false, `1`)
			if _, err := e.store.Update(ctx, rec.ID, func(r *job.Record) error {
				r.Status, r.FinishedAt, r.Input = job.StatusCancelled, time.Now(), nil
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			held := rec
			held.CreatedAt = time.Now().Add(-tc.age)
			if err := w.ProcessTask(ctx, heldTask(t, held)); err != nil {
				t.Fatal(err)
			}
			if n := pred.calls.Load(); n != 0 && !tc.mayRun {
				t.Errorf("a cancelled job ran %d times from its stale held record", n)
			}
			if got := e.waitStatus(t, rec.ID, job.StatusCancelled, time.Second); got.Result != nil {
				t.Errorf("a cancelled job has result %s", got.Result)
			}
		})
	}

	t.Run("large record", func(t *testing.T) {
		e := newEnv(t)
		big := `"` + strings.Repeat("a", heldRecordMax) + `"`
		rec := e.submit(t, false, big)
		info, err := e.runner.Inspector().GetTaskInfo(e.tasks.Queue, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := decodePayload(info.Payload); err != nil || p.Record != nil {
			t.Fatalf("payload of %d bytes (%v): a large record was carried", len(info.Payload), err)
		}
		e.startWorker(t, &echo{}, WorkerOptions{})
		if got := e.waitStatus(t, rec.ID, job.StatusSucceeded, 30*time.Second); string(got.Result) != big {
			t.Errorf("result of %d bytes, want the input's %d", len(got.Result), len(big))
		}
	})
}

// TestSubmitterByteBudget (see docs/design.md#job-records-are-bounded-per-key): the submission script refuses a job
// that would take its key past its byte budget in the same round trip that would
// have recorded it, writing neither record nor task; a job whose record alone passes
// the budget is refused without a round trip. A worker's store, without a budget of
// its own, keeps the count as it finishes jobs.
func TestSubmitterByteBudget(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	input := json.RawMessage(`"` + strings.Repeat("x", 10_000) + `"`)
	b, err := job.EncodeJSON(job.Record{ID: "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", Status: job.StatusPending, Owner: "k",
		Model: "echo", Version: "v1", Input: input, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	cost := job.RecordCost(len(b))
	e.store = redisstore.New(e.rc, redisstore.Options{MaxBytesPerOwner: 2*cost + cost/2})
	e.svc = &job.Service{Store: e.store, Submitter: NewSubmitter(e.runner, e.store)}
	rt := &redistest.RoundTrips{}
	e.rc.AddHook(rt)
	submit := func() (job.Record, error) {
		return e.svc.SubmitFor(ctx, "k", "echo", "v1", false, input)
	}

	for range 2 {
		if _, err := submit(); err != nil {
			t.Fatal(err)
		}
	}
	before := rt.Count()
	if _, err := submit(); !errors.Is(err, job.ErrJobBytesLimit) {
		t.Fatalf("a third job over a budget of two: %v, want ErrJobBytesLimit", err)
	}
	if n := rt.Count() - before; n != 1 {
		t.Errorf("the refusal took %d round trips, want 1", n)
	}
	if n := e.rc.LLen(ctx, pendingKey(e.tasks.Queue)).Val(); n != 2 {
		t.Errorf("%d tasks pending, want the two accepted", n)
	}
	if keys := e.rc.Keys(ctx, redisstore.DefaultPrefix+"*").Val(); len(keys) != 2 {
		t.Errorf("records %v, want the two accepted", keys)
	}

	huge := json.RawMessage(`"` + strings.Repeat("y", 3*int(cost)) + `"`)
	before = rt.Count()
	if _, err := e.svc.SubmitFor(ctx, "k", "echo", "v1", false, huge); !errors.Is(err, job.ErrJobTooLarge) {
		t.Fatalf("a job larger than the budget: %v, want ErrJobTooLarge", err)
	}
	if n := rt.Count() - before; n != 0 {
		t.Errorf("refusing a job larger than the budget took %d round trips, want none", n)
	}

	// A worker finishes the jobs with small results; their bytes are free for more.
	e.startWorker(t, &small{}, WorkerOptions{})
	testkit.Eventually(t, 10*time.Second, func() bool {
		if _, err = submit(); err != nil && !errors.Is(err, job.ErrJobBytesLimit) {
			t.Fatalf("after the jobs finished with small results: %v", err)
		}
		return err == nil
	}, "after the jobs finished with small results: %s", func() string { return fmt.Sprint(err) })
}

// small answers every item with 1.
type small struct{}

func (small) Predict(_ context.Context, _, _ string, items []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(items))
	for i := range out {
		out[i] = json.RawMessage(`1`)
	}
	return out, nil
}
