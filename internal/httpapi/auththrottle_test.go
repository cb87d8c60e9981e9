package httpapi_test

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestAuthThrottle: a key that keeps failing from one address is answered 429 instead
// of 401 until its bucket refills, on every operation that needs a key; a valid key
// from that same address, another key and a valid key without the scope are not.
func TestAuthThrottle(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.opts.AuthFailuresPerMinute = 3 })
	body := `{"model":"echo","data":1}`
	for i := range 5 {
		if resp := h.c.Post("/predict", keyRead, body); resp.Status != http.StatusForbidden {
			t.Fatalf("403 number %d: status %d: %s", i, resp.Status, resp.Body)
		}
	}
	for i := range 3 {
		if resp := h.c.Post("/predict", keyUnknown, body); resp.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401: %s", i, resp.Status, resp.Body)
		}
	}
	tests := []struct {
		name, method, path, key string
		want                    int
	}{
		{"the failing key again", http.MethodPost, "/predict", keyUnknown, http.StatusTooManyRequests},
		{"the failing key on a GET", http.MethodGet, "/models", keyUnknown, http.StatusTooManyRequests},
		{"a valid key from the same address", http.MethodPost, "/predict", keyPredict, http.StatusOK},
		{"the admin key on a profile", http.MethodGet, "/debug/pprof/cmdline", keyAdmin, http.StatusOK},
		{"another unknown key", http.MethodPost, "/predict", "k-another", http.StatusUnauthorized},
		{"no key", http.MethodPost, "/predict", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b any
			if tt.method == http.MethodPost {
				b = body
			}
			resp := h.c.Do(h.c.NewRequest(tt.method, tt.path, tt.key, b))
			if resp.Status != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.want, resp.Body)
			}
			if tt.want != http.StatusTooManyRequests {
				return
			}
			if p := resp.Problem(t); p.Code != "auth_throttled" || !strings.Contains(p.Detail, "AUTH_FAILURES_PER_MINUTE") {
				t.Errorf("problem %+v", p)
			}
			// One failure back every 20 s (3 a minute).
			if ra, _ := strconv.Atoi(resp.Header.Get("Retry-After")); ra < 1 || ra > 20 {
				t.Errorf("Retry-After %q, want 1 to 20", resp.Header.Get("Retry-After"))
			}
		})
	}
	t.Run("operations without a key are served", func(t *testing.T) {
		if resp := h.c.Get("/health", ""); resp.Status != http.StatusOK {
			t.Errorf("status %d", resp.Status)
		}
	})
	t.Run("the 429s are counted", func(t *testing.T) {
		// One POST /predict, and GET /models with the HEAD the client sends beside it.
		checkSeries(t, scrape(t, h), []series{
			{"inferd_rate_limited_requests_total", map[string]string{"operation": "predict", "code": "auth_throttled"}, 1},
			{"inferd_rate_limited_requests_total", map[string]string{"operation": "listModels", "code": "auth_throttled"}, 2},
		})
	})
}

// TestAuthThrottleSparesValidKeys is the trial that found the address-wide throttle
// wanting: behind one address (a NAT, an ingress), a client sends a wrong key twice a
// second for a minute while another calls with a valid key. The wrong key ends up
// throttled; the valid one is never refused.
func TestAuthThrottleSparesValidKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(s *setup) { s.inMemory = true; s.opts.AuthFailuresPerMinute = 30 })
		body := map[string]any{"model": "echo", "data": 1}
		bad := map[int]int{}
		for range 120 {
			bad[h.c.Post("/predict", keyUnknown, body).Status]++
			for range 5 {
				if resp := h.c.Post("/predict", keyPredict, body); resp.Status != http.StatusOK {
					t.Fatalf("the valid key: status %d: %s", resp.Status, resp.Body)
				}
			}
			time.Sleep(500 * time.Millisecond)
		}
		if bad[http.StatusUnauthorized]+bad[http.StatusTooManyRequests] != 120 || bad[http.StatusTooManyRequests] < 30 {
			t.Errorf("the wrong key's answers %v: want 401s, then 429s once its 30 a minute were spent", bad)
		}
	})
}

// TestAuthThrottleRefills: a key throttled after AUTH_FAILURES_PER_MINUTE failures
// gets one failure back every 60/AUTH_FAILURES_PER_MINUTE s, as Retry-After says.
func TestAuthThrottleRefills(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(s *setup) { s.inMemory = true; s.opts.AuthFailuresPerMinute = 3 })
		body := map[string]any{"model": "echo", "data": 1}
		status := func(key string) int { return h.c.Post("/predict", key, body).Status }
		for i := range 3 {
			if got := status(keyUnknown); got != http.StatusUnauthorized {
				t.Fatalf("failure %d: status %d, want 401", i, got)
			}
		}
		resp := h.c.Post("/predict", keyUnknown, body)
		if ra := resp.Header.Get("Retry-After"); resp.Status != http.StatusTooManyRequests || ra != "20" {
			t.Fatalf("the key once throttled: status %d, Retry-After %q; want 429 and 20", resp.Status, ra)
		}
		time.Sleep(20*time.Second - time.Millisecond)
		if got := status(keyUnknown); got != http.StatusTooManyRequests {
			t.Fatalf("just before the refill: status %d, want 429", got)
		}
		time.Sleep(time.Millisecond)
		for _, step := range []struct {
			key  string
			want int
		}{
			{keyPredict, http.StatusOK},           // a success takes nothing
			{keyUnknown, http.StatusUnauthorized}, // the failure given back
			{keyUnknown, http.StatusTooManyRequests},
			{keyPredict, http.StatusOK},
		} {
			if got := status(step.key); got != step.want {
				t.Fatalf("after 20 s, key %q: status %d, want %d", step.key, got, step.want)
			}
		}
	})
}

// TestAuthThrottleBehindProxies: with TRUSTED_PROXIES naming the proxy in front of the
// server, clients behind it are told apart by the address it forwards, and what a
// client forges in front of that is not believed; without it, those headers are
// ignored and the proxy's clients share its address.
func TestAuthThrottleBehindProxies(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	body := `{"model":"echo","data":1}`
	post := func(h *harness, header, value string) int {
		req := h.c.NewRequest(http.MethodPost, "/predict", keyUnknown, body)
		req.Header.Set(header, value)
		return h.c.Do(req).Status
	}
	tests := []struct {
		name    string
		trusted bool
		// first is sent three times, then second once.
		header, first, second string
		want                  int
	}{
		{"X-Forwarded-For from a trusted proxy", true, "X-Forwarded-For", "198.51.100.1", "198.51.100.2", http.StatusUnauthorized},
		{"Forwarded from a trusted proxy", true, "Forwarded", "for=198.51.100.1;proto=https", `for="[2001:db8::2]:4711"`, http.StatusUnauthorized},
		{"the same client through two proxy hops", true, "X-Forwarded-For", "198.51.100.1, 127.0.0.2", "198.51.100.1", http.StatusTooManyRequests},
		{"a hop forged in front of the proxy's", true, "X-Forwarded-For", "203.0.113.7, 198.51.100.1", "203.0.113.8, 198.51.100.1", http.StatusTooManyRequests},
		{"X-Forwarded-For from a peer not trusted", false, "X-Forwarded-For", "198.51.100.1", "198.51.100.2", http.StatusTooManyRequests},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(s *setup) {
				s.opts.AuthFailuresPerMinute = 3
				if tt.trusted {
					s.opts.TrustedProxies = loopback
				}
			})
			for i := range 3 {
				if got := post(h, tt.header, tt.first); got != http.StatusUnauthorized {
					t.Fatalf("failure %d: status %d, want 401", i, got)
				}
			}
			if got := post(h, tt.header, tt.first); got != http.StatusTooManyRequests {
				t.Fatalf("the first client's fourth failure: status %d, want 429", got)
			}
			if got := post(h, tt.header, tt.second); got != tt.want {
				t.Errorf("the second client: status %d, want %d", got, tt.want)
			}
		})
	}
}
