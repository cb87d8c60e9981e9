package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/inferd/inferd/internal/job"
)

// TestSubmitOnce: in process, a duplicate sent while the first submission is being
// queued is told to retry (409); once the first is accepted a duplicate gets its job;
// a submission the runner refused leaves no key behind, so that its retry makes a job.
func TestSubmitOnce(t *testing.T) {
	ctx := context.Background()
	idem := &job.Idempotency{Key: "k1", Fingerprint: "f"}
	sub := job.Submission{Owner: "o", Model: "echo", Version: "v1", Input: json.RawMessage(`1`), Idempotency: idem}

	t.Run("in progress, then accepted", func(t *testing.T) {
		c := newClock()
		r := &fakeRunner{}
		st := newStore(c)
		svc := &job.Service{Store: st, Submitter: job.Steps{Store: st, Runner: r}, Now: c.Now}
		var during error
		r.onEnqueue = func(job.Record) { _, _, during = svc.SubmitWith(ctx, sub) }
		first, replayed, err := svc.SubmitWith(ctx, sub)
		if err != nil || replayed {
			t.Fatalf("first: %v (replayed %v)", err, replayed)
		}
		var ipe *job.InProgressError
		if !errors.As(during, &ipe) || !errors.Is(during, job.ErrIdempotencyInProgress) || ipe.RetryAfter <= 0 {
			t.Fatalf("a duplicate while the first was queued: %v", during)
		}
		r.onEnqueue = nil
		again, replayed, err := svc.SubmitWith(ctx, sub)
		if err != nil || !replayed || again.ID != first.ID {
			t.Fatalf("a duplicate once accepted: %v, %s replayed %v; want %s", err, again.ID, replayed, first.ID)
		}
		if n := len(r.enqueued); n != 1 {
			t.Errorf("%d jobs queued, want 1", n)
		}
	})

	t.Run("refused, then retried", func(t *testing.T) {
		c := newClock()
		r := &fakeRunner{enqueueErr: job.ErrQueueFull}
		st := newStore(c)
		svc := &job.Service{Store: st, Submitter: job.Steps{Store: st, Runner: r}, Now: c.Now}
		if _, _, err := svc.SubmitWith(ctx, sub); !errors.Is(err, job.ErrQueueFull) {
			t.Fatalf("first: %v, want ErrQueueFull", err)
		}
		r.enqueueErr = nil
		rec, replayed, err := svc.SubmitWith(ctx, sub)
		if err != nil || replayed || rec.Status != job.StatusPending {
			t.Fatalf("the retry: %v, replayed %v, %+v", err, replayed, rec)
		}
	})
}

// TestSubmitOnceEarlierFingerprint: a key recorded with the fingerprint of an earlier
// server (Idempotency.Earlier) finds its job when repeated; a repeat that matches
// neither fingerprint is refused.
func TestSubmitOnceEarlierFingerprint(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := newStore(c)
	svc := &job.Service{Store: st, Submitter: job.Steps{Store: st, Runner: &fakeRunner{}}, Now: c.Now}
	sub := func(idem job.Idempotency) job.Submission {
		return job.Submission{Owner: "o", Model: "echo", Version: "v1", Input: json.RawMessage(`1`), Idempotency: &idem}
	}
	first, _, err := svc.SubmitWith(ctx, sub(job.Idempotency{Key: "k", Fingerprint: "text"}))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		earlier func() string
		want    error
	}{
		{"the earlier fingerprint matches", func() string { return "text" }, nil},
		{"neither matches", func() string { return "other text" }, job.ErrIdempotencyMismatch},
		{"no earlier fingerprint", nil, job.ErrIdempotencyMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, replayed, err := svc.SubmitWith(ctx, sub(job.Idempotency{Key: "k", Fingerprint: "value", Earlier: tt.earlier}))
			if !errors.Is(err, tt.want) || err == nil && (!replayed || rec.ID != first.ID) {
				t.Fatalf("%v, %s replayed %v; want %v and job %s", err, rec.ID, replayed, tt.want, first.ID)
			}
		})
	}
}
