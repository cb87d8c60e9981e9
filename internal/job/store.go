package job

import (
	"context"
	"time"
)

// DefaultTTL is how long a store keeps a finished job's record when it is given no TTL
// (and JOB_TTL's default).
const DefaultTTL = 24 * time.Hour

// DefaultMaxAge is how long a store keeps the record of a job that never finishes,
// from its creation, when it is given no maximum age (and JOB_MAX_AGE's default).
const DefaultMaxAge = 7 * 24 * time.Hour

// DefaultMaxUnfinishedPerKey is MAX_JOBS_PER_KEY's default: how many jobs one key may
// have waiting or running at once. Stores given no cap (0) count nothing.
const DefaultMaxUnfinishedPerKey = 1000

// Store keeps job records. Implementations are safe for concurrent use by many
// processes (the Redis store) or goroutines (the in-memory store).
type Store interface {
	// Create writes a new record. It fails if the id exists, and with an error wrapping
	// ErrJobLimit when the store has a cap on the unfinished records of one Owner and
	// rec's owner has reached it. A record frees its owner's slot when it becomes final
	// or expires.
	Create(ctx context.Context, rec Record) error
	// Get returns a record, or an error wrapping ErrNotFound.
	Get(ctx context.Context, id string) (Record, error)
	// Update applies fn to the current record atomically and stores the result, which
	// it returns. When fn returns an error nothing is written and the error is returned.
	// Records that become final expire the store's TTL later.
	Update(ctx context.Context, id string, fn func(*Record) error) (Record, error)
	// UpdateFrom is Update for a caller that holds prev, the record as it last wrote or
	// read it. fn sees the current record all the same; a store may save a read when
	// that is still prev.
	UpdateFrom(ctx context.Context, prev Record, fn func(*Record) error) (Record, error)
}

// Runner runs recorded jobs; Steps makes a Submitter of it and a OnceStore.
type Runner interface {
	// Enqueue queues a job whose record exists. It fails with ErrQueueFull,
	// ErrQueueUnavailable or ErrShuttingDown when the job cannot be queued.
	Enqueue(ctx context.Context, rec Record) error
	// Abandon removes a cancelled job from the queue, or stops it if it is running, as
	// best it can. The record is already cancelled, so a run that goes on anyway has
	// its result discarded.
	Abandon(ctx context.Context, id string) error
}
