package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// DefaultPrefix is the key prefix of job records when Options.Prefix is empty.
const DefaultPrefix = "inferd:job:"

// maxAttempts bounds the optimistic retries of one Update. A job has a handful of
// writers at most (the submitting server, a worker or two, a cancel), so running out
// means something is badly wrong rather than busy.
const maxAttempts = 100

// Options configure a Store. The zero value of each field is a documented default.
type Options struct {
	// Prefix is prepended to a job id to make its key. "" means DefaultPrefix.
	Prefix string
	// TTL is how long a record lives after it becomes final. 0 means job.DefaultTTL.
	TTL time.Duration
}

// Store is a job.Store in Redis. It is safe for concurrent use by many goroutines and
// processes. It does not own the client: the caller closes it.
type Store struct {
	rc     redis.UniversalClient
	prefix string
	ttl    time.Duration
}

var _ job.Store = (*Store)(nil)

// New returns a store that keeps records through rc.
func New(rc redis.UniversalClient, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.TTL <= 0 {
		opts.TTL = job.DefaultTTL
	}
	return &Store{rc: rc, prefix: opts.Prefix, ttl: opts.TTL}
}

// Create writes a new record; it fails if the id exists.
func (s *Store) Create(ctx context.Context, rec job.Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding job %s: %w", rec.ID, err)
	}
	args := redis.SetArgs{Mode: "NX"}
	if rec.Status.Final() {
		args.TTL = s.ttl
	}
	err = s.rc.SetArgs(ctx, s.key(rec.ID), b, args).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("job %s exists", rec.ID)
	case err != nil:
		return unavailable("creating", rec.ID, err)
	}
	return nil
}

// Get returns a record, or an error wrapping job.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (job.Record, error) {
	b, err := s.rc.Get(ctx, s.key(id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return job.Record{}, fmt.Errorf("%w: %s", job.ErrNotFound, id)
	case err != nil:
		return job.Record{}, unavailable("reading", id, err)
	}
	return decode(id, b)
}

// Update applies fn to the current record and writes the result, atomically with
// respect to every other writer. When another writer changes the record between the
// read and the write, the transaction fails and Update starts again from a fresh read,
// so fn may run more than once and must do nothing but change the record. When fn
// returns an error nothing is written and that error is returned as is.
func (s *Store) Update(ctx context.Context, id string, fn func(*job.Record) error) (job.Record, error) {
	key := s.key(id)
	var (
		out   job.Record
		fnErr error
	)
	tx := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		switch {
		case errors.Is(err, redis.Nil):
			return fmt.Errorf("%w: %s", job.ErrNotFound, id)
		case err != nil:
			return err
		}
		rec, err := decode(id, b)
		if err != nil {
			return err
		}
		wasFinal := rec.Status.Final()
		if fnErr = fn(&rec); fnErr != nil {
			return fnErr
		}
		nb, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("encoding job %s: %w", id, err)
		}
		var args redis.SetArgs
		switch {
		case wasFinal:
			// The expiry counts from when the job finished, not from later writes.
			args.KeepTTL = true
		case rec.Status.Final():
			args.TTL = s.ttl
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SetArgs(ctx, key, nb, args)
			return nil
		})
		out = rec
		return err
	}
	for attempt := 1; ; attempt++ {
		fnErr = nil
		err := s.rc.Watch(ctx, tx, key)
		switch {
		case err == nil:
			return out, nil
		case fnErr != nil:
			return job.Record{}, fnErr
		case errors.Is(err, job.ErrNotFound), errors.Is(err, errCorrupt):
			return job.Record{}, err
		case !errors.Is(err, redis.TxFailedErr):
			return job.Record{}, unavailable("updating", id, err)
		case attempt == maxAttempts:
			return job.Record{}, fmt.Errorf("updating job %s: gave up after %d conflicting writes", id, attempt)
		}
		// Writers that collided once tend to collide again in lockstep; a little
		// jitter lets one of them through.
		if attempt > 2 {
			select {
			case <-ctx.Done():
				return job.Record{}, unavailable("updating", id, ctx.Err())
			case <-time.After(rand.N(time.Duration(attempt) * time.Millisecond)):
			}
		}
	}
}

func (s *Store) key(id string) string { return s.prefix + id }

// errCorrupt marks a record that is in Redis but cannot be read back.
var errCorrupt = errors.New("corrupt job record")

func decode(id string, b []byte) (job.Record, error) {
	var rec job.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return job.Record{}, fmt.Errorf("%w %s: %w", errCorrupt, id, err)
	}
	return rec, nil
}

// unavailable wraps a failure to talk to Redis with job.ErrQueueUnavailable, keeping the
// cause (a net error, a context error) visible to errors.Is as well.
func unavailable(op, id string, err error) error {
	return fmt.Errorf("%w: %s job %s: %w", job.ErrQueueUnavailable, op, id, err)
}
