package queuetest

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// TestUnloadInQueueMode: in queue mode the jobs run on the workers, which hold models
// of their own, so an unload on a server is that server's (as a Triton or KServe
// operator unloads a model on one instance): the server refuses new submissions and
// requests for the model at once, and the jobs it accepted before run on the workers as
// accepted. 150 digits jobs, then an unload on the server: every one succeeds (the
// figure of issue 36 for queue mode), and none failed model_unloaded.
func TestUnloadInQueueMode(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	models, err := filepath.Abs(filepath.Join("..", "..", "..", "models"))
	if err != nil {
		t.Fatal(err)
	}
	s := c.startServer("MODELS_DIR=" + models)
	c.startWorker("MODELS_DIR=" + models)
	s.requireModel(t, "digits", "v1")

	const n = 150
	spec := single("digits", "", "["+strings.TrimSuffix(strings.Repeat("0,", 64), ",")+"]")
	ids := make([]string, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				id, err := s.trySubmit(spec)
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = id
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	queued := metric(t, s.Proc, "inferd_jobs_queued")
	start := time.Now()
	if resp := s.api.Post("/v2/repository/models/digits/unload", adminKey, nil); resp.Status != http.StatusOK {
		t.Fatalf("unload: %d %s", resp.Status, resp.Body)
	}
	took := time.Since(start)
	if resp := s.api.Post("/predict/async", devKey, spec); resp.Status != http.StatusBadRequest || resp.Problem(t).Code != "model_not_found" {
		t.Errorf("a submission after the unload: %d %s, want 400 model_not_found", resp.Status, resp.Body)
	}

	counts := map[string]int{}
	for _, id := range ids {
		var rec struct {
			Status    string  `json:"status"`
			ErrorCode *string `json:"error_code"`
		}
		testkit.Eventually(t, time.Minute, func() bool {
			resp := s.api.Get("/jobs/"+id+"?wait=10", devKey)
			if err := json.Unmarshal(resp.Body, &rec); err != nil {
				t.Fatalf("job %s: %v", id, err)
			}
			return rank[rec.Status] == 3
		}, "job %s final: it is still %s", id, func() string { return rec.Status })
		key := rec.Status
		if rec.ErrorCode != nil {
			key += " " + *rec.ErrorCode
		}
		counts[key]++
	}
	t.Logf("%d digits jobs, then an unload on the server (%v queued when it was sent; it answered in %s): %v", n, queued, took.Round(time.Millisecond), counts)
	if counts["succeeded"] != n {
		t.Errorf("jobs %v, want all %d succeeded", counts, n)
	}
}
