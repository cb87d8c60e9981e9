package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

func owned(id, owner string) job.Record {
	rec := newRecord(id)
	rec.Owner = owner
	return rec
}

// TestOwnerCap (see docs/design.md#job-records-are-bounded-per-key): a key may hold MaxPerOwner unfinished records;
// one more is refused with job.ErrJobLimit until one of them frees its slot, whichever
// way it leaves: finished, failed, cancelled, expired unfinished after MaxAge, or
// deleted.
func TestOwnerCap(t *testing.T) {
	const max = 3
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	// A job is finished by a worker, whose store has no cap of its own.
	final := func(to job.Status) func(*testing.T, *redisstore.Store, string) {
		return func(t *testing.T, _ *redisstore.Store, id string) {
			worker := redisstore.New(rc, redisstore.Options{Prefix: tname(t) + ":", OwnerPrefix: tname(t) + ":of:"})
			if _, err := worker.Update(ctx, id, func(r *job.Record) error { r.Status = to; return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		maxAge time.Duration
		free   func(t *testing.T, s *redisstore.Store, id string)
	}{
		{"succeeded", 0, final(job.StatusSucceeded)},
		{"failed", 0, final(job.StatusFailed)},
		{"cancelled", 0, final(job.StatusCancelled)},
		{"expired unfinished", 300 * time.Millisecond, func(t *testing.T, s *redisstore.Store, id string) {
			var err error
			testkit.Eventually(t, 10*time.Second, func() bool {
				_, err = s.Get(ctx, id)
				return errors.Is(err, job.ErrNotFound)
			}, "the record outlived its max age: %s", func() string { return fmt.Sprint(err) })
		}},
		{"deleted", 0, func(t *testing.T, _ *redisstore.Store, id string) {
			if err := rc.Del(ctx, tname(t)+":"+id).Err(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := redisstore.New(rc, redisstore.Options{
				Prefix: tname(t) + ":", OwnerPrefix: tname(t) + ":of:", MaxAge: tt.maxAge, MaxPerOwner: max,
			})
			for i := range max {
				if err := s.Create(ctx, owned(fmt.Sprint("j", i), "k1")); err != nil {
					t.Fatalf("job %d of %d: %v", i+1, max, err)
				}
				// A running job still holds its slot.
				if _, err := s.Update(ctx, fmt.Sprint("j", i), func(r *job.Record) error { r.Status = job.StatusRunning; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			err := s.Create(ctx, owned("over", "k1"))
			if !errors.Is(err, job.ErrJobLimit) {
				t.Fatalf("job %d of a key capped at %d: %v, want ErrJobLimit", max+1, max, err)
			}
			if _, err := s.Get(ctx, "over"); !errors.Is(err, job.ErrNotFound) {
				t.Fatalf("the refused job was recorded: %v", err)
			}
			// Other keys, and jobs of no key, are not counted against k1.
			if err := s.Create(ctx, owned("other", "k2")); err != nil {
				t.Fatalf("another key: %v", err)
			}
			if err := s.Create(ctx, owned("keyless", "")); err != nil {
				t.Fatalf("a job of no key: %v", err)
			}

			tt.free(t, s, "j0")
			if tt.maxAge > 0 {
				// Every job of the key expired together; all their slots are free.
				for i := range max {
					if err := s.Create(ctx, owned(fmt.Sprint("again", i), "k1")); err != nil {
						t.Fatalf("job %d after the others expired: %v", i+1, err)
					}
				}
				return
			}
			// A record that vanished without a word (deleted, evicted) is noticed by a
			// check that runs at most once a second per key.
			testkit.Eventually(t, 5*time.Second, func() bool {
				if err = s.Create(ctx, owned("after", "k1")); err != nil && (!errors.Is(err, job.ErrJobLimit) || tt.name != "deleted") {
					t.Fatalf("a job after one of the key's left: %v", err)
				}
				return err == nil
			}, "a job after one of the key's left: %s", func() string { return fmt.Sprint(err) })
			if err := s.Create(ctx, owned("over2", "k1")); !errors.Is(err, job.ErrJobLimit) {
				t.Fatalf("the freed slot was counted twice: %v", err)
			}
		})
	}
}

// TestOwnerCapIsAtomic: concurrent submissions of one key, from separate stores as from
// separate servers, never get past the cap together.
func TestOwnerCapIsAtomic(t *testing.T) {
	const (
		max     = 10
		writers = 40
	)
	srv := redistest.Start(t)
	ctx := context.Background()
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range writers {
		s := redisstore.New(srv.Client(), redisstore.Options{MaxPerOwner: max})
		wg.Go(func() {
			err := s.Create(ctx, owned(fmt.Sprint("c", i), "k"))
			switch {
			case err == nil:
				created.Add(1)
			case errors.Is(err, job.ErrJobLimit):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if created.Load() != max || refused.Load() != writers-max {
		t.Fatalf("created %d and refused %d of %d, want %d created", created.Load(), refused.Load(), writers, max)
	}
}

// TestOwnerSetExpires: the set of a key's jobs does not outlive the jobs it counts.
func TestOwnerSetExpires(t *testing.T) {
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	const maxAge = time.Hour
	s := redisstore.New(rc, redisstore.Options{MaxAge: maxAge, MaxPerOwner: 5})
	if err := s.Create(ctx, owned("a", "k")); err != nil {
		t.Fatal(err)
	}
	d, err := rc.PTTL(ctx, redisstore.DefaultOwnerPrefix+"k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if d <= maxAge-time.Minute || d > maxAge {
		t.Fatalf("the owner set expires in %s, want about the max age %s", d, maxAge)
	}
	if _, err := s.Update(ctx, "a", func(r *job.Record) error { r.Status = job.StatusSucceeded; return nil }); err != nil {
		t.Fatal(err)
	}
	if n, err := rc.Exists(ctx, redisstore.DefaultOwnerPrefix+"k").Result(); err != nil || n != 0 {
		t.Fatalf("the owner set of a key without unfinished jobs exists (%d, %v)", n, err)
	}
}

// tname is a key prefix private to the test.
func tname(t *testing.T) string { return "test:" + t.Name() }
