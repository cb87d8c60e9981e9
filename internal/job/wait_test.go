package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
)

// waitSetup is a service whose in-memory store wakes its waiters, with one running
// job, job-1.
func waitSetup(t *testing.T, max int) (*job.Service, *job.Waiters) {
	t.Helper()
	w := &job.Waiters{Max: max}
	store := memstore.New(memstore.Options{TTL: time.Hour, OnFinal: w.Finish})
	create(t, store, job.Record{ID: "job-1", Status: job.StatusRunning, CreatedAt: time.Now()})
	create(t, store, job.Record{ID: "job-2", Status: job.StatusRunning, CreatedAt: time.Now()})
	return &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: &fakeRunner{}}, Waiters: w}, w
}

// finish moves id to status, as a worker's or a cancel's final write does.
func finish(t *testing.T, s *job.Service, id string, status job.Status) {
	t.Helper()
	if _, err := s.Store.Update(context.Background(), id, func(r *job.Record) error {
		r.Status, r.FinishedAt = status, time.Now()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

type waited struct {
	rec  job.Record
	err  error
	took time.Duration
}

// startWait runs Service.Wait on a goroutine of the bubble and returns once it waits.
func startWait(ctx context.Context, s *job.Service, id string, d time.Duration) <-chan waited {
	ch := make(chan waited, 1)
	go func() {
		start := time.Now()
		rec, err := s.Wait(ctx, id, d)
		ch <- waited{rec, err, time.Since(start)}
	}()
	synctest.Wait()
	return ch
}

// TestWait runs the long poll on the bubble's clock: a wait answers the moment its job
// becomes final (by finishing or by a cancel), not a tick later, and otherwise exactly
// when its time runs out (cut to MaxWait), its client leaves or the waits close.
func TestWait(t *testing.T) {
	tests := []struct {
		name string
		max  int
		// act runs while the wait on job-1 is held; it returns what ends the wait and
		// the time the wait must have taken.
		act      func(t *testing.T, s *job.Service, w *job.Waiters, cancel context.CancelFunc) time.Duration
		wait     time.Duration
		want     job.Status
		wantHeld int // waits held while act ran
	}{
		{name: "finishes", wait: 30 * time.Second, want: job.StatusSucceeded, wantHeld: 1,
			act: func(t *testing.T, s *job.Service, _ *job.Waiters, _ context.CancelFunc) time.Duration {
				time.Sleep(3 * time.Second)
				finish(t, s, "job-1", job.StatusSucceeded)
				return 3 * time.Second
			}},
		{name: "cancelled", wait: 30 * time.Second, want: job.StatusCancelled, wantHeld: 1,
			act: func(t *testing.T, s *job.Service, _ *job.Waiters, _ context.CancelFunc) time.Duration {
				if _, err := s.Cancel(context.Background(), "job-1"); err != nil {
					t.Fatal(err)
				}
				return 0
			}},
		// Finish hands the record, and the wait answers with it without reading the
		// store (which still says running).
		{name: "finished with its record", wait: 30 * time.Second, want: job.StatusSucceeded, wantHeld: 1,
			act: func(_ *testing.T, _ *job.Service, w *job.Waiters, _ context.CancelFunc) time.Duration {
				w.Finish(job.Record{ID: "job-1", Status: job.StatusSucceeded})
				return 0
			}},
		// A wake by id alone (a record too large to publish, an older worker) re-reads:
		// while the job runs the wait goes on.
		{name: "woken by id", wait: 30 * time.Second, want: job.StatusFailed, wantHeld: 1,
			act: func(t *testing.T, s *job.Service, w *job.Waiters, _ context.CancelFunc) time.Duration {
				w.Wake("job-1")
				time.Sleep(time.Second)
				finish(t, s, "job-1", job.StatusFailed)
				return time.Second
			}},
		{name: "another job finishing does not end it", wait: 5 * time.Second, want: job.StatusRunning, wantHeld: 1,
			act: func(t *testing.T, s *job.Service, w *job.Waiters, _ context.CancelFunc) time.Duration {
				finish(t, s, "job-2", job.StatusSucceeded)
				w.WakeAll() // a re-subscription: the wait re-reads and waits on
				return 5 * time.Second
			}},
		{name: "runs out", wait: 1500 * time.Millisecond, want: job.StatusRunning, wantHeld: 1,
			act: func(*testing.T, *job.Service, *job.Waiters, context.CancelFunc) time.Duration {
				return 1500 * time.Millisecond
			}},
		{name: "cut to MaxWait", wait: time.Hour, want: job.StatusRunning, wantHeld: 1,
			act: func(*testing.T, *job.Service, *job.Waiters, context.CancelFunc) time.Duration { return job.MaxWait }},
		{name: "the client leaves", wait: 30 * time.Second, want: job.StatusRunning, wantHeld: 1,
			act: func(_ *testing.T, _ *job.Service, _ *job.Waiters, cancel context.CancelFunc) time.Duration {
				time.Sleep(time.Second)
				cancel()
				return time.Second
			}},
		{name: "shutdown", wait: 30 * time.Second, want: job.StatusRunning, wantHeld: 1,
			act: func(_ *testing.T, s *job.Service, _ *job.Waiters, _ context.CancelFunc) time.Duration {
				time.Sleep(time.Second)
				s.EndWaits()
				return time.Second
			}},
		{name: "too many waits answer at once", max: 1, wait: 30 * time.Second, want: job.StatusFailed, wantHeld: 1,
			act: func(t *testing.T, s *job.Service, _ *job.Waiters, _ context.CancelFunc) time.Duration {
				// The one wait allowed is held; this second one answers at once.
				if rec, err := s.Wait(context.Background(), "job-2", 30*time.Second); err != nil || rec.Status != job.StatusRunning {
					t.Errorf("second wait: %+v, %v", rec, err)
				}
				time.Sleep(2 * time.Second)
				finish(t, s, "job-1", job.StatusFailed)
				return 2 * time.Second
			}},
		{name: "zero answers at once", wait: 0, want: job.StatusRunning, wantHeld: 0,
			act: func(*testing.T, *job.Service, *job.Waiters, context.CancelFunc) time.Duration { return 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, w := waitSetup(t, tt.max)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				got := startWait(ctx, s, "job-1", tt.wait)
				if n := w.Len(); n != tt.wantHeld {
					t.Errorf("%d waits held, want %d", n, tt.wantHeld)
				}
				took := tt.act(t, s, w, cancel)
				r := <-got
				if r.err != nil || r.rec.Status != tt.want || r.took != took {
					t.Errorf("Wait: %s after %s (%v), want %s after %s", r.rec.Status, r.took, r.err, tt.want, took)
				}
				if n := w.Len(); n != 0 {
					t.Errorf("%d waits left behind", n)
				}
			})
		})
	}
}

// TestWaitAfterShutdown: once the waits are closed, a wait answers at once.
func TestWaitAfterShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := waitSetup(t, 0)
		s.EndWaits()
		s.EndWaits() // twice, as Drain and then the shutdown do
		start := time.Now()
		if rec, err := s.Wait(context.Background(), "job-1", 30*time.Second); err != nil || rec.Status != job.StatusRunning || time.Since(start) != 0 {
			t.Fatalf("%+v %v after %s", rec, err, time.Since(start))
		}
	})
}

// TestWaitForNoJob: a job that does not exist is ErrNotFound at once.
func TestWaitForNoJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, w := waitSetup(t, 0)
		if _, err := s.Wait(context.Background(), "nope", 30*time.Second); !errors.Is(err, job.ErrNotFound) {
			t.Fatalf("err %v", err)
		}
		if w.Len() != 0 {
			t.Fatal("a wait left behind")
		}
	})
}

// getCounter counts the reads of the store it wraps.
type getCounter struct {
	*memstore.Store
	gets atomic.Int32
}

func (s *getCounter) Get(ctx context.Context, id string) (job.Record, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, id)
}

// TestWaitForAJobSubmittedHere: a wait for a job this process submitted, whose final
// record the Waiters has not heard of since, reads nothing before it waits; it reads
// the record when that is no longer known: not listening yet, heard of as final,
// forgotten at a re-subscription or past Track, or when the wait ends without it.
func TestWaitForAJobSubmittedHere(t *testing.T) {
	tests := []struct {
		name   string
		listen bool // the Waiters listens before the submissions
		jobs   int  // submitted; the wait is on the first
		// before runs between the submissions and the wait
		before func(t *testing.T, s *job.Service, w *job.Waiters, id string)
		wait   time.Duration
		finish bool // the job finishes a second into the wait
		want   job.Status
		reads  int32
		took   time.Duration
	}{
		{name: "tracked: no read", listen: true, jobs: 1, wait: 30 * time.Second, finish: true,
			want: job.StatusSucceeded, reads: 0, took: time.Second},
		{name: "not listening yet", listen: false, jobs: 1, wait: 30 * time.Second, finish: true,
			want: job.StatusSucceeded, reads: 1, took: time.Second},
		{name: "finished before the wait", listen: true, jobs: 1, wait: 30 * time.Second,
			before: func(t *testing.T, s *job.Service, _ *job.Waiters, id string) {
				finish(t, s, id, job.StatusSucceeded)
			},
			want: job.StatusSucceeded, reads: 1, took: 0},
		{name: "runs out: read as it is then", listen: true, jobs: 1, wait: 2 * time.Second,
			want: job.StatusPending, reads: 1, took: 2 * time.Second},
		{name: "forgotten at a re-subscription", listen: true, jobs: 1, wait: 30 * time.Second, finish: true,
			before: func(_ *testing.T, _ *job.Service, w *job.Waiters, _ string) { w.WakeAll() },
			want:   job.StatusSucceeded, reads: 1, took: time.Second},
		{name: "forgotten past Track", listen: true, jobs: 3, wait: 30 * time.Second, finish: true,
			want: job.StatusSucceeded, reads: 1, took: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := &job.Waiters{Track: 2}
				store := &getCounter{Store: memstore.New(memstore.Options{TTL: time.Hour, OnFinal: w.Finish})}
				s := &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: &fakeRunner{}}, Waiters: w}
				if tt.listen {
					w.WakeAll() // the subscription is confirmed
				}
				var ids []string
				for range tt.jobs {
					rec, err := s.Submit(context.Background(), "echo", "v1", false, json.RawMessage(`1`))
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, rec.ID)
				}
				if tt.before != nil {
					tt.before(t, s, w, ids[0])
				}
				got := startWait(context.Background(), s, ids[0], tt.wait)
				if tt.finish {
					time.Sleep(time.Second)
					finish(t, s, ids[0], job.StatusSucceeded)
				}
				r := <-got
				if r.err != nil || r.rec.Status != tt.want || r.took != tt.took {
					t.Errorf("Wait: %s after %s (%v), want %s after %s", r.rec.Status, r.took, r.err, tt.want, tt.took)
				}
				if n := store.gets.Load(); n != tt.reads {
					t.Errorf("the wait read the record %d times, want %d", n, tt.reads)
				}
			})
		})
	}
}

// TestAwaited: a final record heard of while no wait holds for its job need not be
// decoded, and the job is no longer tracked, so a later wait reads the record at once.
func TestAwaited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, w := waitSetup(t, 0)
		w.Track = 2
		w.WakeAll()
		w.Submitting("job-1")
		got := startWait(context.Background(), s, "job-2", 30*time.Second)
		if w.Awaited("job-1") {
			t.Error("Awaited(job-1) with no wait held for it")
		}
		if !w.Awaited("job-2") {
			t.Error("not Awaited(job-2) while a wait holds for it")
		}
		finish(t, s, "job-1", job.StatusSucceeded) // in the store alone: no one tells w
		start := time.Now()
		if rec, err := s.Wait(context.Background(), "job-1", 30*time.Second); err != nil || rec.Status != job.StatusSucceeded || time.Since(start) != 0 {
			t.Errorf("Wait(job-1): %s after %s (%v), want succeeded at once", rec.Status, time.Since(start), err)
		}
		finish(t, s, "job-2", job.StatusSucceeded)
		<-got
	})
}
