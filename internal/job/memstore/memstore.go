package memstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// sweepEvery bounds how often Create scans for expired records, so the scan's cost is
// spread thinly however many jobs arrive.
const sweepEvery = time.Minute

// DefaultMaxAge is how long an unfinished record lives unless WithMaxAge says otherwise.
const DefaultMaxAge = 7 * 24 * time.Hour

// Store keeps records in a map. Finished records expire TTL after they finish, and
// records that never finish MaxAge after their creation.
type Store struct {
	ttl    time.Duration
	maxAge time.Duration
	now    func() time.Time

	mu        sync.Mutex
	recs      map[string]*job.Record
	lastSweep time.Time
}

// New returns a store whose finished records live for ttl (0 means 24h). now defaults
// to time.Now.
func New(ttl time.Duration, now func() time.Time) *Store {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	if now == nil {
		now = time.Now
	}
	return &Store{ttl: ttl, maxAge: DefaultMaxAge, now: now, recs: map[string]*job.Record{}}
}

// WithMaxAge sets how long a record that never finishes lives, from its creation (0
// leaves DefaultMaxAge), and returns s. Call it before using s.
func (s *Store) WithMaxAge(d time.Duration) *Store {
	if d > 0 {
		s.maxAge = d
	}
	return s
}

var _ job.Store = (*Store)(nil)

// Create stores a new record.
func (s *Store) Create(_ context.Context, rec job.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if now.Sub(s.lastSweep) > sweepEvery {
		for id, r := range s.recs {
			if s.expired(r, now) {
				delete(s.recs, id)
			}
		}
		s.lastSweep = now
	}
	if _, ok := s.recs[rec.ID]; ok {
		return fmt.Errorf("job %s exists", rec.ID)
	}
	s.recs[rec.ID] = &rec
	return nil
}

// Get returns a copy of a record.
func (s *Store) Get(_ context.Context, id string) (job.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookup(id)
	if err != nil {
		return job.Record{}, err
	}
	return *r, nil
}

// Update applies fn to a copy and keeps it when fn succeeds.
func (s *Store) Update(_ context.Context, id string, fn func(*job.Record) error) (job.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookup(id)
	if err != nil {
		return job.Record{}, err
	}
	next := *r
	if err := fn(&next); err != nil {
		return job.Record{}, err
	}
	*r = next
	return next, nil
}

// UpdateFrom is Update: the record is in memory, there is no read to save.
func (s *Store) UpdateFrom(ctx context.Context, prev job.Record, fn func(*job.Record) error) (job.Record, error) {
	return s.Update(ctx, prev.ID, fn)
}

// Len returns the number of records held, expired ones included until swept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

func (s *Store) lookup(id string) (*job.Record, error) {
	r, ok := s.recs[id]
	if !ok || s.expired(r, s.now()) {
		return nil, fmt.Errorf("%w: %s", job.ErrNotFound, id)
	}
	return r, nil
}

func (s *Store) expired(r *job.Record, now time.Time) bool {
	if !r.Status.Final() || r.FinishedAt.IsZero() {
		return now.Sub(r.CreatedAt) >= s.maxAge
	}
	return now.Sub(r.FinishedAt) >= s.ttl
}
