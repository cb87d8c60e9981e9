package job_test

import (
	"context"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
)

// TestWorkerLost: a loss is recorded on a job that has not finished, once; an older or
// repeated report changes nothing, a later loss replaces it, and WorkerFound takes back
// only the loss it names. A finished record is never touched.
func TestWorkerLost(t *testing.T) {
	ctx := context.Background()
	lost1, lost2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	retry1, retry2 := lost1.Add(30*time.Second), lost2.Add(30*time.Second)
	type step struct {
		name              string
		do                func(e *job.Executor, id string) (bool, error)
		wrote             bool
		wantLost, wantRet time.Time
	}
	lost := func(at, retry time.Time) func(*job.Executor, string) (bool, error) {
		return func(e *job.Executor, id string) (bool, error) { return e.WorkerLost(ctx, id, at, retry) }
	}
	found := func(at time.Time) func(*job.Executor, string) (bool, error) {
		return func(e *job.Executor, id string) (bool, error) { return e.WorkerFound(ctx, id, at) }
	}
	tests := []struct {
		name   string
		status job.Status
		steps  []step
	}{
		{"running", job.StatusRunning, []step{
			{"the first report", lost(lost1, retry1), true, lost1, retry1},
			{"the same loss again", lost(lost1, retry1.Add(time.Second)), false, lost1, retry1},
			{"a later loss", lost(lost2, retry2), true, lost2, retry2},
			{"a stale report of the earlier", lost(lost1, retry1), false, lost2, retry2},
			{"found, for another loss", found(lost1), false, lost2, retry2},
			{"found", found(lost2), true, time.Time{}, time.Time{}},
		}},
		{"pending (its worker stopped before marking it)", job.StatusPending, []step{
			{"no retry left", lost(lost1, time.Time{}), true, lost1, time.Time{}},
		}},
		{"succeeded", job.StatusSucceeded, []step{
			{"a report after the end", lost(lost1, retry1), false, time.Time{}, time.Time{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memstore.New(memstore.Options{TTL: time.Hour})
			rec := job.Record{ID: "j", Status: tt.status, Model: "echo", Version: "v1", CreatedAt: time.Now()}
			if err := store.Create(ctx, rec); err != nil {
				t.Fatal(err)
			}
			e := &job.Executor{Store: store}
			for _, s := range tt.steps {
				wrote, err := s.do(e, rec.ID)
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				got, err := store.Get(ctx, rec.ID)
				if err != nil {
					t.Fatal(err)
				}
				if wrote != s.wrote || !got.WorkerLostAt.Equal(s.wantLost) || !got.RetryAt.Equal(s.wantRet) {
					t.Errorf("%s: wrote %v, worker_lost_at %v, retry_at %v; want %v, %v, %v",
						s.name, wrote, got.WorkerLostAt, got.RetryAt, s.wrote, s.wantLost, s.wantRet)
				}
				if got.Status != tt.status {
					t.Errorf("%s: status %s, want %s", s.name, got.Status, tt.status)
				}
			}
		})
	}
	t.Run("a job that is gone", func(t *testing.T) {
		e := &job.Executor{Store: memstore.New(memstore.Options{})}
		if wrote, err := e.WorkerLost(ctx, "nosuch", lost1, retry1); wrote || err != nil {
			t.Errorf("WorkerLost = %v, %v; want false, nil", wrote, err)
		}
	})
}
