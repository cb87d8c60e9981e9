package admission

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// SharedLimiter is a per-key rate limit that every server on one store draws from
// (ratelimit.Redis in queue mode), so that N servers enforce the configured rate rather
// than N times it. An error means the store could not decide.
type SharedLimiter interface {
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration, err error)
}

const (
	// sharedTimeout bounds one question to the shared limiter: a request must not hang
	// on a Redis that stopped answering.
	sharedTimeout = 500 * time.Millisecond
	// sharedBackoff is how long the local bucket decides alone after the shared limiter
	// failed, so that a Redis outage costs one timeout a second, not one per request.
	sharedBackoff = time.Second
)

// shared asks a SharedLimiter, and tells its caller to decide with the local bucket
// while the shared one cannot answer.
type shared struct {
	lim       SharedLimiter
	fallback  func() // counts a request decided locally instead
	log       *slog.Logger
	downUntil atomic.Int64 // unix nanoseconds; 0: up
}

func newShared(lim SharedLimiter, fallback func(), log *slog.Logger) *shared {
	return &shared{lim: lim, fallback: fallback, log: log}
}

// allow returns the shared limiter's answer, or decided false when the local bucket
// must decide.
func (s *shared) allow(key string) (ok bool, wait time.Duration, decided bool) {
	if until := s.downUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		s.fallback()
		return false, 0, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	ok, wait, err := s.lim.Allow(ctx, key)
	if err != nil {
		if s.downUntil.Swap(time.Now().Add(sharedBackoff).UnixNano()) == 0 {
			s.log.Warn("the shared rate limit cannot be reached: each server applies the limit on its own until it can", "error", err)
		}
		s.fallback()
		return false, 0, false
	}
	if s.downUntil.Swap(0) != 0 {
		s.log.Info("the shared rate limit is reachable again")
	}
	return ok, wait, true
}
