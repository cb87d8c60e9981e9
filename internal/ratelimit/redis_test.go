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
		name      string
		rps       float64
		burst     int
		wantAllow int // of the first 2*burst+4 calls, alternating limiters
	}{
		{"whole rps", 10, 5, 5},
		{"fractional rps", 0.5, 2, 2},
		{"burst 0 is 1", 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := ratelimit.Options{RPS: tt.rps, Burst: tt.burst, Prefix: "test:" + tt.name + ":"}
			lims := []*ratelimit.Redis{
				ratelimit.NewRedis(srv.Client(), opts),
				ratelimit.NewRedis(srv.Client(), opts),
			}
			ctx := context.Background()
			// The bucket refills on Redis's clock, which a synctest bubble cannot
			// fake: the bounds allow for the real time the calls took, one token per
			// 1/rps of it (none when they are quick, as they are on an idle machine).
			every := time.Duration(float64(time.Second) / tt.rps)
			allowed, firstWait, refusedAfter := 0, time.Duration(0), time.Duration(0)
			start := time.Now()
			for i := range 2*max(tt.burst, 1) + 4 {
				ok, wait, err := lims[i%2].Allow(ctx, "k")
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case ok:
					allowed++
				case firstWait == 0:
					firstWait, refusedAfter = wait, time.Since(start)
				}
			}
			refills := int(time.Since(start) / every)
			if allowed < tt.wantAllow || allowed > tt.wantAllow+refills {
				t.Errorf("allowed %d of the calls through two limiters in %s, want %d (one shared bucket) and at most %d more refilled",
					allowed, time.Since(start), tt.wantAllow, refills)
			}
			// The first refusal waits for the token the first call took, which comes
			// back 1/rps after it.
			if firstWait <= 0 || firstWait > every || firstWait < every-refusedAfter {
				t.Errorf("retry after %s, %s after the first call; want at most 1/rps (%s) and at least what is left of it", firstWait, refusedAfter, every)
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
	lim := ratelimit.NewRedis(srv.Client(), ratelimit.Options{RPS: 10, Burst: 10})
	srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if ok, _, err := lim.Allow(ctx, "k"); err == nil {
		t.Fatalf("Allow with Redis stopped: allowed %v and no error", ok)
	}
}
