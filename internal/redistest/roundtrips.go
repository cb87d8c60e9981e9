package redistest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTrips is a go-redis hook that counts the round trips a client makes: one per
// command, one per pipeline or transaction (sent and answered as one exchange). A
// round trip is a wait for Redis, so tests bound their number per operation. Add it
// with the client's AddHook; it is safe for concurrent use.
type RoundTrips struct {
	n atomic.Int64
	// Record, set before the hook is added, keeps what each round trip sent
	// (Commands), for a test to say which round trips it did not expect; off, the
	// hook only counts, as a benchmark needs.
	Record bool

	mu   sync.Mutex
	sent []string
}

// Commands returns what each round trip since the hook was added or last Reset sent,
// in order: a command's name, or a pipeline's names joined by "+"; nil unless Record.
func (c *RoundTrips) Commands() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}

func (c *RoundTrips) add(cmds ...redis.Cmder) {
	c.n.Add(1)
	if !c.Record {
		return
	}
	names := make([]string, len(cmds))
	for i, cmd := range cmds {
		names[i] = cmd.Name()
	}
	c.mu.Lock()
	c.sent = append(c.sent, strings.Join(names, "+"))
	c.mu.Unlock()
}

var _ redis.Hook = (*RoundTrips)(nil)

// Count returns the round trips since the hook was added or last Reset.
func (c *RoundTrips) Count() int64 { return c.n.Load() }

// Reset starts the count again from 0, so that a test counts only a steady state.
func (c *RoundTrips) Reset() {
	c.mu.Lock()
	c.n.Store(0)
	c.sent = nil
	c.mu.Unlock()
}

// DialHook implements redis.Hook: a dial is not a round trip.
func (c *RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (c *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (c *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.add(cmds...)
		return next(ctx, cmds)
	}
}
