package queuetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// waitJob long-polls a job (GET /jobs/{id}?wait=w) and returns its record and how long
// the answer took.
func (s *server) waitJob(tb testing.TB, id, w string) (jobRecord, time.Duration) {
	tb.Helper()
	start := time.Now()
	resp := s.api.Do(s.api.NewRequest(http.MethodGet, "/jobs/"+id+"?wait="+w, devKey, nil))
	took := time.Since(start)
	var rec jobRecord
	if resp.Status != http.StatusOK {
		tb.Fatalf("wait %s: status %d: %s", id, resp.Status, resp.Body)
	}
	if err := json.Unmarshal(resp.Body, &rec); err != nil {
		tb.Fatal(err)
	}
	return rec, took
}

// TestJobWaitInQueueMode covers the long poll of getJob across processes: a worker's
// final write wakes a wait held by an API server (through the finished-jobs channel),
// a cancel sent to one server wakes a wait held by another, a wait that runs out
// answers the unfinished record, wait=0 answers at once, and a wait out of range is
// 400. The process-mode test (httpapi) also covers a client that leaves and a drain.
func TestJobWaitInQueueMode(t *testing.T) {
	t.Parallel()
	const slowDelay = 2 * time.Second
	c := newCluster(t)
	c.addSlowModel("slow", "v1", slowDelay)
	c.addSlowModel("stuck", "v1", time.Hour)
	a, b := c.startServer(), c.startServer()
	c.startWorker()

	t.Run("answers when the job finishes", func(t *testing.T) {
		spec := single("slow", "v1", `{"n":1}`)
		id := a.submit(t, spec)
		rec, took := a.waitJob(t, id, "30")
		if rec.Status != "succeeded" || !testkit.SameJSON(rec.Result, spec.want()) {
			t.Fatalf("record %+v", rec)
		}
		if took > 20*time.Second {
			t.Errorf("the wait took %s: it was not woken", took)
		}
	})
	t.Run("runs out with the unfinished record", func(t *testing.T) {
		id := a.submit(t, single("stuck", "v1", `{"n":2}`))
		rec, took := a.waitJob(t, id, "0.3")
		if rec.final() || took < 300*time.Millisecond {
			t.Fatalf("after %s: record %+v", took, rec)
		}
		if rec, took := a.waitJob(t, id, "0"); rec.final() || took > 10*time.Second {
			t.Fatalf("wait=0 after %s: record %+v", took, rec)
		}
	})
	t.Run("a cancel through another server wakes the wait", func(t *testing.T) {
		id := a.submit(t, single("stuck", "v1", `{"n":3}`))
		type answer struct {
			rec  jobRecord
			took time.Duration
		}
		got := make(chan answer, 1)
		go func() {
			start := time.Now()
			resp, err := a.api.TryDo(a.api.NewRequest(http.MethodGet, "/jobs/"+id+"?wait=30", devKey, nil))
			var rec jobRecord
			if err == nil {
				err = json.Unmarshal(resp.Body, &rec)
			}
			if err != nil {
				t.Error(err)
			}
			got <- answer{rec, time.Since(start)}
		}()
		// The cancel comes once the wait is held (the server counts it), so that it is
		// the cancel that wakes the wait rather than a wait that reads a final record.
		testkit.Eventually(t, 10*time.Second, func() bool { return metric(t, a.Proc, "inferd_job_waits") >= 1 }, "the wait held")
		if resp := b.api.Do(b.api.NewRequest(http.MethodDelete, "/predict/async/"+id, devKey, nil)); resp.Status != http.StatusOK {
			t.Fatalf("cancel: %d %s", resp.Status, resp.Body)
		}
		ans := <-got
		if ans.rec.Status != "cancelled" || ans.took > 20*time.Second {
			t.Fatalf("after %s: record %+v", ans.took, ans.rec)
		}
	})
	t.Run("out of range", func(t *testing.T) {
		id := a.submit(t, single("echo", "v1", `{"n":4}`))
		for _, w := range []string{"30.5", "-0.1", "later"} {
			resp := a.api.Get(fmt.Sprintf("/jobs/%s?wait=%s", id, w), devKey)
			if resp.Status != http.StatusBadRequest || resp.Problem(t).Detail == "" {
				t.Errorf("wait=%s: %d %s", w, resp.Status, resp.Body)
			}
		}
	})
}
