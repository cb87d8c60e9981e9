package app_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// hookRecv is a callback receiver on loopback: one that holds every request until the
// test ends (or its sender gives up), or one that answers at once; it keeps when each
// webhook-id first arrived, and how many requests it holds.
type hookRecv struct {
	url     string
	holding atomic.Int64
	mu      sync.Mutex
	got     map[string]time.Time
}

// startHookRecv starts a receiver that holds its requests when hang is set. Start it
// after the server: its cleanup, which lets the held requests go, must run before the
// server's stop waits for its attempts.
func startHookRecv(t *testing.T, hang bool) *hookRecv {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	rv := &hookRecv{url: "http://" + ln.Addr().String() + "/hook", got: map[string]time.Time{}}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read first: the server notices its sender gone only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		rv.mu.Lock()
		if _, ok := rv.got[r.Header.Get("webhook-id")]; !ok {
			rv.got[r.Header.Get("webhook-id")] = time.Now()
		}
		rv.mu.Unlock()
		if hang {
			rv.holding.Add(1)
			defer rv.holding.Add(-1)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	return rv
}

func (rv *hookRecv) arrived(id string) (time.Time, bool) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	at, ok := rv.got[id]
	return at, ok
}

// TestWebhookFairness: in process, at the default settings (WEBHOOK_CONCURRENCY 16,
// WEBHOOK_TIMEOUT 10 s), key A's 120 finished jobs call back a receiver that never
// answers, taking every slot; then key B submits 5 jobs whose receiver answers at
// once. B's callbacks are each delivered within 5 s of their submission: a key's share
// of the slots is its own whatever another key's receivers do.
func TestWebhookFairness(t *testing.T) {
	s := startApp(t, map[string]string{
		"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0",
		"WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	}, true)
	hang, fast := startHookRecv(t, true), startHookRecv(t, false)
	submit := func(key, url string, i int) string {
		resp := s.c.Post("/predict/async", key, fmt.Sprintf(`{"model":"echo","version":"v1","data":%d,"callback_url":%q}`, i, url))
		var sub struct {
			JobID string `json:"job_id"`
		}
		resp.JSON(t, &sub)
		if resp.Status != http.StatusOK || sub.JobID == "" {
			t.Fatalf("submit: status %d: %s", resp.Status, resp.Body)
		}
		return sub.JobID
	}
	var aIDs []string
	for i := range 120 {
		aIDs = append(aIDs, submit("dev-key", hang.url, i))
	}
	testkit.Eventually(t, time.Minute, func() bool {
		for len(aIDs) > 0 {
			var rec struct {
				Status string `json:"status"`
			}
			s.c.Get("/jobs/"+aIDs[0], "dev-key").JSON(t, &rec)
			if rec.Status != "succeeded" {
				return false
			}
			aIDs = aIDs[1:]
		}
		return true
	}, "A's 120 jobs finished")
	testkit.Eventually(t, time.Minute, func() bool { return hang.holding.Load() == 16 }, "A's callbacks holding every slot")

	type sent struct {
		id string
		at time.Time
	}
	var b []sent
	for i := range 5 {
		at := time.Now()
		b = append(b, sent{submit("admin-key", fast.url, i), at})
	}
	testkit.Eventually(t, time.Minute, func() bool {
		for _, j := range b {
			if _, ok := fast.arrived(j.id); !ok {
				return false
			}
		}
		return true
	}, "B's 5 callbacks delivered")
	var took []time.Duration
	for _, j := range b {
		at, _ := fast.arrived(j.id)
		took = append(took, at.Sub(j.at))
	}
	t.Logf("in process: B's 5 callbacks delivered %s after their submissions, A's receiver holding %d", durations(took), hang.holding.Load())
	if slices.Max(took) > 5*time.Second {
		t.Errorf("B's callbacks took up to %s, want at most 5 s", slices.Max(took).Round(time.Millisecond))
	}
}

func durations(ds []time.Duration) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Round(time.Millisecond).String())
	}
	return strings.Join(out, ", ")
}
