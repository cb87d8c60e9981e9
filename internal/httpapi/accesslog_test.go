package httpapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// TestAccessLogLevels: a request is logged at info, a 5xx at error, and a probe
// (liveness, readiness, metrics) at debug, its readiness 503 ("not yet", "no longer")
// included.
func TestAccessLogLevels(t *testing.T) {
	out := &apitest.Log{}
	failing := registry.Fixed{{Name: "failing", Versions: []registry.VersionSpec{{Version: "v1",
		Loader: fixed(&pipeline.Pipeline{Model: funcModel(func(context.Context, []any) ([]any, error) {
			return nil, errors.New("the runtime gave up")
		})})}}}}
	h := newHarness(t, func(s *setup) {
		s.opts.Logger = slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))
		s.sources = append(s.sources, failing)
		s.noLoad = true
	})
	check := func(name string, resp *apitest.Response, status int, level string) {
		t.Helper()
		if resp.Status != status {
			t.Fatalf("%s: status %d, want %d: %s", name, resp.Status, status, resp.Body)
		}
		var line struct{ Level string }
		if !waitAccessLine(out, resp.Header.Get("X-Request-Id"), &line) {
			t.Fatalf("%s: no access log line:\n%s", name, out)
		}
		if line.Level != level {
			t.Errorf("%s: logged at %s, want %s", name, line.Level, level)
		}
	}
	check("/ready while loading", h.c.Get("/ready", ""), http.StatusServiceUnavailable, "DEBUG")
	check("/v2/health/ready while loading", h.c.Get("/v2/health/ready", ""), http.StatusServiceUnavailable, "DEBUG")
	h.reg.Load(context.Background())
	check("/ready once loaded", h.c.Get("/ready", ""), http.StatusOK, "DEBUG")
	check("/v2/health/ready once loaded", h.c.Get("/v2/health/ready", ""), http.StatusOK, "DEBUG")
	check("/health", h.c.Get("/health", ""), http.StatusOK, "DEBUG")
	check("/v2/health/live", h.c.Get("/v2/health/live", ""), http.StatusOK, "DEBUG")
	check("/metrics", h.c.Get("/metrics", ""), http.StatusOK, "DEBUG")
	check("a prediction", h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`), http.StatusOK, "INFO")
	check("a model listing", h.c.Get("/models", keyRead), http.StatusOK, "INFO")
	check("a model that fails", h.c.Post("/predict", keyPredict, `{"model":"failing","data":1}`), http.StatusInternalServerError, "ERROR")
	h.srv.Drain()
	check("/ready while draining", h.c.Get("/ready", ""), http.StatusServiceUnavailable, "DEBUG")
}

// TestProbesQuietAtInfo: at the default level a probe writes no access line, while
// a request after it does.
func TestProbesQuietAtInfo(t *testing.T) {
	out := &apitest.Log{}
	h := newHarness(t, func(s *setup) { s.opts.Logger = slog.New(slog.NewJSONHandler(out, nil)) })
	for _, path := range []string{"/health", "/ready", "/metrics", "/v2/health/live", "/v2/health/ready"} {
		t.Run(path, func(t *testing.T) {
			probe := h.c.Get(path, "")
			if probe.Status != http.StatusOK {
				t.Fatalf("%d %s", probe.Status, probe.Body)
			}
			// By the time a later request is logged, the probe's line would be there.
			resp := h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`)
			var line struct{ Level string }
			if !waitAccessLine(out, resp.Header.Get("X-Request-Id"), &line) || line.Level != "INFO" {
				t.Fatalf("the prediction's access line is missing or not at info (%q):\n%s", line.Level, out)
			}
			if out.AccessLine(probe.Header.Get("X-Request-Id"), &line) {
				t.Errorf("an access line at %s for %s:\n%s", line.Level, path, out)
			}
		})
	}
}

// waitAccessLine is apitest.Log.AccessLine once the line is there: a small answer
// may reach the client before its handler has returned and logged it.
func waitAccessLine(out *apitest.Log, requestID string, v any) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if out.AccessLine(requestID, v) {
			return true
		}
	}
	return false
}
