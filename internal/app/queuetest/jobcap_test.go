package queuetest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestJobCapPerKey (see docs/design.md#job-records-are-bounded-per-key): a key holds at most MAX_JOBS_PER_KEY jobs
// waiting or running, counted in Redis across servers. One more submission, through
// either server, is 429 jobs_limited with a Retry-After; another key is not counted
// against it; a cancelled job frees its slot, and so do jobs a worker finishes.
func TestJobCapPerKey(t *testing.T) {
	t.Parallel()
	const max = 2
	c := newCluster(t)
	servers := []*server{c.startServer("MAX_JOBS_PER_KEY=2"), c.startServer("MAX_JOBS_PER_KEY=2")}
	refused := func(key string) {
		t.Helper()
		for _, s := range servers {
			for _, spec := range []jobSpec{single("echo", "v1", `2`), batch("echo", "v1", `1`, `2`)} {
				resp := s.api.Post(spec.path(), key, spec)
				if resp.Status != http.StatusTooManyRequests {
					t.Fatalf("a submission past the cap of %d: %d %s, want 429", max, resp.Status, resp.Body)
				}
				if p := resp.Problem(t); p.Code != "jobs_limited" {
					t.Errorf("code %q (%s), want jobs_limited", p.Code, p.Detail)
				}
				if resp.Header.Get("Retry-After") == "" {
					t.Error("a 429 jobs_limited without Retry-After")
				}
			}
		}
	}
	accepted := func(s *server, key string) string {
		t.Helper()
		spec := single("echo", "v1", `1`)
		resp := s.api.Post(spec.path(), key, spec)
		var out struct {
			JobID string `json:"job_id"`
		}
		if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &out) != nil {
			t.Fatalf("submission with key %s: %d %s, want 200", key, resp.Status, resp.Body)
		}
		return out.JobID
	}

	// No worker runs yet: the jobs stay pending, holding their slots.
	var ids []string
	for i := range max {
		ids = append(ids, accepted(servers[i%2], devKey))
	}
	refused(devKey)
	other := accepted(servers[0], adminKey)

	// A cancelled job frees its slot, for one more job and no more.
	if resp := servers[1].api.Do(servers[1].api.NewRequest(http.MethodDelete, "/predict/async/"+ids[0], devKey, nil)); resp.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", resp.Status, resp.Body)
	}
	ids = append(ids[1:], accepted(servers[0], devKey))
	refused(devKey)

	// A worker finishes the jobs; its store frees their slots.
	c.startWorker()
	for _, id := range append(ids, other) {
		servers[0].waitStatus(t, id, "succeeded", 30*time.Second)
	}
	for i := range max {
		accepted(servers[i%2], devKey)
	}
}
