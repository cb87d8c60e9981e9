package queuetest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// TestQueueListedAfterRedisWipe (see docs/design.md#orphaned-jobs-run-again-within-seconds): after Redis restarts empty, the
// API server lists its queue again by itself, so inferd_jobs_queued counts the jobs
// that wait and the dashboard shows the queue. No worker runs, so the jobs stay
// pending.
func TestQueueListedAfterRedisWipe(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	s := c.startServer()
	s.submit(t, single("echo", "v1", `1`)) // the server's asynq client lists the queue once
	testkit.Eventually(t, 10*time.Second, func() bool {
		return metric(t, s.Proc, "inferd_jobs_queued") == 1
	}, "inferd_jobs_queued counts the first job")

	c.redis.Restart() // empty: no persistence
	const pending = 3
	for range pending {
		testkit.Eventually(t, 15*time.Second, func() bool {
			_, err := s.trySubmit(single("echo", "v1", `2`))
			return err == nil
		}, "a submission succeeds after the restart")
	}
	start := time.Now()
	testkit.Eventually(t, 15*time.Second, func() bool {
		return metric(t, s.Proc, "inferd_jobs_queued") == pending
	}, "inferd_jobs_queued counts the jobs submitted after the wipe")
	t.Logf("inferd_jobs_queued right %s after the submissions", time.Since(start).Round(10*time.Millisecond))
	// The dashboard's API is outside openapi.yaml: a plain client reads it.
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/admin/queues/api/queues", nil)
	req.Header.Set("X-API-Key", "admin-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"queue":"inferd"`) {
		t.Errorf("the dashboard does not list the queue: %d %s", resp.StatusCode, body)
	}
}
