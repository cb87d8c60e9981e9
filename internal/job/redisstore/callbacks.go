package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// hooksKey is the queue of due callbacks of shard k, under its hash tag: the script
// that finishes a job of that shard adds to it.
func (s *Store) hooksKey(k int) string { return s.hooksPrefix + s.shards.ShardTag(k) + "due" }

// claimHooks returns the ids of at most ARGV[3] jobs of the queue KEYS[1] due at
// ARGV[1] (unix ms), and makes each due again at ARGV[2], the end of its lease.
var claimHooks = redis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return ids
`)

// ClaimCallbacks returns up to n jobs whose callbacks are due at now, from every
// shard, each leased until now+lease: one script per shard, which no other claim
// interleaves with.
func (s *Store) ClaimCallbacks(ctx context.Context, now time.Time, lease time.Duration, n int) ([]string, error) {
	var ids []string
	for k := range s.shards.Count() {
		if len(ids) >= n {
			break
		}
		got, err := claimHooks.Run(ctx, s.rc, []string{s.hooksKey(k)},
			now.UnixMilli(), now.Add(lease).UnixMilli(), n-len(ids)).StringSlice()
		if err != nil {
			return ids, fmt.Errorf("%w: claiming callbacks: %w", job.ErrQueueUnavailable, err)
		}
		ids = append(ids, got...)
	}
	return ids, nil
}

// RetryCallback makes the callback of job id due at at, if it is still queued.
func (s *Store) RetryCallback(ctx context.Context, id string, at time.Time) error {
	err := s.rc.ZAddXX(ctx, s.hooksKey(s.shards.Of(id)), redis.Z{Score: float64(at.UnixMilli()), Member: id}).Err()
	if err != nil {
		return unavailable("rescheduling the callback of", id, err)
	}
	return nil
}

// DoneCallback takes the callback of job id off its queue.
func (s *Store) DoneCallback(ctx context.Context, id string) error {
	if err := s.rc.ZRem(ctx, s.hooksKey(s.shards.Of(id)), id).Err(); err != nil {
		return unavailable("dequeueing the callback of", id, err)
	}
	return nil
}
