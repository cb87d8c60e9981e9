package httpapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// TestAccessLogLevels: a 5xx is logged at error, but not a readiness probe's 503,
// which is how it says "not yet" or "no longer".
func TestAccessLogLevels(t *testing.T) {
	out := &apitest.Log{}
	failing := registry.Fixed{{Name: "failing", Versions: []registry.VersionSpec{{Version: "v1",
		Loader: fixed(&pipeline.Pipeline{Model: funcModel(func(context.Context, []any) ([]any, error) {
			return nil, errors.New("the runtime gave up")
		})})}}}}
	h := newHarness(t, func(s *setup) {
		s.opts.Logger = slog.New(slog.NewJSONHandler(out, nil))
		s.sources = append(s.sources, failing)
		s.noLoad = true
	})
	check := func(name string, resp *apitest.Response, status int, level string) {
		t.Helper()
		if resp.Status != status {
			t.Fatalf("%s: status %d, want %d: %s", name, resp.Status, status, resp.Body)
		}
		var line struct{ Level string }
		if !out.AccessLine(resp.Header.Get("X-Request-Id"), &line) {
			t.Fatalf("%s: no access log line:\n%s", name, out)
		}
		if line.Level != level {
			t.Errorf("%s: logged at %s, want %s", name, line.Level, level)
		}
	}
	check("/ready while loading", h.c.Get("/ready", ""), http.StatusServiceUnavailable, "INFO")
	check("/v2/health/ready while loading", h.c.Get("/v2/health/ready", ""), http.StatusServiceUnavailable, "INFO")
	h.reg.Load(context.Background())
	check("/ready once loaded", h.c.Get("/ready", ""), http.StatusOK, "INFO")
	check("a model that fails", h.c.Post("/predict", keyPredict, `{"model":"failing","data":1}`), http.StatusInternalServerError, "ERROR")
	h.srv.Drain()
	check("/ready while draining", h.c.Get("/ready", ""), http.StatusServiceUnavailable, "INFO")
}
