package queuetest

import (
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// TestRedisOutage: while Redis is down, what needs it answers 503 queue_unavailable
// (a poll too: the job is not "not found", its store is unreachable), and what does not
// need it (synchronous predictions, liveness) carries on. When Redis is back on the same
// address, the same server and worker processes carry on by themselves.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	s := c.startServer()
	w := c.startWorker()
	known := s.submit(t, single("echo", "v1", `1`))
	s.waitStatus(t, known, "succeeded", 10*time.Second)

	c.redis.Stop()
	stoppedAt := time.Now()

	tests := []struct {
		method, path string
		body         any
		status       int
		code         string // of the problem, for errors
	}{
		{http.MethodPost, "/predict/async", single("echo", "v1", `{"n":1}`), http.StatusServiceUnavailable, "queue_unavailable"},
		{http.MethodPost, "/predict/async/batch", batch("echo", "v1", `1`, `2`), http.StatusServiceUnavailable, "queue_unavailable"},
		{http.MethodGet, "/predict/async/" + known, nil, http.StatusServiceUnavailable, "queue_unavailable"},
		{http.MethodGet, "/jobs/" + known, nil, http.StatusServiceUnavailable, "queue_unavailable"},
		{http.MethodDelete, "/predict/async/" + known, nil, http.StatusServiceUnavailable, "queue_unavailable"},
		{http.MethodPost, "/predict", single("echo", "v1", `{"n":12345678901234567890}`), http.StatusOK, ""},
		{http.MethodPost, "/predict/batch", batch("echo", "v2", `1`, `"two"`), http.StatusOK, ""},
		{http.MethodGet, "/models", nil, http.StatusOK, ""},
		{http.MethodGet, "/health", nil, http.StatusOK, ""},
	}
	for _, tc := range tests {
		// The first request after the loss must already answer properly: no hang, no 500.
		start := time.Now()
		resp := s.api.Do(s.api.NewRequest(tc.method, tc.path, devKey, tc.body))
		took := time.Since(start)
		if resp.Status != tc.status {
			t.Errorf("%s %s with Redis down: %d %s, want %d", tc.method, tc.path, resp.Status, resp.Body, tc.status)
			continue
		}
		if tc.code != "" {
			if p := resp.Problem(t); p.Code != tc.code {
				t.Errorf("%s %s with Redis down: problem code %q, want %q", tc.method, tc.path, p.Code, tc.code)
			}
		}
		if took > 10*time.Second {
			t.Errorf("%s %s with Redis down took %s", tc.method, tc.path, took)
		}
	}
	if got := probe(w.Proc, "/health"); got != http.StatusOK {
		t.Errorf("worker /health with Redis down: %d", got)
	}
	// The worker checks Redis every 5 s and stops declaring itself ready.
	testkit.Eventually(t, 15*time.Second, func() bool {
		return probe(w.Proc, "/ready") == http.StatusServiceUnavailable
	}, "the worker stayed ready with Redis down")
	t.Logf("worker unready %s after Redis stopped", time.Since(stoppedAt).Round(time.Millisecond))

	// The restarted Redis is empty (persistence is off): the old job is gone, which is
	// not what this test is about. It is about the processes coming back unaided.
	c.redis.Restart()
	restartedAt := time.Now()
	spec := batch("echo", "v1", `{"after":"restart","n":12345678901234567890}`, `[]`)
	var id string
	testkit.Eventually(t, 20*time.Second, func() bool {
		resp := s.api.Post(spec.path(), devKey, spec)
		switch resp.Status {
		case http.StatusOK:
			var out struct {
				JobID string `json:"job_id"`
			}
			resp.JSON(t, &out)
			id = out.JobID
			return true
		case http.StatusServiceUnavailable:
			return false // still reconnecting
		}
		t.Fatalf("submit while Redis comes back: %d %s", resp.Status, resp.Body)
		return false
	}, "the server never took a job again after Redis came back")
	t.Logf("submit answered 200 %s after Redis restarted", time.Since(restartedAt).Round(time.Millisecond))
	rec := s.waitStatus(t, id, "succeeded", 30*time.Second)
	t.Logf("job succeeded %s after Redis restarted", time.Since(restartedAt).Round(time.Millisecond))
	if !testkit.SameJSON(rec.Result, spec.want()) {
		t.Errorf("result %s, want %s", rec.Result, spec.want())
	}
	testkit.Eventually(t, 15*time.Second, func() bool {
		return probe(w.Proc, "/ready") == http.StatusOK
	}, "the worker never became ready again")
	t.Logf("worker ready %s after Redis restarted", time.Since(restartedAt).Round(time.Millisecond))
	if exited(s.Proc) || exited(w.Proc) {
		t.Error("a process exited during the outage")
	}
}
