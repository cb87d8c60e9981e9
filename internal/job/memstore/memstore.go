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

// Store keeps records in a map. Finished records expire TTL after they finish, and
// records that never finish MaxAge after their creation.
type Store struct {
	ttl         time.Duration
	maxAge      time.Duration
	maxPerOwner int
	maxBytes    int64
	now         func() time.Time

	onFinal func(job.Record)

	mu        sync.Mutex
	recs      map[string]*job.Record
	lastSweep time.Time
	// open holds, per owner, the ids of its records that are not final, for the cap:
	// a record leaves when it becomes final or is found expired.
	open map[string]map[string]struct{}
	// bytes holds, per owner, what its records cost against MaxBytesPerOwner: a
	// record leaves when it is dropped (expired).
	bytes map[string]*holdings
	// once holds the idempotency keys in use, by job.Idempotency.Scope.
	once    map[string]onceUse
	onceTTL time.Duration
	// due holds the jobs whose callbacks wait for a delivery, by key, with when each
	// is due (job.CallbackQueue).
	due hooks
}

// onceUse is an idempotency key's first use and when it is forgotten.
type onceUse struct {
	job.Use
	expires time.Time
}

// Options configure a Store. The zero value of each field is a documented default.
type Options struct {
	// TTL is how long a record lives after it becomes final. 0 means job.DefaultTTL.
	TTL time.Duration
	// MaxAge is how long a record that never becomes final lives, from its creation.
	// 0 means job.DefaultMaxAge.
	MaxAge time.Duration
	// Now is the clock records are created, finished and expired by; nil means
	// time.Now.
	Now func() time.Time
	// MaxPerOwner caps the records of one owner (job.Record.Owner) that are not final;
	// Create refuses one more with job.ErrJobLimit. 0 means no cap.
	MaxPerOwner int
	// MaxBytesPerOwner caps what the records of one owner cost (job.RecordCost of
	// each, input while unfinished, result once final) until they expire; Create
	// refuses one that would pass it with a *job.BytesLimitError, or job.ErrJobTooLarge
	// when it passes it alone. 0 means no budget.
	MaxBytesPerOwner int64
	// OnFinal, when set, is called with a record after every write that makes it final
	// (outside the store's lock): how job.Waiters learn that a job finished.
	OnFinal func(job.Record)
	// IdempotencyTTL is how long an idempotency key is remembered after its first
	// use. 0 means job.DefaultIdempotencyTTL.
	IdempotencyTTL time.Duration
}

// New returns an empty store.
func New(opts Options) *Store {
	if opts.TTL <= 0 {
		opts.TTL = job.DefaultTTL
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = job.DefaultMaxAge
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IdempotencyTTL <= 0 {
		opts.IdempotencyTTL = job.DefaultIdempotencyTTL
	}
	return &Store{
		ttl: opts.TTL, maxAge: opts.MaxAge, now: opts.Now, maxPerOwner: max(opts.MaxPerOwner, 0),
		maxBytes: max(opts.MaxBytesPerOwner, 0), onFinal: opts.OnFinal,
		once: map[string]onceUse{}, onceTTL: opts.IdempotencyTTL,
		recs: map[string]*job.Record{}, open: map[string]map[string]struct{}{}, bytes: map[string]*holdings{},
		due: newHooks(),
	}
}

var (
	_ job.Store         = (*Store)(nil)
	_ job.OnceStore     = (*Store)(nil)
	_ job.CallbackQueue = (*Store)(nil)
)

// Create stores a new record, or refuses it with job.ErrJobLimit when its owner holds
// as many unfinished records as it may, or with a *job.BytesLimitError when its owner's
// records would cost more than its budget with it.
func (s *Store) Create(_ context.Context, rec job.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.create(rec, s.now())
}

// CreateOnce is Create, unless rec's owner used idem's key within IdempotencyTTL: then
// it returns that use and writes nothing.
func (s *Store) CreateOnce(_ context.Context, rec job.Record, idem job.Idempotency, pendingUntil time.Time) (*job.Use, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	scope := idem.Scope(rec.Owner)
	if u, ok := s.once[scope]; ok && now.Before(u.expires) {
		return &u.Use, nil
	}
	if err := s.create(rec, now); err != nil {
		return nil, err
	}
	s.once[scope] = onceUse{
		Use:     job.Use{Fingerprint: idem.Fingerprint, JobID: rec.ID, PendingUntil: pendingUntil},
		expires: now.Add(s.onceTTL),
	}
	return nil, nil
}

// Settle ends the pending state of owner's key, or forgets it when its job was not
// accepted.
func (s *Store) Settle(_ context.Context, owner string, idem job.Idempotency, id string, ok bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	scope := idem.Scope(owner)
	u, found := s.once[scope]
	if !found || u.JobID != id {
		return nil
	}
	if !ok {
		delete(s.once, scope)
		return nil
	}
	u.PendingUntil = time.Time{}
	s.once[scope] = u
	return nil
}

// SameShard is true: the store keeps every record in one place.
func (s *Store) SameShard(string, string, job.Idempotency) bool { return true }

// create is Create under the lock.
func (s *Store) create(rec job.Record, now time.Time) error {
	if now.Sub(s.lastSweep) > sweepEvery {
		for id, r := range s.recs {
			if s.expired(r, now) {
				s.drop(id, r)
			}
		}
		for scope, u := range s.once {
			if !now.Before(u.expires) {
				delete(s.once, scope)
			}
		}
		s.lastSweep = now
	}
	if _, ok := s.recs[rec.ID]; ok {
		return fmt.Errorf("job %s exists", rec.ID)
	}
	counted := rec.HoldsSlot(s.maxPerOwner)
	if counted && !s.room(rec.Owner, now) {
		return job.LimitReached(s.maxPerOwner)
	}
	cost := s.cost(&rec)
	if cost > 0 {
		if err := s.afford(&rec, cost, now); err != nil {
			return err
		}
	}
	s.recs[rec.ID] = &rec
	s.hold(&rec, cost)
	if counted {
		ids := s.open[rec.Owner]
		if ids == nil {
			ids = map[string]struct{}{}
			s.open[rec.Owner] = ids
		}
		ids[rec.ID] = struct{}{}
	}
	return nil
}

// room reports whether owner may have one more unfinished record. At the cap it first
// drops the owner's records that expired unfinished (JOB_MAX_AGE), which the sweep may
// not have reached yet, so a slot is free from the moment its record reads 404.
func (s *Store) room(owner string, now time.Time) bool {
	ids := s.open[owner]
	if len(ids) < s.maxPerOwner {
		return true
	}
	for id := range ids {
		if r, ok := s.recs[id]; !ok || s.expired(r, now) {
			s.drop(id, r)
			delete(ids, id)
		}
	}
	return len(ids) < s.maxPerOwner
}

// drop deletes a record and frees its owner's slot and bytes; r may be nil.
func (s *Store) drop(id string, r *job.Record) {
	delete(s.recs, id)
	s.due.remove(id)
	if r != nil {
		s.release(r.Owner, id)
		s.forget(r)
	}
}

// release frees the slot of owner's record id, if it held one.
func (s *Store) release(owner, id string) {
	ids, ok := s.open[owner]
	if !ok {
		return
	}
	delete(ids, id)
	if len(ids) == 0 {
		delete(s.open, owner)
	}
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
	next, finished, err := s.update(id, fn)
	if finished && s.onFinal != nil {
		s.onFinal(next)
	}
	return next, err
}

// update is Update under the lock; finished reports that the record became final.
func (s *Store) update(id string, fn func(*job.Record) error) (next job.Record, finished bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookup(id)
	if err != nil {
		return job.Record{}, false, err
	}
	next = *r
	if err := fn(&next); err != nil {
		return job.Record{}, false, err
	}
	finished = !r.Status.Final() && next.Status.Final()
	if finished {
		s.release(r.Owner, id)
		if next.Due() {
			s.due.add(id, next.Owner, s.now())
		}
	}
	s.recount(r, &next)
	*r = next
	return next, finished, nil
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
	return !now.Before(s.expiry(r))
}
