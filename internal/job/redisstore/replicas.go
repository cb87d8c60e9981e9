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
// submission (INCR of barrierKey, then WAIT). In Redis Cluster the round trip goes to
// the primary of the job's shard, where its record and task are, and the barrier key
// carries the shard's hash tag, so it is written there too.
type Replicas struct {
	rc      redis.UniversalClient
	shards  Shards
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
	// Shards must be the Store's.
	Shards Shards
}

// NewReplicas waits through rc for opts.Count replicas. rc's primary (each primary of a
// cluster) must have them (min-replicas in its own config is not needed).
func NewReplicas(rc redis.UniversalClient, opts ReplicasOptions) *Replicas {
	if opts.Count <= 0 {
		opts.Count = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultReplicaTimeout
	}
	// WAIT blocks for up to timeout: the connection's read deadline must outlast it.
	if c, ok := rc.(*redis.Client); ok {
		rc = c.WithTimeout(opts.Timeout + 3*time.Second)
	}
	return &Replicas{rc: rc, shards: opts.Shards, n: opts.Count, timeout: opts.Timeout}
}

// Wait implements job.Replicas.
func (r *Replicas) Wait(ctx context.Context, id string) error {
	key := barrierKey
	if tag := r.shards.Tag(id); tag != "" {
		key += ":" + tag[:len(tag)-1]
	}
	rc := r.rc
	if cc, ok := rc.(*redis.ClusterClient); ok {
		// A cluster client would send WAIT, which names no key, to any node: the
		// pipeline goes to the primary of the barrier's slot instead.
		node, err := cc.MasterForKey(ctx, key)
		if err != nil {
			cc.ReloadState(ctx)
			return fmt.Errorf("%w: waiting for %d replicas: %w", job.ErrQueueUnavailable, r.n, err)
		}
		rc = node.WithTimeout(r.timeout + 3*time.Second)
	}
	var wait *redis.Cmd
	_, err := rc.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, key)
		wait = p.Do(ctx, "WAIT", r.n, r.timeout.Milliseconds())
		return nil
	})
	if err != nil {
		if cc, ok := r.rc.(*redis.ClusterClient); ok {
			cc.ReloadState(ctx) // the primary may be gone: see who serves the slot now
		}
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
