package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/ratelimit"
	"github.com/inferd/inferd/internal/redistest"
)

// TestRedisSharesOneBucket checks that two limiters on one Redis (two servers) draw
// from one bucket per key: together they allow the burst once, then refuse with the
// time until the next token, and keys do not share.
func TestRedisSharesOneBucket(t *testing.T) {
	srv := redistest.Start(t)
	tests := []struct {
		name       string
		rps        float64
		burst      int
		wantAllow  int           // of the first 2*burst+4 calls, alternating limiters
		maxWaitGte time.Duration // the first refusal's retry-after is at least this
	}{
		{"whole rps", 10, 5, 5, 50 * time.Millisecond},
		{"fractional rps", 0.5, 2, 2, time.Second},
		{"burst 0 is 1", 1, 0, 1, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := ratelimit.Options{Prefix: "test:" + tt.name + ":"}
			lims := []*ratelimit.Redis{
				ratelimit.NewRedis(srv.Client(), tt.rps, tt.burst, opts),
				ratelimit.NewRedis(srv.Client(), tt.rps, tt.burst, opts),
			}
			ctx := context.Background()
			allowed, firstWait := 0, time.Duration(0)
			for i := range 2*max(tt.burst, 1) + 4 {
				ok, wait, err := lims[i%2].Allow(ctx, "k")
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case ok:
					allowed++
				case firstWait == 0:
					firstWait = wait
				}
			}
			// The calls take a few milliseconds: at 10 rps that may refill no token.
			if allowed != tt.wantAllow {
				t.Errorf("allowed %d of the calls through two limiters, want %d (one shared bucket)", allowed, tt.wantAllow)
			}
			if firstWait < tt.maxWaitGte || firstWait > time.Duration(float64(time.Second)/tt.rps) {
				t.Errorf("retry after %s, want between %s and 1/rps", firstWait, tt.maxWaitGte)
			}
			if ok, _, err := lims[0].Allow(ctx, "other"); err != nil || !ok {
				t.Errorf("another key: allowed %v (%v), want its own full bucket", ok, err)
			}
		})
	}
}

// TestRedisUnreachable checks that a limiter whose Redis is gone says so with an error
// (its caller then decides locally) within the caller's deadline.
func TestRedisUnreachable(t *testing.T) {
	srv := redistest.Start(t)
	lim := ratelimit.NewRedis(srv.Client(), 10, 10, ratelimit.Options{})
	srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if ok, _, err := lim.Allow(ctx, "k"); err == nil {
		t.Fatalf("Allow with Redis stopped: allowed %v and no error", ok)
	}
}
