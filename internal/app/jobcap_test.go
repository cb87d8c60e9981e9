package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// TestJobCapPerKeyInProcess (see docs/design.md#job-records-are-bounded-per-key): in the in-process mode too a key
// holds at most MAX_JOBS_PER_KEY jobs waiting or running; one more is 429 jobs_limited
// with a Retry-After, another key is not counted against it, and a job that ends frees
// its slot.
func TestJobCapPerKeyInProcess(t *testing.T) {
	models := t.TempDir()
	dir := filepath.Join(models, "slow", "v1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The jobs must still be waiting or running when the test acts: they never end on
	// their own within it.
	yaml := "description: echo that takes its time\nbackend: echo\ndelay: 10m\n"
	if err := os.WriteFile(filepath.Join(dir, "model.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startApp(t, map[string]string{
		"MODELS_DIR": models, "MAX_JOBS_PER_KEY": "2", "JOB_WORKERS": "1", "RATE_LIMIT_RPS": "0", "SHUTDOWN_TIMEOUT": "2s",
	}, true)
	var ids []string
	cancel := func(id string) {
		t.Helper()
		if resp := s.c.Do(s.c.NewRequest(http.MethodDelete, "/predict/async/"+id, "dev-key", nil)); resp.Status != http.StatusOK {
			t.Fatalf("cancel %s: %d %s", id, resp.Status, resp.Body)
		}
	}
	accepted := func(key string) string {
		t.Helper()
		resp := s.c.Post("/predict/async", key, `{"model":"slow","data":1}`)
		var out struct {
			JobID string `json:"job_id"`
		}
		if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &out) != nil {
			t.Fatalf("submission with %s: %d %s, want 200", key, resp.Status, resp.Body)
		}
		t.Cleanup(func() { _ = s.c.Do(s.c.NewRequest(http.MethodDelete, "/predict/async/"+out.JobID, key, nil)) })
		return out.JobID
	}
	refused := func() {
		t.Helper()
		for path, body := range map[string]string{
			"/predict/async":       `{"model":"slow","data":2}`,
			"/predict/async/batch": `{"model":"slow","items":[1,2]}`,
		} {
			resp := s.c.Post(path, "dev-key", body)
			if resp.Status != http.StatusTooManyRequests {
				t.Fatalf("%s past the cap of 2: %d %s, want 429", path, resp.Status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != "jobs_limited" {
				t.Errorf("code %q (%s), want jobs_limited", p.Code, p.Detail)
			}
			if resp.Header.Get("Retry-After") == "" {
				t.Error("a 429 jobs_limited without Retry-After")
			}
		}
	}

	ids = append(ids, accepted("dev-key"), accepted("dev-key")) // one runs, one waits
	refused()
	accepted("admin-key")
	cancel(ids[0]) // the running one
	ids = append(ids, accepted("dev-key"))
	refused()
	cancel(ids[1]) // a waiting one
	accepted("dev-key")
	refused()
}

// TestJobBytesBudgetInProcess (see docs/design.md#job-records-are-bounded-per-key): in the in-process mode too a key's
// job records may take at most MAX_JOB_BYTES_PER_KEY: once its finished echo jobs'
// results fill it, its next submission is 429 job_bytes_limited with a Retry-After of
// about JOB_TTL (when the first result expires), and another key is not refused.
func TestJobBytesBudgetInProcess(t *testing.T) {
	s := startApp(t, map[string]string{
		"MAX_JOB_BYTES_PER_KEY": "100000", "MAX_REQUEST_BYTES": "65536", "JOB_TTL": "1h", "RATE_LIMIT_RPS": "0",
	}, true)
	body := `{"model":"echo","data":"` + strings.Repeat("x", 20_000) + `"}`
	var ids []string
	for len(ids) <= 5 {
		resp := s.c.Post("/predict/async", "dev-key", body)
		if resp.Status != http.StatusOK {
			break
		}
		var out struct {
			JobID string `json:"job_id"`
		}
		resp.JSON(t, &out)
		ids = append(ids, out.JobID)
	}
	if len(ids) < 3 || len(ids) > 4 {
		t.Fatalf("%d jobs of 20 KB accepted under a budget of 100 kB, want 3 or 4", len(ids))
	}
	for _, id := range ids {
		var rec struct {
			Status string `json:"status"`
		}
		testkit.Eventually(t, 10*time.Second, func() bool {
			s.c.Get("/jobs/"+id, "dev-key").JSON(t, &rec)
			return rec.Status == "succeeded"
		}, "job %s succeeded: it is %s", id, func() string { return rec.Status })
	}
	resp := s.c.Post("/predict/async", "dev-key", body)
	if resp.Status != http.StatusTooManyRequests || resp.Problem(t).Code != "job_bytes_limited" {
		t.Fatalf("over the budget: %d %.300s, want 429 job_bytes_limited", resp.Status, resp.Body)
	}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 3500 || ra > 3600 {
		t.Errorf("Retry-After %q, want about 3600 (JOB_TTL)", resp.Header.Get("Retry-After"))
	}
	if resp := s.c.Post("/predict/async", "admin-key", body); resp.Status != http.StatusOK {
		t.Errorf("another key: %d %.300s", resp.Status, resp.Body)
	}
}
