package queuetest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/storetest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestWorkerSyncsOnDemand: a server and a worker read the same repository in an S3
// bucket (versitygw), each through a cache directory of its own. The server polls
// every 200 ms; the worker is left to poll once an hour. A version uploaded after both
// started serves on the server after a poll, and a job for it, which the server
// accepts, makes the worker sync at once rather than fail "not found": the job
// succeeds, and the worker has converged on the server's versions.
func TestWorkerSyncsOnDemand(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	g := storetest.NewVersitygw(t)
	put := func(version, description string) {
		yaml := []byte("backend: echo\ndescription: " + description + "\n")
		g.Put(t, "e/"+version+"/model.yaml", yaml)
		g.Put(t, "e/"+version+"/SHA256SUMS", []byte(digest(yaml)+"  model.yaml\n"))
	}
	put("v1", "first")
	repo := append(g.Env(), "MODELS_DIR="+g.URL())
	s := c.startServer(append(repo, "MODEL_CACHE_DIR="+t.TempDir(), "REPOSITORY_POLL_INTERVAL=200ms")...)
	w := c.startWorker(append(repo, "MODEL_CACHE_DIR="+t.TempDir(), "REPOSITORY_POLL_INTERVAL=1h")...)

	spec := single("e", "v1", `{"n":1}`)
	if rec := s.waitStatus(t, s.submit(t, spec), "succeeded", 30*time.Second); !testkit.SameJSON(rec.Result, spec.want()) {
		t.Errorf("e v1's job: %s, want %s", rec.Result, spec.want())
	}

	put("v2", "second")
	testkit.Eventually(t, 60*time.Second, func() bool {
		return s.api.Post("/predict", devKey, `{"model":"e","version":"v2","data":1}`).Status == http.StatusOK
	}, "the server serves e v2")
	synced := metric(t, w.Proc, `inferd_repository_syncs_total{outcome="success"}`)
	spec = single("e", "v2", `{"n":2}`)
	start := time.Now()
	rec := s.waitStatus(t, s.submit(t, spec), "succeeded", 90*time.Second)
	if !testkit.SameJSON(rec.Result, spec.want()) {
		t.Errorf("e v2's job: %s, want %s", rec.Result, spec.want())
	}
	t.Logf("a job for a version the worker had not synced succeeded in %s", time.Since(start).Round(time.Millisecond))
	if got := metric(t, w.Proc, `inferd_repository_syncs_total{outcome="success"}`); got != synced+1 {
		t.Errorf("the worker synced %v times for the job, want once, on demand", got-synced)
	}

	spec = single("e", "v9", `{"n":9}`)
	if resp := s.api.Post("/predict/async", devKey, spec); resp.Status != http.StatusBadRequest {
		t.Errorf("a job for a version no one holds: %d %s, want 400", resp.Status, resp.Body)
	}
}

// digest is the hex SHA-256 of b, as sha256sum writes it.
func digest(b []byte) string {
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}
