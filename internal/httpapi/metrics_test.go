package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// scrape reads the server's /metrics.
func scrape(t *testing.T, h *harness) map[string]*dto.MetricFamily {
	t.Helper()
	resp := h.c.Get("/metrics", "")
	if resp.Status != http.StatusOK {
		t.Fatalf("/metrics: %d", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// value is the value of the one series of name with labels (a histogram's count);
// the test fails when there is none.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
next:
	for _, m := range fams[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Errorf("no %s%v", name, labels)
	return -1
}

type series struct {
	name   string
	labels map[string]string
	want   float64
}

func checkSeries(t *testing.T, fams map[string]*dto.MetricFamily, tests []series) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(t, fams, tt.name, tt.labels); got != tt.want {
				t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
			}
		})
	}
}

// Before any request, every labelled counter exists at zero for the models the server
// knows, and each version's state and load failures are there.
func TestMetricsBeforeAnyRequest(t *testing.T) {
	h := newHarness(t, func(s *setup) {
		s.opts.RateLimitRPS, s.opts.RateLimitBurst = 10, 10
		s.sources = append(s.sources, canary())
	})
	checkSeries(t, scrape(t, h), []series{
		{"inferd_predictions_total", map[string]string{"model": "echo", "version": "v1", "mode": "sync", "outcome": "success"}, 0},
		{"inferd_predictions_total", map[string]string{"model": "canary", "version": "v2", "mode": "async", "outcome": "unavailable"}, 0},
		{"inferd_prediction_items_total", map[string]string{"model": "echo", "version": "v2", "mode": "sync"}, 0},
		{"inferd_model_reloads_total", map[string]string{"outcome": "success"}, 0},
		{"inferd_model_reloads_total", map[string]string{"outcome": "failure"}, 0},
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "predict", "code": "rate_limited"}, 0},
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "submitBatchJob", "code": "rate_limited"}, 0},
		{"inferd_jobs_finished_total", map[string]string{"status": "failed"}, 0},
		{"inferd_routing_fallbacks_total", map[string]string{"model": "echo", "version": "v1"}, 0},
		{"inferd_model_load_failures_total", map[string]string{"model": "echo", "version": "v1"}, 0},
		{"inferd_model_load_failures_total", map[string]string{"model": "canary", "version": "v2"}, 1},
		{"inferd_model_state", map[string]string{"model": "canary", "version": "v2", "state": "failed"}, 1},
		{"inferd_model_state", map[string]string{"model": "canary", "version": "v2", "state": "ready"}, 0},
		{"inferd_model_state", map[string]string{"model": "echo", "version": "v1", "state": "ready"}, 1},
		{"inferd_model_state", map[string]string{"model": "echo", "version": "v1", "state": "loading"}, 0},
		{"inferd_model_requests_in_flight", map[string]string{"model": "echo", "version": "v2"}, 0},
		{"inferd_model_request_duration_seconds", map[string]string{"model": "echo", "version": "v2"}, 0},
		{"inferd_job_workers", nil, 1},
	})
}

func TestModelStateWhileLoading(t *testing.T) {
	release := make(chan struct{})
	slow := registry.Fixed{{Name: "slow", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(
		func(ctx context.Context) (*pipeline.Pipeline, error) {
			<-release
			return echoLoader().Load(ctx)
		})}}}}
	h := newHarness(t, func(s *setup) { s.sources = append(s.sources, slow); s.noLoad = true })
	loaded := make(chan struct{})
	go func() { h.reg.Load(context.Background()); close(loaded) }()
	checkSeries(t, scrape(t, h), []series{
		{"inferd_model_state", map[string]string{"model": "slow", "version": "v1", "state": "loading"}, 1},
		{"inferd_model_state", map[string]string{"model": "slow", "version": "v1", "state": "ready"}, 0},
	})
	close(release)
	<-loaded
	checkSeries(t, scrape(t, h), []series{
		{"inferd_model_state", map[string]string{"model": "slow", "version": "v1", "state": "loading"}, 0},
		{"inferd_model_state", map[string]string{"model": "slow", "version": "v1", "state": "ready"}, 1},
	})
}

// Requests are timed end to end per version and counted in flight while they run; a
// job's wait in the queue is timed beside its run.
func TestRequestLatencyInFlightAndJobWait(t *testing.T) {
	var fams map[string]*dto.MetricFamily
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(s *setup) {
			s.inMemory = true
			s.sources = append(s.sources, testModel("gate", blocking(release)))
		})
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.c.Post("/predict", keyPredict, `{"model":"gate","data":1}`)
			}()
		}
		synctest.Wait() // both requests are blocked in the model
		if n := value(t, scrape(t, h), "inferd_model_requests_in_flight", map[string]string{"model": "gate", "version": "v1"}); n != 2 {
			t.Fatalf("inferd_model_requests_in_flight %v with two requests blocked, want 2", n)
		}
		close(release)
		wg.Wait()
		for range 3 {
			h.c.Post("/predict/batch", keyPredict, `{"model":"echo","version":"v1","items":[1,2]}`)
		}
		waitFinal(t, h.c, submit(t, h.c, "/predict/async", `{"model":"echo","data":1}`))
		fams = scrape(t, h)
	})
	// checkSeries runs subtests, which a bubble does not allow.
	checkSeries(t, fams, []series{
		{"inferd_model_requests_in_flight", map[string]string{"model": "gate", "version": "v1"}, 0},
		{"inferd_model_request_duration_seconds", map[string]string{"model": "gate", "version": "v1"}, 2},
		{"inferd_model_request_duration_seconds", map[string]string{"model": "echo", "version": "v1"}, 3},
		{"inferd_model_request_duration_seconds", map[string]string{"model": "echo", "version": "v2"}, 1},
		{"inferd_job_queue_wait_seconds", nil, 1},
		{"inferd_job_duration_seconds", nil, 1},
	})
}

// TestMetricsDropAnUnloadedModel: once a model is unloaded, /metrics holds no series
// naming it (its predictions, latencies, states, refusals); loaded again, it starts
// from zero.
func TestMetricsDropAnUnloadedModel(t *testing.T) {
	h := newHarness(t)
	if resp := h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`); resp.Status != http.StatusOK {
		t.Fatalf("predict: %d %s", resp.Status, resp.Body)
	}
	named := func(fams map[string]*dto.MetricFamily) []string {
		var out []string
		for name, f := range fams {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "model" && l.GetValue() == "echo" {
						out = append(out, name)
					}
				}
			}
		}
		return out
	}
	if got := named(scrape(t, h)); len(got) == 0 {
		t.Fatal("no series names echo to begin with")
	}
	if resp := h.c.Post("/v2/repository/models/echo/unload", keyAdmin, ""); resp.Status != http.StatusOK {
		t.Fatalf("unload: %d %s", resp.Status, resp.Body)
	}
	if got := named(scrape(t, h)); len(got) != 0 {
		t.Errorf("series of the unloaded model echo in /metrics: %v", got)
	}
	if resp := h.c.Post("/v2/repository/models/echo/load", keyAdmin, ""); resp.Status != http.StatusOK {
		t.Fatalf("load: %d %s", resp.Status, resp.Body)
	}
	checkSeries(t, scrape(t, h), []series{
		{"inferd_predictions_total", map[string]string{"model": "echo", "version": "v1", "mode": "sync", "outcome": "success"}, 0},
		{"inferd_model_state", map[string]string{"model": "echo", "version": "v1", "state": "ready"}, 1},
	})
}

// TestRateLimitedByModel: a refusal is counted under the model the request's path
// names when the registry holds it; /predict's model is in its body, which the limit
// refuses before reading, and a name no model has is counted under none.
func TestRateLimitedByModel(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.opts.RateLimitRPS, s.opts.RateLimitBurst = 0.001, 1 })
	infer := `{"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]}`
	if resp := h.c.Post("/predict", keyPredict, `{"model":"echo","data":1}`); resp.Status != http.StatusOK {
		t.Fatalf("the burst's request: %d %s", resp.Status, resp.Body)
	}
	for _, req := range []struct{ path, body string }{
		{"/predict", `{"model":"echo","data":1}`},
		{"/v2/models/echo/infer", infer},
		{"/v2/models/echo/versions/v1/infer", infer},
		{"/v2/models/nosuch/infer", infer},
	} {
		if resp := h.c.Post(req.path, keyPredict, req.body); resp.Status != http.StatusTooManyRequests {
			t.Fatalf("%s past the burst: %d, want 429", req.path, resp.Status)
		}
	}
	checkSeries(t, scrape(t, h), []series{
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "predict", "code": "rate_limited", "model": ""}, 1},
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "oipInfer", "code": "rate_limited", "model": "echo"}, 1},
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "oipInferVersion", "code": "rate_limited", "model": "echo"}, 1},
		{"inferd_rate_limited_requests_total", map[string]string{"operation": "oipInfer", "code": "rate_limited", "model": ""}, 1},
	})
}
