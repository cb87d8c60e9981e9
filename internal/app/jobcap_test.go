package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestJobCapPerKeyInProcess (issue 10, finding 4): in the in-process mode too a key
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
