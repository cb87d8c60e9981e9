package queuetest

import (
	"net/http"
	"testing"
	"time"
)

// TestCancelInQueueMode cancels jobs through the API in each state a cancel meets:
// pending (dropped from the queue; no worker ever runs it), running (abandoned; the
// worker's late result is discarded), and finished (409 job_finished, record
// untouched). The worker runs one job at a time, so a job submitted after another
// succeeds only once the worker has dealt with the first: that orders the checks
// without sleeping. Only "it never changes" needs a window of watching.
func TestCancelInQueueMode(t *testing.T) {
	t.Parallel()
	const slowDelay = 3 * time.Second
	c := newCluster(t)
	c.addSlowModel("slow", "v1", slowDelay)
	s := c.startServer()

	cancel := func(t *testing.T, id string) (int, jobRecord, string) {
		t.Helper()
		resp := s.api.Do(s.api.NewRequest(http.MethodDelete, "/predict/async/"+id, devKey, nil))
		var rec jobRecord
		code := ""
		if resp.Status == http.StatusOK {
			resp.JSON(t, &rec)
		} else {
			code = resp.Problem(t).Code
		}
		return resp.Status, rec, code
	}

	// No worker runs yet, so this job is certainly still queued.
	pending := s.submit(t, single("echo", "v1", `{"cancel":"me"}`))
	t.Run("pending", func(t *testing.T) {
		status, rec, code := cancel(t, pending)
		if status != http.StatusOK || rec.Status != "cancelled" || rec.FinishedAt == nil || rec.StartedAt != nil {
			t.Fatalf("cancel: %d %s %+v", status, code, rec)
		}
	})

	c.startWorker("WORKER_CONCURRENCY=1")
	finishedSpec := single("echo", "v1", `{"n":12345678901234567890}`)
	finished := s.submit(t, finishedSpec)
	done := s.waitStatus(t, finished, "succeeded", 10*time.Second)
	t.Run("pending never runs", func(t *testing.T) {
		// The worker has run a job queued behind the cancelled one.
		if rec := s.poll(t, pending); rec.Status != "cancelled" || rec.StartedAt != nil || string(rec.Result) != "null" {
			t.Errorf("the cancelled job ran after all: %+v", rec)
		}
	})

	t.Run("finished", func(t *testing.T) {
		status, _, code := cancel(t, finished)
		if status != http.StatusConflict || code != "job_finished" {
			t.Errorf("cancel of a finished job: %d %q, want 409 job_finished", status, code)
		}
		if rec := s.poll(t, finished); rec.Status != "succeeded" || !sameJSON(rec.Result, done.Result) || !rec.FinishedAt.Equal(*done.FinishedAt) {
			t.Errorf("a refused cancel changed the record: %+v, was %+v", rec, done)
		}
	})

	t.Run("running", func(t *testing.T) {
		s.requireModel(t, "slow", "v1")
		running := s.submit(t, single("slow", "v1", `{"long":true}`))
		started := s.waitStatus(t, running, "running", 10*time.Second)
		status, rec, code := cancel(t, running)
		if status != http.StatusOK || rec.Status != "cancelled" || rec.FinishedAt == nil {
			t.Fatalf("cancel: %d %s %+v", status, code, rec)
		}
		cancelledAt := *rec.FinishedAt

		// The worker runs one job at a time, so once this one has succeeded it has let go
		// of the cancelled one. asynq sends an abandoned task to retry, and a pipeline
		// that ignored the cancellation would still be running it, so also watch the
		// record past that redelivery (1 s retry delay, 1 s forwarder interval) and past
		// the time the job would have ended had it run on.
		after := s.submit(t, single("echo", "v1", `"after"`))
		s.waitStatus(t, after, "succeeded", 2*slowDelay+10*time.Second)
		until := started.StartedAt.Add(slowDelay + time.Second)
		if late := time.Now().Add(3 * time.Second); late.After(until) {
			until = late
		}
		for ; time.Now().Before(until); time.Sleep(50 * time.Millisecond) {
			if rec := s.poll(t, running); rec.Status != "cancelled" || string(rec.Result) != "null" || !rec.FinishedAt.Equal(cancelledAt) {
				t.Fatalf("the cancelled job changed: %+v", rec)
			}
		}
	})
}
