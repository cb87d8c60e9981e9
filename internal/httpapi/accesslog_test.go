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
	"github.com/inferd/inferd/internal/testkit"
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
		testkit.Eventually(t, 5*time.Second, func() bool { return out.AccessLine(resp.Header.Get("X-Request-Id"), &line) },
			"%s: no access log line:\n%s", name, out)
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
			testkit.Eventually(t, 5*time.Second, func() bool { return out.AccessLine(resp.Header.Get("X-Request-Id"), &line) },
				"no access line for the prediction:\n%s", out)
			if line.Level != "INFO" {
				t.Fatalf("the prediction's access line is missing or not at info (%q):\n%s", line.Level, out)
			}
			if out.AccessLine(probe.Header.Get("X-Request-Id"), &line) {
				t.Errorf("an access line at %s for %s:\n%s", line.Level, path, out)
			}
		})
	}
}

// TestAccessLogNamesModelAndVersion: the line of a request that routing sent to a
// version names the model and that version (the one routing chose when the client
// named none), whether it then succeeded or failed; a request that named no model,
// or one routing could not place, names none.
func TestAccessLogNamesModelAndVersion(t *testing.T) {
	out := &apitest.Log{}
	h := newHarness(t, func(s *setup) {
		s.opts.Logger = slog.New(slog.NewJSONHandler(out, nil))
		s.sources = append(s.sources, testModel("failing", failing))
	})
	infer := `{"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]}`
	tests := []struct {
		name           string
		do             func() *apitest.Response
		status         int
		model, version string // "": no such attribute
	}{
		{"a prediction routed by the rule", func() *apitest.Response {
			return h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`)
		}, http.StatusOK, "echo", "v2"},
		{"a prediction of a version", func() *apitest.Response {
			return h.c.Post("/predict", keyPredict, `{"model":"echo","version":"v1","data":1}`)
		}, http.StatusOK, "echo", "v1"},
		{"a batch", func() *apitest.Response {
			return h.c.Post("/predict/batch", keyPredict, `{"model":"echo","version":"v1","items":[1,2]}`)
		}, http.StatusOK, "echo", "v1"},
		{"a job", func() *apitest.Response {
			return h.c.Post("/predict/async", keyPredict, `{"model":"echo","data":1}`)
		}, http.StatusOK, "echo", "v2"},
		{"a batch job", func() *apitest.Response {
			return h.c.Post("/predict/async/batch", keyPredict, `{"model":"echo","version":"v1","items":[1]}`)
		}, http.StatusOK, "echo", "v1"},
		{"a /v2 inference", func() *apitest.Response {
			return h.c.Post("/v2/models/echo/infer", keyPredict, infer)
		}, http.StatusOK, "echo", "v2"},
		{"a /v2 inference of a version", func() *apitest.Response {
			return h.c.Post("/v2/models/echo/versions/v1/infer", keyPredict, infer)
		}, http.StatusOK, "echo", "v1"},
		{"a prediction that fails after routing", func() *apitest.Response {
			return h.c.Post("/predict", keyPredict, `{"model":"failing","data":1}`)
		}, http.StatusInternalServerError, "failing", "v1"},
		{"an unknown model", func() *apitest.Response {
			return h.c.Post("/predict", keyPredict, `{"model":"nosuch","data":1}`)
		}, http.StatusBadRequest, "", ""},
		{"an unknown version over /v2", func() *apitest.Response {
			return h.c.Post("/v2/models/echo/versions/v9/infer", keyPredict, infer)
		}, http.StatusNotFound, "", ""},
		{"a model listing", func() *apitest.Response { return h.c.Get("/models", keyRead) }, http.StatusOK, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := tt.do()
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			var line map[string]any
			testkit.Eventually(t, 5*time.Second, func() bool { return out.AccessLine(resp.Header.Get("X-Request-Id"), &line) },
				"no access log line:\n%s", out)
			for key, want := range map[string]string{"model": tt.model, "version": tt.version} {
				got, has := line[key]
				switch {
				case want == "" && has:
					t.Errorf("%s=%v in the line, want none: %v", key, got, line)
				case want != "" && got != want:
					t.Errorf("%s=%v, want %q: %v", key, got, want, line)
				}
			}
		})
	}
}
