package queuetest

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRateLimitSharedAcrossServers runs two API servers on one Redis with one key
// hammering both. The GCRA bucket in Redis lets through at most burst + rps*elapsed
// requests in all; per-server buckets would let through about twice that. Then Redis
// goes away: each server decides alone with its local bucket, answers instead of
// failing, and counts that in inferd_rate_limit_local_fallbacks_total.
func TestRateLimitSharedAcrossServers(t *testing.T) {
	t.Parallel()
	const (
		rps      = 20
		burst    = 10
		duration = 3 * time.Second
		clients  = 4 // per server
	)
	c := newCluster(t)
	env := []string{"RATE_LIMIT_RPS=20", "RATE_LIMIT_BURST=10"}
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	predict := single("echo", "v1", `{"x":1}`)

	hammer := func(d time.Duration) (accepted, limited, other map[int]int64, elapsed time.Duration) {
		var counts [2][3]atomic.Int64 // per server: 200, 429, anything else
		var wg sync.WaitGroup
		start := time.Now()
		stop := start.Add(d)
		for i := range 2 * clients {
			s := i % 2
			wg.Go(func() {
				for time.Now().Before(stop) {
					resp, err := servers[s].api.TryDo(servers[s].api.NewRequest(http.MethodPost, "/predict", devKey, predict))
					switch {
					case err != nil:
						t.Errorf("server %d: %v", s, err)
						return
					case resp.Status == http.StatusOK:
						counts[s][0].Add(1)
					case resp.Status == http.StatusTooManyRequests:
						counts[s][1].Add(1)
					default:
						counts[s][2].Add(1)
						t.Errorf("server %d: status %d: %s", s, resp.Status, resp.Body)
					}
				}
			})
		}
		wg.Wait()
		elapsed = time.Since(start)
		accepted, limited, other = map[int]int64{}, map[int]int64{}, map[int]int64{}
		for s := range 2 {
			accepted[s], limited[s], other[s] = counts[s][0].Load(), counts[s][1].Load(), counts[s][2].Load()
		}
		return accepted, limited, other, elapsed
	}

	accepted, limited, _, elapsed := hammer(duration)
	total := accepted[0] + accepted[1]
	ceiling := burst + rps*elapsed.Seconds() + 1
	t.Logf("shared: %d accepted (%d + %d), %d limited, in %s; ceiling of one bucket %.0f, of two %.0f",
		total, accepted[0], accepted[1], limited[0]+limited[1], elapsed.Round(time.Millisecond), ceiling, 2*ceiling)
	if float64(total) > ceiling {
		t.Errorf("two servers accepted %d requests of one key in %s: more than one bucket allows (%.0f)", total, elapsed, ceiling)
	}
	if accepted[0] == 0 || accepted[1] == 0 || limited[0] == 0 || limited[1] == 0 {
		t.Errorf("each server should both accept and refuse: accepted %v, limited %v", accepted, limited)
	}
	if f := metric(t, servers[0].Proc, "inferd_rate_limit_local_fallbacks_total"); f != 0 {
		t.Errorf("inferd_rate_limit_local_fallbacks_total = %v with Redis up, want 0", f)
	}

	// Redis goes away: synchronous predictions need none, and the local buckets decide.
	c.redis.Stop()
	accepted, limited, _, elapsed = hammer(time.Second)
	t.Logf("Redis down: %d accepted (%d + %d), %d limited, in %s",
		accepted[0]+accepted[1], accepted[0], accepted[1], limited[0]+limited[1], elapsed.Round(time.Millisecond))
	for s, srv := range servers {
		if accepted[s] == 0 {
			t.Errorf("server %d accepted nothing with Redis down: its local bucket should decide", s)
		}
		if f := metric(t, srv.Proc, "inferd_rate_limit_local_fallbacks_total"); f < float64(accepted[s]+limited[s]) {
			t.Errorf("server %d: inferd_rate_limit_local_fallbacks_total = %v after %d requests decided locally", s, f, accepted[s]+limited[s])
		}
	}
}
