package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/testkit"
)

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func newClock() *testkit.Clock { return testkit.NewClock(t0) }

// predictor counts its calls and answers with fn, echoing the items when fn is nil.
type predictor struct {
	calls atomic.Int32
	fn    func(ctx context.Context, items []json.RawMessage) ([]json.RawMessage, error)
}

func (p *predictor) Predict(ctx context.Context, _, _ string, items []json.RawMessage) ([]json.RawMessage, error) {
	p.calls.Add(1)
	if p.fn == nil {
		return items, nil
	}
	return p.fn(ctx, items)
}

// observer counts what the executor reports.
type observer struct {
	started  atomic.Int32
	finished atomic.Int32
	mu       sync.Mutex
	last     job.Record
}

func (o *observer) Started(job.Record) { o.started.Add(1) }

func (o *observer) Finished(rec job.Record) {
	o.finished.Add(1)
	o.mu.Lock()
	o.last = rec
	o.mu.Unlock()
}

// recordingStore notes the status of every record it writes, in order.
type recordingStore struct {
	*memstore.Store
	failCreate  error
	failUpdate  func(n int) error // fails the nth Update (from 0) before applying it
	mu          sync.Mutex
	writes      []job.Status
	ids         []string
	updateCount int
}

func (s *recordingStore) Create(ctx context.Context, rec job.Record) error {
	if s.failCreate != nil {
		return s.failCreate
	}
	if err := s.Store.Create(ctx, rec); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, rec.Status)
	s.ids = append(s.ids, rec.ID)
	return nil
}

func (s *recordingStore) Update(ctx context.Context, id string, fn func(*job.Record) error) (job.Record, error) {
	return s.write(func() (job.Record, error) { return s.Store.Update(ctx, id, fn) })
}

func (s *recordingStore) UpdateFrom(ctx context.Context, prev job.Record, fn func(*job.Record) error) (job.Record, error) {
	return s.write(func() (job.Record, error) { return s.Store.UpdateFrom(ctx, prev, fn) })
}

// write counts an update, fails it when failUpdate says so, and notes what it wrote.
func (s *recordingStore) write(update func() (job.Record, error)) (job.Record, error) {
	s.mu.Lock()
	n := s.updateCount
	s.updateCount++
	s.mu.Unlock()
	if s.failUpdate != nil {
		if err := s.failUpdate(n); err != nil {
			return job.Record{}, err
		}
	}
	rec, err := update()
	if err == nil {
		s.mu.Lock()
		s.writes = append(s.writes, rec.Status)
		s.mu.Unlock()
	}
	return rec, err
}

func (s *recordingStore) Writes() []job.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]job.Status(nil), s.writes...)
}

// fakeRunner records what it is asked to do.
type fakeRunner struct {
	enqueueErr error
	abandonErr error
	onEnqueue  func(rec job.Record)

	mu        sync.Mutex
	enqueued  []job.Record
	abandoned []string
}

func (r *fakeRunner) Enqueue(_ context.Context, rec job.Record) error {
	r.mu.Lock()
	r.enqueued = append(r.enqueued, rec)
	r.mu.Unlock()
	if r.onEnqueue != nil {
		r.onEnqueue(rec)
	}
	return r.enqueueErr
}

func (r *fakeRunner) Abandon(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.abandoned = append(r.abandoned, id)
	return r.abandonErr
}

func newStore(c *testkit.Clock) *memstore.Store {
	return memstore.New(memstore.Options{TTL: time.Hour, Now: c.Now})
}

func create(t *testing.T, s job.Store, rec job.Record) job.Record {
	t.Helper()
	if rec.ID == "" {
		rec.ID = "job-1"
	}
	if rec.Model == "" {
		rec.Model, rec.Version = "echo", "v1"
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = t0
	}
	if err := s.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func get(t *testing.T, s job.Store, id string) job.Record {
	t.Helper()
	rec, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return rec
}

var errBoom = errors.New("boom")

// atOnceRunner is a fakeRunner that records and queues in one step (a job.Submitter),
// writing the record, pending, to store as a queue.Submitter writes it to Redis. It
// keeps no idempotency keys.
type atOnceRunner struct {
	fakeRunner
	store     job.Store
	createErr error
}

func (r *atOnceRunner) Submit(ctx context.Context, rec job.Record, _ *job.Once) (job.Record, *job.Use, error) {
	rec.Status = job.StatusPending
	if r.createErr != nil {
		return job.Record{}, nil, r.createErr
	}
	if err := r.store.Create(ctx, rec); err != nil {
		return job.Record{}, nil, err
	}
	if err := r.Enqueue(ctx, rec); err != nil {
		return job.Record{}, nil, err
	}
	return rec, nil, nil
}

func (r *atOnceRunner) Settle(context.Context, string, job.Idempotency, string, bool) error {
	return nil
}

func (r *atOnceRunner) SameShard(string, string, job.Idempotency) bool { return true }

// failingReplicas is a job.Replicas whose every wait fails.
type failingReplicas struct{ err error }

func (r failingReplicas) Wait(context.Context, string) error { return r.err }
