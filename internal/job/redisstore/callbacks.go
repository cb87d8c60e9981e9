package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// The queue of due callbacks of a shard is, under the shard's hash tag, a sorted set
// per key of its jobs by when their callbacks are due (laneKey), and an index of the
// keys by when each one's first is due (keysKey), which a claim walks: so a claim
// reaches every key's callbacks, however many another key has queued before them.
// Versions before keyed the queue by job alone (legacyKey); a claim still takes from
// it until it is empty.

// keysKey is the index of shard k's keys with callbacks queued.
func (s *Store) keysKey(k int) string { return s.hooksPrefix + s.shards.ShardTag(k) + "keys" }

// laneKey is the queue of owner's callbacks in shard k.
func (s *Store) laneKey(k int, owner string) string { return s.lanePrefix(k) + owner }

func (s *Store) lanePrefix(k int) string { return s.hooksPrefix + s.shards.ShardTag(k) + "due:" }

// legacyKey is shard k's queue of callbacks of the versions before lanes.
func (s *Store) legacyKey(k int) string { return s.hooksPrefix + s.shards.ShardTag(k) + "due" }

// claimHooks leases the callbacks of shard KEYS[1]'s index due at ARGV[1] (unix ms)
// until ARGV[2]: at most ARGV[3] in all, one key at a time in turn (the key first due
// first), at most ARGV[4] of a key unless ARGV[6..] (key, cap pairs) say otherwise,
// then from KEYS[2], the earlier versions' queue, as a key of its own named "". The
// lanes are ARGV[5] followed by their key. Each key touched is put back in the index
// by its next due callback, or leaves it. It returns key, id, key, id, ...
var claimHooks = redis.NewScript(`
local n, each, prefix = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local left, capped = {}, 0
for i = 6, #ARGV, 2 do
  local c = tonumber(ARGV[i + 1])
  left[ARGV[i]] = c
  if c <= 0 then capped = capped + 1 end
end
local lanes = {}
for _, o in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, n + capped)) do
  lanes[#lanes + 1] = {prefix .. o, o, true}
end
if redis.call('EXISTS', KEYS[2]) == 1 then lanes[#lanes + 1] = {KEYS[2], '', false} end
local live = {}
for _, l in ipairs(lanes) do
  if left[l[2]] == nil then left[l[2]] = each end
  if left[l[2]] > 0 then live[#live + 1] = l end
end
local out = {}
while #live > 0 and #out < 2 * n do
  local next = {}
  for _, l in ipairs(live) do
    if #out >= 2 * n then break end
    if left[l[2]] > 0 then
      local id = redis.call('ZRANGEBYSCORE', l[1], '-inf', ARGV[1], 'LIMIT', 0, 1)[1]
      if id then
        redis.call('ZADD', l[1], 'XX', ARGV[2], id)
        out[#out + 1] = l[2]
        out[#out + 1] = id
        left[l[2]] = left[l[2]] - 1
        next[#next + 1] = l
      end
    end
  end
  live = next
end
for _, l in ipairs(lanes) do
  if l[3] then
    local first = redis.call('ZRANGE', l[1], 0, 0, 'WITHSCORES')
    if first[2] then redis.call('ZADD', KEYS[1], first[2], l[2]) else redis.call('ZREM', KEYS[1], l[2]) end
  end
end
return out
`)

// ClaimCallbacks returns callbacks due at c.Now from every shard, each leased until
// c.Now+c.Lease: one script per shard, which no other claim interleaves with. Each
// shard takes its keys in turn, and the caps hold across shards; the shards are asked
// from a different one each claim, so that full claims favour none.
func (s *Store) ClaimCallbacks(ctx context.Context, c job.CallbackClaim) ([]job.DueCallback, error) {
	var out []job.DueCallback
	taken := map[string]int{}
	count := s.shards.Count()
	first := int(s.hookTurn.Add(1) % uint32(count))
	for i := range count {
		if len(out) >= c.N {
			break
		}
		k := (first + i) % count
		args := []any{c.Now.UnixMilli(), c.Now.Add(c.Lease).UnixMilli(), c.N - len(out), max(c.Each, 0), s.lanePrefix(k)}
		for owner, n := range c.Caps {
			args = append(args, owner, max(n-taken[owner], 0))
		}
		for owner, n := range taken {
			if _, ok := c.Caps[owner]; !ok {
				args = append(args, owner, max(c.Each-n, 0))
			}
		}
		got, err := claimHooks.Run(ctx, s.rc, []string{s.keysKey(k), s.legacyKey(k)}, args...).StringSlice()
		if err != nil {
			return out, fmt.Errorf("%w: claiming callbacks: %w", job.ErrQueueUnavailable, err)
		}
		for j := 0; j+1 < len(got); j += 2 {
			out = append(out, job.DueCallback{Owner: got[j], ID: got[j+1]})
			taken[got[j]]++
		}
	}
	return out, nil
}

// fixKeyLua puts the key ARGV[3] back in the index KEYS[2] by the first due of its
// lane KEYS[1], or takes it out when the lane is empty.
const fixKeyLua = `
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[2] then redis.call('ZADD', KEYS[2], first[2], ARGV[3]) else redis.call('ZREM', KEYS[2], ARGV[3]) end
`

// retryHook makes the callback of job ARGV[2] due at ARGV[1] in its key's lane
// KEYS[1], if it is queued there or in the earlier versions' queue KEYS[3] (whence it
// moves), and updates the index KEYS[2].
var retryHook = redis.NewScript(`
local queued = redis.call('ZSCORE', KEYS[1], ARGV[2])
if redis.call('ZREM', KEYS[3], ARGV[2]) == 1 then queued = true end
if not queued then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
` + fixKeyLua + `
return 1
`)

// doneHook takes the callback of job ARGV[2] off its key's lane KEYS[1] and the
// earlier versions' queue KEYS[3], and updates the index KEYS[2].
var doneHook = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
` + fixKeyLua + `
return 1
`)

// hookKeys are the keys of the scripts on the callback of cb.
func (s *Store) hookKeys(cb job.DueCallback) []string {
	k := s.shards.Of(cb.ID)
	return []string{s.laneKey(k, cb.Owner), s.keysKey(k), s.legacyKey(k)}
}

// RetryCallback makes a queued callback due at at.
func (s *Store) RetryCallback(ctx context.Context, cb job.DueCallback, at time.Time) error {
	err := retryHook.Run(ctx, s.rc, s.hookKeys(cb), at.UnixMilli(), cb.ID, cb.Owner).Err()
	if err != nil {
		return unavailable("rescheduling the callback of", cb.ID, err)
	}
	return nil
}

// DoneCallback takes a callback off its queue.
func (s *Store) DoneCallback(ctx context.Context, cb job.DueCallback) error {
	if err := doneHook.Run(ctx, s.rc, s.hookKeys(cb), "", cb.ID, cb.Owner).Err(); err != nil {
		return unavailable("dequeueing the callback of", cb.ID, err)
	}
	return nil
}

// queueHookArgs are the arguments of compareAndSet that queue a callback due at at:
// when, the lane, the key.
func (s *Store) queueHookArgs(id, owner string, at time.Time) []any {
	k := s.shards.Of(id)
	return []any{strconv.FormatInt(at.UnixMilli(), 10), s.laneKey(k, owner), owner}
}
