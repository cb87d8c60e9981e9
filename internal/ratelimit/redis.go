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

// DefaultRPS is the rate of Options that leave RPS 0 (and RATE_LIMIT_RPS's default).
const DefaultRPS = 100

// Options configure a Redis limiter. The zero value of each field is a documented
// default.
type Options struct {
	// RPS is each key's rate in requests a second, fractions included. 0 means
	// DefaultRPS.
	RPS float64
	// Burst is the most tokens a key's bucket holds. 0 means 1: a bucket must hold
	// the token of one request.
	Burst int
	// Prefix goes before each key's id; "" means DefaultPrefix.
	Prefix string
}

// Redis is a generic cell rate limit (a token bucket's twin: RPS tokens a second, Burst
// at most) per key, kept in Redis and updated by one Lua script per request, so it is
// exact across any number of servers. It is safe for concurrent use.
type Redis struct {
	lim    *redis_rate.Limiter
	limit  redis_rate.Limit
	prefix string
}

// NewRedis returns a limiter that keeps its buckets through rc.
func NewRedis(rc redis.UniversalClient, opts Options) *Redis {
	if opts.RPS <= 0 {
		opts.RPS = DefaultRPS
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	// The script only uses period/rate (the time between two tokens), so one token
	// per 1/rps seconds is any rps, fractions included.
	limit := redis_rate.Limit{Rate: 1, Period: time.Duration(float64(time.Second) / opts.RPS), Burst: max(opts.Burst, 1)}
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
