package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// DefaultOncePrefix is the key prefix of idempotency keys when Options.OncePrefix is
// empty. The rest of the key is the shard's tag and job.Idempotency.Scope, a digest of
// the owner and the client's key.
const DefaultOncePrefix = "inferd:once:"

// OnceKey is the Redis key of owner's idempotency key. It is in the shard of its
// scope, where the Service draws the id of the job it creates (SameShard), so that one
// script writes both in one Redis Cluster slot.
func (s *Store) OnceKey(owner string, idem job.Idempotency) string {
	scope := idem.Scope(owner)
	return s.oncePrefix + s.shards.Tag(scope) + scope
}

// SameShard reports whether the job id is in the shard of owner's idempotency key.
func (s *Store) SameShard(id, owner string, idem job.Idempotency) bool {
	return s.shards.Count() == 1 || s.shards.Of(id) == s.shards.Of(idem.Scope(owner))
}

// OnceArgs are the arguments of OnceSetLua for the record rec's key.
func (s *Store) OnceArgs(rec job.Record, idem job.Idempotency, pendingUntil time.Time) []any {
	use := job.Use{Fingerprint: idem.Fingerprint, JobID: rec.ID, PendingUntil: pendingUntil}
	return []any{use.Encode(), s.onceTTL.Milliseconds()}
}

// OnceCheckLua is the part of a script that answers {-4, the first use} when the
// idempotency key named by the Lua expression key holds one. It goes before CreateLua:
// a replay is answered whatever its owner's cap and budget.
func OnceCheckLua(key string) string {
	return "local prior = redis.call('GET', " + key + ")\nif prior then return {-4, prior} end\n"
}

// OnceSetLua is the part of a script that remembers the key (a Lua expression) with
// its use (the expression use) for ttl ms (the expression ttl), once the record is
// written.
func OnceSetLua(key, use, ttl string) string {
	return "redis.call('SET', " + key + ", " + use + ", 'PX', " + ttl + ")\n"
}

// Prior is the first use of an idempotency key from the result res of a script with
// OnceCheckLua, or nil when the script went on.
func Prior(res any) (*job.Use, error) {
	a, ok := res.([]any)
	if !ok || len(a) != 2 || a[0] != int64(-4) {
		return nil, nil
	}
	v, _ := a[1].(string)
	u, err := job.DecodeUse(v)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// createOnce is CreateLua with the idempotency key KEYS[6] checked first and written
// (ARGV[11], for ARGV[12] ms) with the record.
var createOnce = redis.NewScript(OnceCheckLua("KEYS[6]") + CreateLua + OnceSetLua("KEYS[6]", "ARGV[11]", "ARGV[12]") + "return 1\n")

// CreateOnce is Create, unless rec's owner used idem's key within IdempotencyTTL: then
// it returns that use and writes nothing. The key and the record are written by one
// script.
func (s *Store) CreateOnce(ctx context.Context, rec job.Record, idem job.Idempotency, pendingUntil time.Time) (*job.Use, error) {
	b, err := job.EncodeJSON(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding job %s: %w", rec.ID, err)
	}
	if err := s.Affordable(rec, b); err != nil {
		return nil, err
	}
	keys, args := s.CreateArgs(rec, b)
	keys = append(keys, s.OnceKey(rec.Owner, idem))
	args = append(args, s.OnceArgs(rec, idem, pendingUntil)...)
	res, err := createOnce.Run(ctx, s.rc, keys, args...).Result()
	if err != nil {
		return nil, unavailable("creating", rec.ID, err)
	}
	if u, err := Prior(res); u != nil || err != nil {
		return u, err
	}
	return nil, s.Created(rec, b, res)
}

// settleOnce marks the idempotency key KEYS[1] accepted (ARGV[3] "1": its use ARGV[2],
// keeping its expiry) or forgets it, if it still holds the use of the job id ARGV[1].
var settleOnce = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur or not string.find(cur, ' ' .. ARGV[1] .. ' ', 1, true) then return 0 end
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') else redis.call('DEL', KEYS[1]) end
return 1
`)

// Settle ends the pending state of owner's key, which created the job id, or forgets
// the key when ok is false (the job was refused, and a retry must make one).
func (s *Store) Settle(ctx context.Context, owner string, idem job.Idempotency, id string, ok bool) error {
	accepted := "0"
	if ok {
		accepted = "1"
	}
	use := job.Use{Fingerprint: idem.Fingerprint, JobID: id}
	if err := settleOnce.Run(ctx, s.rc, []string{s.OnceKey(owner, idem)}, id, use.Encode(), accepted).Err(); err != nil {
		return unavailable("settling the idempotency key of", id, err)
	}
	return nil
}
