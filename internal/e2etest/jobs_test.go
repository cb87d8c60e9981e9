package e2etest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

// TestJobs runs asynchronous jobs through the SDK: submit, WaitJob, both ways of
// reading a record, a failed job, cancels and waits that end early.
func TestJobs(t *testing.T) {
	tg := start(t)
	opts := client.WaitOptions{Initial: 5 * time.Millisecond, Max: 100 * time.Millisecond}

	var done string // a succeeded job, for the checks that need one
	t.Run("submit and wait", func(t *testing.T) {
		id, err := tg.dev.Submit(ctx(t), client.PredictRequest{Model: "echo", Version: "v1", Data: json.RawMessage(`{"text":"hello","n":42}`)})
		if err != nil {
			t.Fatal(err)
		}
		var polls int
		o := opts
		o.Progress = func(r *client.JobRecord) {
			polls++
			if r.JobId != id {
				t.Errorf("progress of job %s while waiting for %s", r.JobId, id)
			}
		}
		rec, err := tg.dev.WaitJob(ctx(t), id, o)
		if err != nil {
			t.Fatal(err)
		}
		if rec.JobId != id || rec.Status != client.JobSucceeded || rec.Model != "echo" || rec.Version != "v1" ||
			rec.Batch == nil || *rec.Batch || rec.FinishedAt == nil || rec.ErrorMessage != nil || polls == 0 {
			t.Errorf("record %+v after %d polls", rec, polls)
		}
		sameJSON(t, rec.Result, `{"text":"hello","n":42}`)
		done = id
	})
	if done == "" {
		t.FailNow()
	}

	t.Run("batch submit and wait", func(t *testing.T) {
		id, err := tg.dev.SubmitBatch(ctx(t), client.BatchRequest{Model: "iris", Version: "v1", Items: []any{[]float64{5.1, 3.5, 1.4, 0.2}}})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := tg.dev.WaitJob(ctx(t), id, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Batch == nil || !*rec.Batch {
			t.Errorf("not a batch: %+v", rec)
		}
		sameJSON(t, rec.Result, `[`+irisSetosa+`]`)
	})

	t.Run("poll and get agree, for any valid key", func(t *testing.T) {
		polled, err := tg.dev.PollJob(ctx(t), done)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tg.admin.Job(ctx(t), done)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(polled, got) {
			t.Errorf("GET /predict/async/{id}: %+v\nGET /jobs/{id}: %+v", polled, got)
		}
	})

	t.Run("a failed job is a JobError", func(t *testing.T) {
		// The input is checked when the job runs, so the submission is accepted.
		id, err := tg.dev.Submit(ctx(t), client.PredictRequest{Model: "iris", Version: "v1", Data: []float64{1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := tg.dev.WaitJob(ctx(t), id, opts)
		var je *client.JobError
		if !errors.As(err, &je) || je.Record != rec || rec.Status != client.JobFailed {
			t.Fatalf("WaitJob: %+v, %v; want a *JobError with the failed record", rec, err)
		}
		if rec.ErrorMessage == nil || *rec.ErrorMessage != "data: expected 4 numbers, got 3" {
			t.Errorf("error_message %v", rec.ErrorMessage)
		}
	})

	t.Run("cancel of a finished job", func(t *testing.T) {
		_, err := tg.dev.CancelJob(ctx(t), done)
		wantProblem(t, err, http.StatusConflict, client.CodeJobFinished)
		if rec, err := tg.dev.Job(ctx(t), done); err != nil || rec.Status != client.JobSucceeded {
			t.Errorf("a refused cancel changed the job: %+v, %v", rec, err)
		}
	})

	t.Run("cancel of an unfinished job", func(t *testing.T) {
		req := client.PredictRequest{Model: slowModel, Version: "v1", Data: "cancel me"}
		if !tg.hasSlow {
			t.Logf("the server under test has no %q model: cancelling an echo job, which may finish first", slowModel)
			req.Model = "echo"
		}
		id, err := tg.dev.Submit(ctx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := tg.dev.CancelJob(ctx(t), id)
		if !tg.hasSlow && client.IsCode(err, client.CodeJobFinished) {
			return // the race went to the job
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.JobId != id || rec.Status != client.JobCancelled || rec.FinishedAt == nil {
			t.Errorf("cancelled record %+v", rec)
		}
		waited, err := tg.dev.WaitJob(ctx(t), id, opts)
		var je *client.JobError
		if !errors.As(err, &je) || waited.Status != client.JobCancelled {
			t.Errorf("WaitJob of a cancelled job: %+v, %v; want a *JobError", waited, err)
		}
		_, err = tg.dev.CancelJob(ctx(t), id)
		wantProblem(t, err, http.StatusConflict, client.CodeJobFinished)
	})

	t.Run("unknown job", func(t *testing.T) {
		const id = "not-a-job"
		_, err := tg.dev.PollJob(ctx(t), id)
		wantProblem(t, err, http.StatusNotFound, client.CodeJobNotFound)
		_, err = tg.dev.CancelJob(ctx(t), id)
		wantProblem(t, err, http.StatusNotFound, client.CodeJobNotFound)
		_, err = tg.dev.WaitJob(ctx(t), id, opts)
		wantProblem(t, err, http.StatusNotFound, client.CodeJobNotFound)
	})

	t.Run("WaitJob honours its context", func(t *testing.T) {
		c, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := tg.dev.WaitJob(c, done, opts); !errors.Is(err, context.Canceled) {
			t.Errorf("WaitJob with an ended context: %v", err)
		}
		if !tg.hasSlow {
			t.Logf("the server under test has no %q model: no job outlasts a deadline", slowModel)
			return
		}
		id, err := tg.dev.Submit(ctx(t), client.PredictRequest{Model: slowModel, Version: "v1", Data: 1})
		if err != nil {
			t.Fatal(err)
		}
		c, cancel = context.WithTimeout(context.Background(), slowDelay/10)
		defer cancel()
		rec, err := tg.dev.WaitJob(c, id, opts)
		if !errors.Is(err, context.DeadlineExceeded) || rec == nil || client.Finished(rec.Status) {
			t.Errorf("WaitJob past its deadline: %+v, %v; want the last unfinished record and the deadline", rec, err)
		}
		if _, err := tg.dev.CancelJob(ctx(t), id); err != nil {
			t.Error(err)
		}
	})
}

// TestJobNumbersExact: a job's input comes back in its result digit for digit, an
// integer beyond float64's range included. (The contract test runs it against the
// server directly: a proxy that re-encodes JSON would round it.)
func TestJobNumbersExact(t *testing.T) {
	tg := start(t)
	id, err := tg.dev.Submit(ctx(t), client.PredictRequest{Model: "echo", Version: "v1", Data: json.RawMessage(`{"n":12345678901234567890}`)})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := tg.dev.WaitJob(ctx(t), id, client.WaitOptions{Initial: 5 * time.Millisecond, Max: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, rec.Result, `{"n":12345678901234567890}`)
}

// TestSubmitOptions: through the SDK, a repeat under the same idempotency key gets the
// first job, the key with another request is CodeIdempotencyKeyReused, and a job's
// priority and deadline show in its record.
func TestSubmitOptions(t *testing.T) {
	tg := start(t)
	o := client.SubmitOptions{IdempotencyKey: `order "7" \ 1`, Priority: "high", Deadline: time.Now().Add(time.Hour).UTC().Truncate(time.Second)}
	req := client.PredictRequest{Model: "echo", Version: "v1", Data: json.RawMessage(`{"n":7}`)}
	first, err := tg.dev.SubmitWith(ctx(t), req, o)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tg.dev.SubmitWith(ctx(t), req, o)
	if err != nil || again != first {
		t.Fatalf("a repeat: job %s (%v), want %s", again, err, first)
	}
	var ce *client.Error
	if _, err := tg.dev.SubmitBatchWith(ctx(t), client.BatchRequest{Model: "echo", Items: []any{1}}, o); !errors.As(err, &ce) || ce.Code != client.CodeIdempotencyKeyReused {
		t.Fatalf("the key with another request: %v", err)
	}
	rec, err := tg.dev.WaitJob(ctx(t), first, client.WaitOptions{Initial: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Priority == nil || *rec.Priority != "high" || rec.Deadline == nil || !rec.Deadline.Equal(o.Deadline) {
		t.Errorf("record %+v", rec)
	}
}
