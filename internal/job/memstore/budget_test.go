package memstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/testkit"
)

// input is a job input of about 10 KB.
var input = json.RawMessage(`"` + strings.Repeat("x", 10_000) + `"`)

// costOf is what rec costs its owner's budget, as both stores count it.
func costOf(t *testing.T, rec job.Record) int64 {
	t.Helper()
	b, err := job.EncodeJSON(rec)
	if err != nil {
		t.Fatal(err)
	}
	return job.RecordCost(len(b))
}

// TestByteBudget (see docs/design.md#job-records-are-bounded-per-key): a key's records cost it their stored bytes
// (input while unfinished, result once final) until they expire; a record that would
// take the key past its budget is refused with a *job.BytesLimitError whose
// RetryAfter is 1 s while unfinished inputs could make room, and otherwise the time
// to the first expiry. Expiry frees the bytes; so does a job that finishes with a
// smaller result. Other keys and jobs of no key are not counted; a record larger than
// the budget alone is job.ErrJobTooLarge.
func TestByteBudget(t *testing.T) {
	const (
		ttl    = time.Hour
		maxAge = 10 * ttl
	)
	ctx := context.Background()
	c := testkit.NewClock(t0)
	newRec := func(id, owner string) job.Record {
		rec := record(id, job.StatusPending)
		rec.Owner, rec.Input, rec.CreatedAt = owner, input, c.Now()
		return rec
	}
	pending := costOf(t, newRec("j0", "k1"))
	budget := 3*pending + pending/2 // three jobs, not four
	s := memstore.New(memstore.Options{TTL: ttl, MaxAge: maxAge, Now: c.Now, MaxBytesPerOwner: budget})
	create := func(id, owner string) error { return s.Create(ctx, newRec(id, owner)) }
	refused := func(t *testing.T, id string, retry time.Duration) {
		t.Helper()
		err := create(id, "k1")
		var ble *job.BytesLimitError
		if !errors.As(err, &ble) || !errors.Is(err, job.ErrJobBytesLimit) {
			t.Fatalf("%s over the budget: %v, want a BytesLimitError", id, err)
		}
		if ble.RetryAfter != retry || ble.Budget != budget || ble.Cost != pending {
			t.Errorf("refusal %+v, want RetryAfter %s", ble, retry)
		}
		if _, err := s.Get(ctx, id); !errors.Is(err, job.ErrNotFound) {
			t.Fatalf("the refused job was recorded: %v", err)
		}
	}
	finish := func(t *testing.T, id string, result json.RawMessage) {
		t.Helper()
		if _, err := s.Update(ctx, id, func(r *job.Record) error {
			r.Status, r.FinishedAt, r.Input, r.Result = job.StatusSucceeded, c.Now(), nil, result
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("unfinished inputs fill it", func(t *testing.T) {
		for i := range 3 {
			if err := create(fmt.Sprint("j", i), "k1"); err != nil {
				t.Fatalf("job %d: %v", i, err)
			}
		}
		refused(t, "over", time.Second) // they may finish with smaller results
	})
	t.Run("other keys and no key are not counted", func(t *testing.T) {
		if err := create("other", "k2"); err != nil {
			t.Fatal(err)
		}
		if err := create("keyless", ""); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("results count until they expire", func(t *testing.T) {
		for i := range 3 {
			c.Advance(time.Minute)
			finish(t, fmt.Sprint("j", i), input) // an echo: its result is its input
		}
		// j0 finished at t0+1m and expires at t0+1m+ttl; it is now t0+3m.
		refused(t, "over", ttl-2*time.Minute)
		c.Advance(ttl - 2*time.Minute)
		if err := create("j3", "k1"); err != nil {
			t.Fatalf("after the first record expired: %v", err)
		}
		refused(t, "over", time.Second) // j3 is unfinished
	})
	t.Run("a smaller result frees bytes", func(t *testing.T) {
		finish(t, "j3", json.RawMessage(`1`))
		if err := create("j4", "k1"); err != nil {
			t.Fatalf("after a job finished with a small result: %v", err)
		}
	})
	t.Run("too large alone", func(t *testing.T) {
		rec := newRec("huge", "k2")
		rec.Input = json.RawMessage(`"` + strings.Repeat("y", int(budget)) + `"`)
		if err := s.Create(ctx, rec); !errors.Is(err, job.ErrJobTooLarge) || !strings.Contains(err.Error(), "MAX_JOB_BYTES_PER_KEY") {
			t.Fatalf("a record larger than the budget: %v, want ErrJobTooLarge", err)
		}
	})
	t.Run("off", func(t *testing.T) {
		s := memstore.New(memstore.Options{TTL: ttl, Now: c.Now})
		for i := range 10 {
			if err := s.Create(ctx, newRec(fmt.Sprint("j", i), "k1")); err != nil {
				t.Fatalf("job %d without a budget: %v", i, err)
			}
		}
	})
}

// TestByteBudgetExpiredUnfinished: a record that never finishes frees its bytes at its
// max age, before the minute's sweep has run.
func TestByteBudgetExpiredUnfinished(t *testing.T) {
	const maxAge = time.Hour
	c := testkit.NewClock(t0)
	rec := record("a", job.StatusPending)
	rec.Owner, rec.Input = "k", input
	s := memstore.New(memstore.Options{MaxAge: maxAge, Now: c.Now, MaxBytesPerOwner: costOf(t, rec)})
	ctx := context.Background()
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.ID = "b"
	if err := s.Create(ctx, rec); !errors.Is(err, job.ErrJobBytesLimit) {
		t.Fatalf("over the budget: %v", err)
	}
	c.Advance(maxAge)
	rec.CreatedAt = c.Now()
	if err := s.Create(ctx, rec); err != nil {
		t.Fatalf("after the first expired unfinished: %v", err)
	}
}
