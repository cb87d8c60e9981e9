package httpapi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

func TestReadyWhileLoading(t *testing.T) {
	release := make(chan struct{})
	slow := registry.Fixed{{Name: "slow", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(
		func(ctx context.Context) (*pipeline.Pipeline, error) {
			<-release
			return &pipeline.Pipeline{Model: funcModel(func(_ context.Context, b []any) ([]any, error) { return b, nil })}, nil
		})}}}}
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, slow); s.noLoad = true })
	loaded := make(chan struct{})
	go func() { h.reg.Load(context.Background()); close(loaded) }()

	if resp := h.c.Get("/health", ""); resp.Status != http.StatusOK {
		t.Fatalf("health while loading: %d", resp.Status)
	}
	resp := h.c.Get("/ready", "")
	if resp.Status != http.StatusServiceUnavailable || !strings.Contains(string(resp.Body), `"loading"`) {
		t.Fatalf("ready while loading: %d %s", resp.Status, resp.Body)
	}
	if resp := h.c.Get("/models", keyRead); !strings.Contains(string(resp.Body), `"slow"`) {
		t.Errorf("/models must list a model still loading: %s", resp.Body)
	}
	for _, path := range []string{"/predict", "/predict/async"} {
		if resp := h.c.Post(path, keyPredict, `{"model":"slow","data":1}`); resp.Status != http.StatusServiceUnavailable || resp.Problem(t).Code != "model_loading" {
			t.Errorf("%s while loading: %d %s", path, resp.Status, resp.Body)
		}
	}
	close(release)
	<-loaded
	resp = h.c.Get("/ready", "")
	if resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"ready"`) {
		t.Fatalf("ready after loading: %d %s", resp.Status, resp.Body)
	}
	// After warm-up, what is in memory matches the listing.
	var listed, loadedList struct {
		Models []struct{ Name, Version string }
	}
	h.c.Get("/models", keyAdmin).JSON(t, &listed)
	h.c.Get("/debug/models/loaded", keyAdmin).JSON(t, &loadedList)
	if len(listed.Models) != 3 || len(loadedList.Models) != len(listed.Models) {
		t.Fatalf("models %v, loaded %v", listed.Models, loadedList.Models)
	}
	for i := range listed.Models {
		if listed.Models[i] != loadedList.Models[i] {
			t.Errorf("entry %d: listed %v, loaded %v", i, listed.Models[i], loadedList.Models[i])
		}
	}
}

func TestExecutionErrors(t *testing.T) {
	panicky := funcModel(func(context.Context, []any) ([]any, error) { panic("index out of range in the runtime") })
	h := newHarness(t, func(s *setup) {
		s.sources = append(s.sources, testModel("broken", failing), testModel("panicky", panicky))
	})
	for _, name := range []string{"broken", "panicky"} {
		t.Run(name, func(t *testing.T) {
			resp := h.c.Post("/predict", keyPredict, `{"model":"`+name+`","data":1}`)
			if resp.Status != http.StatusInternalServerError || resp.Problem(t).Code != "execution_error" {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			resp = h.c.Post("/predict/batch", keyPredict, `{"model":"`+name+`","items":[1,2]}`)
			if resp.Status != http.StatusInternalServerError || resp.Problem(t).Code != "execution_error" {
				t.Fatalf("batch: status %d: %s", resp.Status, resp.Body)
			}
		})
	}
	if resp := h.c.Get("/health", ""); resp.Status != http.StatusOK {
		t.Errorf("the server must survive a pipeline panic")
	}
}

// closeCounter is a model that counts its closes, to show reload releases the old one.
type closeCounter struct {
	gen    int
	closed *atomic.Int32
}

func (m closeCounter) Predict(_ context.Context, batch []any) ([]any, error) {
	time.Sleep(100 * time.Microsecond) // keep requests in flight across the swap (on the bubble's clock)
	out := make([]any, len(batch))
	for i := range batch {
		out[i] = m.gen
	}
	return out, nil
}

func (m closeCounter) Close() error { m.closed.Add(1); return nil }

func TestHotReloadUnderLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gen atomic.Int32
		var closed atomic.Int32
		src := registry.Fixed{{Name: "counter", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(
			func(context.Context) (*pipeline.Pipeline, error) {
				return &pipeline.Pipeline{Model: closeCounter{gen: int(gen.Add(1)), closed: &closed}}, nil
			})}}}}
		h := newHarness(t, func(s *setup) { s.inMemory = true; s.sources = append(s.sources, src) })

		ctx, stop := context.WithCancel(context.Background())
		var failures, requests atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					resp := h.c.Post("/predict", keyPredict, `{"model":"counter","data":0}`)
					requests.Add(1)
					if resp.Status != http.StatusOK {
						failures.Add(1)
					}
				}
			}()
		}
		const reloads = 20
		for range reloads {
			resp := h.c.Post("/admin/models/counter/v1/reload", keyAdmin, nil)
			if resp.Status != http.StatusOK {
				t.Errorf("reload: %d %s", resp.Status, resp.Body)
			}
			time.Sleep(600 * time.Microsecond) // six requests of each client between reloads
		}
		stop()
		wg.Wait()
		if failures.Load() != 0 || requests.Load() < reloads {
			t.Fatalf("%d of %d requests failed during reloads", failures.Load(), requests.Load())
		}
		var out struct{ Result int }
		h.c.Post("/predict", keyPredict, `{"model":"counter","data":0}`).JSON(t, &out)
		if out.Result != reloads+1 {
			t.Errorf("served generation %d, want %d", out.Result, reloads+1)
		}
		synctest.Wait() // the replaced pipelines' retirements have run
		if closed.Load() != reloads {
			t.Errorf("%d old pipelines closed, want %d", closed.Load(), reloads)
		}
	})
}

func TestFailedReloadKeepsOldPipeline(t *testing.T) {
	var fail atomic.Bool
	src := registry.Fixed{{Name: "flaky", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(
		func(context.Context) (*pipeline.Pipeline, error) {
			if fail.Load() {
				return nil, errBoom
			}
			return &pipeline.Pipeline{Model: funcModel(func(_ context.Context, b []any) ([]any, error) { return b, nil })}, nil
		})}}}}
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, src) })
	fail.Store(true)
	resp := h.c.Post("/admin/models/flaky/v1/reload", keyAdmin, nil)
	if resp.Status != http.StatusInternalServerError {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	if p := resp.Problem(t); p.Code != "reload_failed" || !strings.Contains(p.Detail, "boom") {
		t.Errorf("problem %+v", p)
	}
	if resp := h.c.Post("/predict", keyPredict, `{"model":"flaky","data":7}`); resp.Status != http.StatusOK {
		t.Errorf("the old pipeline must keep serving: %d %s", resp.Status, resp.Body)
	}
}

func TestMemoryReport(t *testing.T) {
	h := newHarness(t)
	var rep struct {
		Pipelines []struct {
			Name, Version string
			Bytes         int64
		}
		Process struct {
			RSSBytes int64 `json:"rss_bytes"`
		}
	}
	h.c.Get("/admin/models/memory", keyAdmin).JSON(t, &rep)
	if len(rep.Pipelines) != 2 || rep.Pipelines[0].Name != "echo" || rep.Process.RSSBytes <= 0 {
		t.Errorf("report %+v", rep)
	}
}

func TestMetrics(t *testing.T) {
	h := newHarness(t, func(s *setup) {
		s.opts.RateLimitRPS, s.opts.RateLimitBurst = 0.001, 5
		s.sources = append(s.sources, testModel("broken", failing))
	})
	h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`)
	h.c.Post("/predict/batch", keyPredict, `{"model":"echo","items":[1,2,3]}`)
	h.c.Post("/predict", keyPredict, `{"model":"broken","data":1}`)
	id := submit(t, h.c, "/predict/async", `{"model":"echo","data":1}`)
	waitFinal(t, h.c, id)
	h.c.Post("/admin/models/echo/v1/reload", keyAdmin, nil)
	for range 3 {
		h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`) // past the burst: 429
	}
	h.c.Get("/predict/async/"+id, keyPredict)

	resp := h.c.Get("/metrics", "")
	if resp.Status != http.StatusOK {
		t.Fatalf("status %d", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	has := func(name string, labels map[string]string) bool {
		f := families[name]
		if f == nil {
			return false
		}
	next:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			return true
		}
		return false
	}
	tests := []struct {
		name   string
		labels map[string]string
	}{
		{"inferd_http_requests_total", map[string]string{"operation": "predict", "code": "200"}},
		{"inferd_http_requests_total", map[string]string{"operation": "pollJob", "code": "200"}},
		{"inferd_http_requests_total", map[string]string{"operation": "predict", "code": "429"}},
		{"inferd_http_request_duration_seconds", map[string]string{"operation": "predictBatch", "code": "200"}},
		{"inferd_predictions_total", map[string]string{"model": "echo", "version": "v2", "mode": "sync", "outcome": "success"}},
		{"inferd_predictions_total", map[string]string{"model": "echo", "version": "v2", "mode": "async", "outcome": "success"}},
		{"inferd_predictions_total", map[string]string{"model": "broken", "version": "v1", "mode": "sync", "outcome": "error"}},
		{"inferd_pipeline_stage_duration_seconds", map[string]string{"model": "echo", "version": "v2", "stage": "model"}},
		{"inferd_jobs_finished_total", map[string]string{"status": "succeeded"}},
		{"inferd_jobs_queued", nil},
		{"inferd_jobs_running", nil},
		{"inferd_models_loaded", nil},
		{"inferd_model_reloads_total", map[string]string{"outcome": "success"}},
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "predict", "code": "rate_limited"}},
		{"go_goroutines", nil},
		{"process_resident_memory_bytes", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !has(tt.name, tt.labels) {
				t.Errorf("no %s with %v", tt.name, tt.labels)
			}
		})
	}
	t.Run("no raw paths or job ids in labels", func(t *testing.T) {
		if strings.Contains(string(resp.Body), id) {
			t.Error("a job id appears in /metrics")
		}
	})
	if v := families["inferd_models_loaded"].GetMetric()[0].GetGauge().GetValue(); v != 3 {
		t.Errorf("inferd_models_loaded %v, want 3", v)
	}
}

// Reload takes no request body: any body, whatever its type, is refused with 413 before
// anything else looks at it (the contract fuzzer found `{}` and text accepted).
func TestReloadBody(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name        string
		body        any
		contentType string
		chunked     bool
		want        int
	}{
		{"no body", nil, "", false, http.StatusOK},
		{"empty JSON object", "{}", "application/json", false, http.StatusRequestEntityTooLarge},
		{"text", "reload please", "text/plain", false, http.StatusRequestEntityTooLarge},
		{"no content type", `{"model":"echo"}`, "", false, http.StatusRequestEntityTooLarge},
		{"chunked", "{}", "application/json", true, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodPost, "/admin/models/echo/v1/reload", keyAdmin, tt.body)
			req.Header.Del("Content-Type")
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.chunked {
				req.Body, req.ContentLength, req.GetBody = io.NopCloser(strings.NewReader(tt.body.(string))), -1, nil
			}
			resp := h.c.Do(req)
			if resp.Status != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.want, resp.Body)
			}
			if tt.want == http.StatusRequestEntityTooLarge && resp.Problem(t).Code != "payload_too_large" {
				t.Errorf("code %q, want payload_too_large", resp.Problem(t).Code)
			}
		})
	}
}
