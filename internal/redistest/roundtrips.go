package redistest

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTrips is a go-redis hook that counts the round trips a client makes: one per
// command, one per pipeline or transaction (sent and answered as one exchange). A
// round trip is a wait for Redis, so tests bound their number per operation. Add it
// with the client's AddHook; it is safe for concurrent use.
type RoundTrips struct{ n atomic.Int64 }

var _ redis.Hook = (*RoundTrips)(nil)

// Count returns the round trips since the hook was added or last Reset.
func (c *RoundTrips) Count() int64 { return c.n.Load() }

// Reset starts the count again from 0, so that a test counts only a steady state.
func (c *RoundTrips) Reset() { c.n.Store(0) }

// DialHook implements redis.Hook: a dial is not a round trip.
func (c *RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (c *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (c *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}
