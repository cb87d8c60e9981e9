package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// barrierKey is written before each WAIT. WAIT waits for the last write of its own
// connection, and the record and the task were written on others: a write on this one,
// made after theirs finished, has a later replication offset, so once it reached the
// replicas so had they.
const barrierKey = "inferd:replication-barrier"

// Replicas is a job.Replicas through Redis WAIT: one pipelined round trip per
// submission (INCR of barrierKey, then WAIT).
type Replicas struct {
	rc      *redis.Client
	n       int
	timeout time.Duration
}

var _ job.Replicas = (*Replicas)(nil)

// DefaultReplicaTimeout is how long a submission waits for its replicas when
// ReplicasOptions.Timeout is 0 (and QUEUE_REPLICA_TIMEOUT's default).
const DefaultReplicaTimeout = time.Second

// ReplicasOptions configure Replicas. The zero value of each field is a documented
// default.
type ReplicasOptions struct {
	// Count is how many replicas must acknowledge a submission. 0 means 1.
	Count int
	// Timeout is how long one submission waits for them. 0 means DefaultReplicaTimeout.
	Timeout time.Duration
}

// NewReplicas waits through rc for opts.Count replicas. rc's primary must have them
// (min-replicas in its own config is not needed).
func NewReplicas(rc *redis.Client, opts ReplicasOptions) *Replicas {
	if opts.Count <= 0 {
		opts.Count = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultReplicaTimeout
	}
	// WAIT blocks for up to timeout: the connection's read deadline must outlast it.
	return &Replicas{rc: rc.WithTimeout(opts.Timeout + 3*time.Second), n: opts.Count, timeout: opts.Timeout}
}

// Wait implements job.Replicas.
func (r *Replicas) Wait(ctx context.Context) error {
	var wait *redis.Cmd
	_, err := r.rc.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, barrierKey)
		wait = p.Do(ctx, "WAIT", r.n, r.timeout.Milliseconds())
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: waiting for %d replicas: %w", job.ErrQueueUnavailable, r.n, err)
	}
	got, err := wait.Int64()
	if err != nil {
		return fmt.Errorf("%w: waiting for %d replicas: %w", job.ErrQueueUnavailable, r.n, err)
	}
	if got < int64(r.n) {
		return fmt.Errorf("%w: %d of %d replicas acknowledged the job within %s", job.ErrQueueUnavailable, got, r.n, r.timeout)
	}
	return nil
}
