package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/testkit"
)

// TestOwnerCap (see docs/design.md#job-records-are-bounded-per-key): a key may hold Options.MaxPerOwner unfinished
// records; one more is refused with job.ErrJobLimit until one of them frees its slot by
// finishing, or by expiring unfinished after the max age.
func TestOwnerCap(t *testing.T) {
	const (
		max    = 3
		maxAge = time.Hour
	)
	ctx := context.Background()
	finish := func(to job.Status) func(*memstore.Store, *testkit.Clock) error {
		return func(s *memstore.Store, _ *testkit.Clock) error {
			_, err := s.Update(ctx, "j0", func(r *job.Record) error { r.Status = to; return nil })
			return err
		}
	}
	tests := []struct {
		name string
		free func(*memstore.Store, *testkit.Clock) error
		// frees is how many slots free: expiry frees every job of the key at once.
		frees int
	}{
		{"succeeded", finish(job.StatusSucceeded), 1},
		{"failed", finish(job.StatusFailed), 1},
		{"cancelled", finish(job.StatusCancelled), 1},
		{"expired unfinished", func(_ *memstore.Store, c *testkit.Clock) error { c.Advance(maxAge); return nil }, max},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testkit.NewClock(t0)
			s := memstore.New(memstore.Options{TTL: time.Minute, Now: c.Now, MaxAge: maxAge, MaxPerOwner: max})
			create := func(id, owner string) error {
				rec := record(id, job.StatusPending)
				rec.Owner, rec.CreatedAt = owner, c.Now()
				return s.Create(ctx, rec)
			}
			for i := range max {
				if err := create(fmt.Sprint("j", i), "k1"); err != nil {
					t.Fatalf("job %d of %d: %v", i+1, max, err)
				}
			}
			if err := create("over", "k1"); !errors.Is(err, job.ErrJobLimit) {
				t.Fatalf("job %d of a key capped at %d: %v, want ErrJobLimit", max+1, max, err)
			}
			if _, err := s.Get(ctx, "over"); !errors.Is(err, job.ErrNotFound) {
				t.Fatalf("the refused job was recorded: %v", err)
			}
			if err := create("other", "k2"); err != nil {
				t.Fatalf("another key: %v", err)
			}
			if err := create("keyless", ""); err != nil {
				t.Fatalf("a job of no key: %v", err)
			}
			if err := tt.free(s, c); err != nil {
				t.Fatal(err)
			}
			for i := range tt.frees {
				if err := create(fmt.Sprint("after", i), "k1"); err != nil {
					t.Fatalf("job %d after %d slots freed: %v", i+1, tt.frees, err)
				}
			}
			if err := create("over2", "k1"); !errors.Is(err, job.ErrJobLimit) {
				t.Fatalf("a freed slot was counted twice: %v", err)
			}
		})
	}
}

// TestOwnerCapOff: without Options.MaxPerOwner a key's records are not counted.
func TestOwnerCapOff(t *testing.T) {
	s := memstore.New(memstore.Options{TTL: time.Minute})
	for i := range 2 * job.DefaultMaxUnfinishedPerKey {
		rec := record(fmt.Sprint("j", i), job.StatusPending)
		rec.Owner = "k"
		if err := s.Create(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
}
