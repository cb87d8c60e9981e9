package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

func echoLoader() registry.Loader {
	return fixed(&pipeline.Pipeline{Model: funcModel(func(_ context.Context, b []any) ([]any, error) { return b, nil })})
}

func failedLoader(msg string) registry.Loader {
	return registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return nil, errors.New(msg) })
}

// canary is a model whose v2, weighted 50%, failed to load.
func canary() registry.Source {
	return registry.Fixed{{Name: "canary",
		Rule: registry.Rule{Strategy: registry.Weighted, Weights: map[string]float64{"v1": 50, "v2": 50}},
		Versions: []registry.VersionSpec{
			{Version: "v1", Loader: echoLoader()},
			{Version: "v2", Loader: failedLoader("models/canary/v2/model.onnx: no such file")},
		}}}
}

type readiness struct {
	Status string
	Failed []struct{ Name, Version, Error string }
}

func TestReadyWithAFailedVersion(t *testing.T) {
	tests := []struct {
		name        string
		sources     []registry.Source
		allowFailed bool
		wantStatus  int
		want        string
		wantFailed  []string // "name version: error"
	}{
		{"every version loaded", nil, false, http.StatusOK, "ready", nil},
		// Nothing is loading any more: the status says why the server is not ready.
		{"strict: a failed version", []registry.Source{canary()}, false, http.StatusServiceUnavailable, "failed",
			[]string{"canary v2: models/canary/v2/model.onnx: no such file"}},
		{"READY_ALLOW_FAILED: ready, still naming it", []registry.Source{canary()}, true, http.StatusOK, "ready",
			[]string{"canary v2: models/canary/v2/model.onnx: no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(s *setup) {
				s.sources = append(s.sources, tt.sources...)
				s.opts.ReadyAllowFailed = tt.allowFailed
			})
			resp := h.c.Get("/ready", "")
			var got readiness
			resp.JSON(t, &got)
			if resp.Status != tt.wantStatus || got.Status != tt.want {
				t.Fatalf("/ready = %d %s, want %d %s", resp.Status, resp.Body, tt.wantStatus, tt.want)
			}
			if tt.wantStatus == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
				t.Error("a 503 without Retry-After")
			}
			var failed []string
			for _, f := range got.Failed {
				failed = append(failed, f.Name+" "+f.Version+": "+f.Error)
			}
			if len(failed) != len(tt.wantFailed) || (len(failed) > 0 && failed[0] != tt.wantFailed[0]) {
				t.Errorf("failed = %q, want %q", failed, tt.wantFailed)
			}
		})
	}
}

// A reload that makes the failed version load makes the server ready again.
func TestReadyAfterTheFailedVersionIsReloaded(t *testing.T) {
	fails := true
	src := registry.Fixed{{Name: "flaky", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(
		func(ctx context.Context) (*pipeline.Pipeline, error) {
			if fails {
				return nil, errors.New("weights file truncated")
			}
			return echoLoader().Load(ctx)
		})}}}}
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, src) })
	if resp := h.c.Get("/ready", ""); resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("/ready with a failed version: %d %s", resp.Status, resp.Body)
	}
	fails = false
	if resp := h.c.Post("/admin/models/flaky/v1/reload", keyAdmin, nil); resp.Status != http.StatusOK {
		t.Fatalf("reload: %d %s", resp.Status, resp.Body)
	}
	var got readiness
	if resp := h.c.Get("/ready", ""); resp.Status != http.StatusOK {
		t.Fatalf("/ready after the reload: %d %s", resp.Status, resp.Body)
	} else if resp.JSON(t, &got); len(got.Failed) != 0 {
		t.Errorf("failed after the reload: %+v", got.Failed)
	}
}

// A request without a version never goes to the failed canary while v1 serves; each
// one routing sent elsewhere is counted.
func TestRoutingAvoidsAFailedVersion(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, canary()) })
	const n = 40
	for range n {
		resp := h.c.Post("/predict", keyPredict, `{"model":"canary","data":1}`)
		if resp.Status != http.StatusOK || resp.Header.Get("X-Model-Version") != "v1" {
			t.Fatalf("predict: %d %s (version %q)", resp.Status, resp.Body, resp.Header.Get("X-Model-Version"))
		}
	}
	fams := scrape(t, h)
	away := value(t, fams, "inferd_routing_fallbacks_total", map[string]string{"model": "canary", "version": "v2"})
	if away < 5 || away > n { // about half of them chose v2
		t.Errorf("inferd_routing_fallbacks_total{canary,v2} = %v of %d requests", away, n)
	}
	if v := value(t, fams, "inferd_routing_fallbacks_total", map[string]string{"model": "canary", "version": "v1"}); v != 0 {
		t.Errorf("fallbacks from v1 = %v", v)
	}
}
