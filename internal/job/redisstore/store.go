package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
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
	// TTL is how long a record lives after it becomes final. 0 means 24h.
	TTL time.Duration
	// MaxAge is how long a record that never becomes final lives, from its creation.
	// 0 means DefaultMaxAge.
	MaxAge time.Duration
}

// DefaultMaxAge is the MaxAge of Options that leave it 0.
const DefaultMaxAge = 7 * 24 * time.Hour

// Store is a job.Store in Redis. It is safe for concurrent use by many goroutines and
// processes. It does not own the client: the caller closes it.
type Store struct {
	rc     redis.UniversalClient
	prefix string
	ttl    time.Duration
	maxAge time.Duration
}

var _ job.Store = (*Store)(nil)

// New returns a store that keeps records through rc.
func New(rc redis.UniversalClient, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.TTL <= 0 {
		opts.TTL = 24 * time.Hour
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	return &Store{rc: rc, prefix: opts.Prefix, ttl: opts.TTL, maxAge: opts.MaxAge}
}

// Create writes a new record; it fails if the id exists.
func (s *Store) Create(ctx context.Context, rec job.Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding job %s: %w", rec.ID, err)
	}
	// An unfinished record expires too, MaxAge after its creation: a job whose queueing
	// failed half-way, or whose task was lost with a Redis that had no replica, would
	// otherwise keep its record (and input) forever.
	args := redis.SetArgs{Mode: "NX", TTL: s.maxAge}
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
// read and the write, the write is refused and Update starts again from a fresh read,
// so fn may run more than once and must do nothing but change the record. When fn
// returns an error nothing is written and that error is returned as is.
//
// An Update is two round trips: a GET, and a script that writes only if the record is
// still the one read (compared by SHA-1 digest, so a large input is not sent back).
func (s *Store) Update(ctx context.Context, id string, fn func(*job.Record) error) (job.Record, error) {
	return s.update(ctx, id, nil, fn)
}

// UpdateFrom is Update for a caller that holds the record as it was last written or
// read: when the stored record is still prev, the write is one round trip, without a
// read. Otherwise it goes on as Update, from a fresh read.
func (s *Store) UpdateFrom(ctx context.Context, prev job.Record, fn func(*job.Record) error) (job.Record, error) {
	b, err := json.Marshal(prev)
	if err != nil {
		return job.Record{}, fmt.Errorf("encoding job %s: %w", prev.ID, err)
	}
	return s.update(ctx, prev.ID, b, fn)
}

// update runs the optimistic loop of Update, starting from the encoded record held
// when held is not nil.
func (s *Store) update(ctx context.Context, id string, held []byte, fn func(*job.Record) error) (job.Record, error) {
	key := s.key(id)
	for attempt := 1; ; attempt++ {
		cur := held
		held = nil
		if cur == nil {
			b, err := s.rc.Get(ctx, key).Bytes()
			switch {
			case errors.Is(err, redis.Nil):
				return job.Record{}, fmt.Errorf("%w: %s", job.ErrNotFound, id)
			case err != nil:
				return job.Record{}, unavailable("updating", id, err)
			}
			cur = b
		}
		rec, err := decode(id, cur)
		if err != nil {
			return job.Record{}, err
		}
		wasFinal := rec.Status.Final()
		if err := fn(&rec); err != nil {
			return job.Record{}, err
		}
		nb, err := json.Marshal(rec)
		if err != nil {
			return job.Record{}, fmt.Errorf("encoding job %s: %w", id, err)
		}
		// The expiry counts from when the job finished, or from its creation (MaxAge)
		// while it has not: later writes keep it.
		ttl := "keep"
		if !wasFinal && rec.Status.Final() {
			ttl = strconv.FormatInt(s.ttl.Milliseconds(), 10)
		}
		sum := sha1.Sum(cur)
		n, err := compareAndSet.Run(ctx, s.rc, []string{key}, hex.EncodeToString(sum[:]), nb, ttl).Int()
		switch {
		case err != nil:
			return job.Record{}, unavailable("updating", id, err)
		case n == 1:
			return rec, nil
		case n == -1:
			return job.Record{}, fmt.Errorf("%w: %s", job.ErrNotFound, id)
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

// compareAndSet writes ARGV[2] to KEYS[1] if the stored value's SHA-1 is ARGV[1]. ARGV[3]
// is the expiry: "" none, "keep" the current one, or milliseconds. It returns 1 when it
// wrote, 0 when the value was another, -1 when there was none.
var compareAndSet = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if redis.sha1hex(cur) ~= ARGV[1] then return 0 end
if ARGV[3] == 'keep' then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
elseif ARGV[3] ~= '' then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1
`)

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
