package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix is put before a key's id in its Redis key (which redis_rate prefixes
// again with "rate:") when Options.Prefix is empty.
const DefaultPrefix = "inferd:"

// Options configure a Redis limiter. The zero value of each field is a documented
// default.
type Options struct {
	// Prefix goes before each key's id; "" means DefaultPrefix.
	Prefix string
}

// Redis is a generic cell rate limit (a token bucket's twin: rps tokens a second, burst
// at most) per key, kept in Redis and updated by one Lua script per request, so it is
// exact across any number of servers. It is safe for concurrent use.
type Redis struct {
	lim    *redis_rate.Limiter
	limit  redis_rate.Limit
	prefix string
}

// NewRedis returns a limiter of rps requests a second with a burst of burst (at least
// 1) per key, kept through rc. rps must be positive.
func NewRedis(rc redis.UniversalClient, rps float64, burst int, opts Options) *Redis {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	// The script only uses period/rate (the time between two tokens), so one token
	// per 1/rps seconds is any rps, fractions included.
	limit := redis_rate.Limit{Rate: 1, Period: time.Duration(float64(time.Second) / rps), Burst: max(burst, 1)}
	return &Redis{lim: redis_rate.NewLimiter(rc), limit: limit, prefix: opts.Prefix}
}

// Allow takes one token from key's bucket. When the bucket is empty it returns false and
// how long until a token is there. An error means Redis could not decide.
func (r *Redis) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	res, err := r.lim.Allow(ctx, r.prefix+key, r.limit)
	if err != nil {
		return false, 0, fmt.Errorf("shared rate limit: %w", err)
	}
	if res.Allowed > 0 {
		return true, 0, nil
	}
	return false, max(res.RetryAfter, 0), nil
}
