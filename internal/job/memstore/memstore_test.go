package memstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/testkit"
)

// t0 is now: the tests that read the real clock (no Options.Now) create records at
// t0, and a fixed date would put them past job.DefaultMaxAge a week later.
var t0 = time.Now().UTC().Truncate(time.Second)

func record(id string, status job.Status) job.Record {
	return job.Record{ID: id, Status: status, Model: "echo", Version: "v1", Input: json.RawMessage(`1`), CreatedAt: t0}
}

func finish(t *testing.T, s *memstore.Store, id string, status job.Status, at time.Time) {
	t.Helper()
	if _, err := s.Update(context.Background(), id, func(r *job.Record) error {
		r.Status, r.FinishedAt = status, at
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestTTL(t *testing.T) {
	const (
		ttl    = time.Hour
		maxAge = 10 * ttl
	)
	tests := []struct {
		name      string
		status    job.Status // the record's status; final ones finish at t0
		after     time.Duration
		wantFound bool
	}{
		{"succeeded, just before the TTL", job.StatusSucceeded, ttl - time.Nanosecond, true},
		{"succeeded, at the TTL", job.StatusSucceeded, ttl, false},
		{"failed, after the TTL", job.StatusFailed, ttl + time.Minute, false},
		{"cancelled, after the TTL", job.StatusCancelled, 2 * ttl, false},
		{"pending, just before the max age", job.StatusPending, maxAge - time.Nanosecond, true},
		{"pending, at the max age", job.StatusPending, maxAge, false},
		{"running, past the TTL but not the max age", job.StatusRunning, 5 * ttl, true},
		{"running, after the max age", job.StatusRunning, maxAge + time.Minute, false},
		{"created, after the max age", job.StatusCreated, 2 * maxAge, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testkit.NewClock(t0)
			s := memstore.New(memstore.Options{TTL: ttl, MaxAge: maxAge, Now: c.Now})
			ctx := context.Background()
			if err := s.Create(ctx, record("j", job.StatusPending)); err != nil {
				t.Fatal(err)
			}
			if tt.status.Final() {
				finish(t, s, "j", tt.status, t0)
			} else {
				finish(t, s, "j", tt.status, time.Time{})
			}
			c.Advance(tt.after)
			_, getErr := s.Get(ctx, "j")
			_, updErr := s.Update(ctx, "j", func(*job.Record) error { return nil })
			for name, err := range map[string]error{"Get": getErr, "Update": updErr} {
				if tt.wantFound && err != nil {
					t.Errorf("%s = %v, want the record", name, err)
				}
				if !tt.wantFound && !errors.Is(err, job.ErrNotFound) {
					t.Errorf("%s = %v, want ErrNotFound", name, err)
				}
			}
		})
	}
}

// The TTL counts from when the job finished, not from when it was created.
func TestTTLCountsFromFinish(t *testing.T) {
	c := testkit.NewClock(t0)
	s := memstore.New(memstore.Options{TTL: time.Hour, Now: c.Now})
	ctx := context.Background()
	if err := s.Create(ctx, record("j", job.StatusPending)); err != nil {
		t.Fatal(err)
	}
	c.Advance(5 * time.Hour)
	finish(t, s, "j", job.StatusSucceeded, c.Now())
	c.Advance(59 * time.Minute)
	if _, err := s.Get(ctx, "j"); err != nil {
		t.Fatalf("Get 59m after finishing: %v", err)
	}
	c.Advance(time.Minute)
	if _, err := s.Get(ctx, "j"); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("Get 1h after finishing = %v, want ErrNotFound", err)
	}
}

func TestDefaultTTL(t *testing.T) {
	c := testkit.NewClock(t0)
	s := memstore.New(memstore.Options{Now: c.Now})
	ctx := context.Background()
	if err := s.Create(ctx, record("j", job.StatusSucceeded)); err != nil {
		t.Fatal(err)
	}
	finish(t, s, "j", job.StatusSucceeded, t0)
	c.Advance(job.DefaultTTL - time.Second)
	if _, err := s.Get(ctx, "j"); err != nil {
		t.Fatalf("Get before job.DefaultTTL: %v", err)
	}
	c.Advance(time.Second)
	if _, err := s.Get(ctx, "j"); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("Get at job.DefaultTTL = %v, want ErrNotFound", err)
	}
}

// Expired records are dropped from memory, not only hidden.
func TestSweep(t *testing.T) {
	c := testkit.NewClock(t0)
	s := memstore.New(memstore.Options{TTL: time.Hour, Now: c.Now})
	ctx := context.Background()
	for i := range 10 {
		id := strconv.Itoa(i)
		if err := s.Create(ctx, record(id, job.StatusPending)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			finish(t, s, id, job.StatusSucceeded, t0)
		}
	}
	c.Advance(2 * time.Hour)
	if err := s.Create(ctx, record("new", job.StatusPending)); err != nil {
		t.Fatal(err)
	}
	if n := s.Len(); n != 6 {
		t.Errorf("Len = %d after the sweep, want the 5 unfinished and the new one", n)
	}
}

func TestCreateGetUpdate(t *testing.T) {
	s := memstore.New(memstore.Options{TTL: time.Hour})
	ctx := context.Background()
	rec := record("j", job.StatusCreated)
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, record("j", job.StatusPending)); err == nil {
		t.Error("Create of an existing id succeeded")
	}
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("Get(missing) = %v, want ErrNotFound", err)
	}
	if _, err := s.Update(ctx, "missing", func(*job.Record) error { return nil }); !errors.Is(err, job.ErrNotFound) {
		t.Errorf("Update(missing) = %v, want ErrNotFound", err)
	}

	got, _ := s.Get(ctx, "j")
	got.Status = job.StatusFailed // a copy: the store must not see this
	if again, _ := s.Get(ctx, "j"); again.Status != job.StatusCreated {
		t.Errorf("changing a returned record changed the store: %s", again.Status)
	}

	veto := errors.New("veto")
	if _, err := s.Update(ctx, "j", func(r *job.Record) error {
		r.Status = job.StatusRunning // discarded along with the error
		return veto
	}); !errors.Is(err, veto) {
		t.Errorf("Update = %v, want fn's error", err)
	}
	if again, _ := s.Get(ctx, "j"); again.Status != job.StatusCreated {
		t.Errorf("a failed Update wrote %s", again.Status)
	}

	upd, err := s.Update(ctx, "j", func(r *job.Record) error { r.Status = job.StatusPending; return nil })
	if err != nil || upd.Status != job.StatusPending {
		t.Fatalf("Update = %+v, %v", upd, err)
	}
	if again, _ := s.Get(ctx, "j"); again.Status != job.StatusPending {
		t.Errorf("stored %s after Update", again.Status)
	}
}

func TestUpdateIsAtomic(t *testing.T) {
	const goroutines, each = 50, 20
	s := memstore.New(memstore.Options{TTL: time.Hour})
	ctx := context.Background()
	rec := record("counter", job.StatusRunning)
	rec.Input = json.RawMessage(`0`)
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				_, err := s.Update(ctx, "counter", func(r *job.Record) error {
					n, err := strconv.Atoi(string(r.Input))
					if err != nil {
						return err
					}
					r.Input = json.RawMessage(strconv.Itoa(n + 1))
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// Readers and writers of other records race the increments.
	for i := range goroutines {
		wg.Go(func() {
			id := fmt.Sprintf("other-%d", i)
			if err := s.Create(ctx, record(id, job.StatusPending)); err != nil {
				t.Error(err)
			}
			_, _ = s.Get(ctx, "counter")
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, "counter")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(goroutines * each); string(got.Input) != want {
		t.Errorf("counter = %s after %d increments: updates were lost", got.Input, goroutines*each)
	}
}
