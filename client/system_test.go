package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

// TestReadyWhileLoading reads the contract's 503 answer of /ready, which is a
// readiness and not a problem. A real server is loading for too short a time to catch
// it reliably, so this one answers as the contract's example does.
func TestReadyWhileLoading(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.Header().Set("X-Request-ID", "r1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"loading"}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Ready(context.Background())
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable || e.RetryAfter != time.Second || e.RequestID != "r1" {
		t.Errorf("error %v, want a *client.Error 503 with Retry-After 1 s", err)
	}
	if r == nil || r.Status != "loading" {
		t.Errorf("readiness %+v, want loading", r)
	}
}
