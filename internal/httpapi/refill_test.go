package httpapi_test

import (
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestRateLimitRefills: a key refused 429 is served again once its bucket has
// refilled, a token every 1/RATE_LIMIT_RPS, as Retry-After said; the bubble's clock
// makes the wait exact and instant.
func TestRateLimitRefills(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(s *setup) { s.inMemory = true; s.opts.RateLimitRPS = 0.5; s.opts.RateLimitBurst = 3 })
		body := map[string]any{"model": "echo", "data": 1}
		statuses := func(n int) []int {
			var got []int
			for range n {
				got = append(got, h.c.Post("/predict", keyPredict, body).Status)
			}
			return got
		}
		want := func(got []int, want ...int) {
			t.Helper()
			if !slices.Equal(got, want) {
				t.Fatalf("statuses %v, want %v", got, want)
			}
		}
		want(statuses(4), 200, 200, 200, 429)
		resp := h.c.Post("/predict", keyPredict, body)
		if ra := resp.Header.Get("Retry-After"); resp.Status != http.StatusTooManyRequests || ra != "2" {
			t.Fatalf("status %d, Retry-After %q; want 429 and 2", resp.Status, ra)
		}
		time.Sleep(2*time.Second - time.Millisecond)
		want(statuses(1), 429)
		time.Sleep(time.Millisecond)
		want(statuses(2), 200, 429)
		time.Sleep(time.Minute) // the bucket refills to its burst, no further
		want(statuses(4), 200, 200, 200, 429)
	})
}
