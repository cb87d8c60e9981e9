package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

// TestWaitJobWaitsOutUnavailable has WaitJob meet what a load balancer answers while
// the servers behind it restart: 503s with Retry-After, then the job (through an early
// answer that is not final).
func TestWaitJobWaitsOutUnavailable(t *testing.T) {
	var polls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The long poll asks the server to wait (WaitOptions.Poll's default); this server
		// answers at once, as an older one would, and WaitJob backs off between polls.
		if r.URL.Path != "/jobs/j1" || r.URL.Query().Get("wait") != "20" || r.Header.Get("X-API-Key") != "k" || r.Header.Get("User-Agent") != "ua/1" {
			t.Errorf("%s %s key %q agent %q", r.Method, r.URL.Path, r.Header.Get("X-API-Key"), r.Header.Get("User-Agent"))
		}
		polls++
		switch {
		case polls <= 2:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
		case polls == 3:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"job_id":"j1","status":"running","model":"echo","version":"v1","created_at":"2026-11-22T10:00:00Z","result":null,"error_message":null}`))
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"job_id":"j1","status":"succeeded","model":"echo","version":"v1","created_at":"2026-11-22T10:00:00Z","result":[1],"error_message":null}`))
		}
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.WithAPIKey("k"), client.WithUserAgent("ua/1"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []client.JobStatus
	rec, err := c.WaitJob(context.Background(), "j1", client.WaitOptions{Initial: time.Millisecond, Max: 2 * time.Millisecond,
		Progress: func(r *client.JobRecord) { seen = append(seen, r.Status) }})
	if err != nil || rec.Status != client.JobSucceeded || string(rec.Result) != "[1]" || polls != 4 {
		t.Fatalf("WaitJob: %+v, %v after %d polls", rec, err, polls)
	}
	if len(seen) != 2 || seen[0] != client.JobRunning {
		t.Errorf("progress saw %v", seen)
	}
}
