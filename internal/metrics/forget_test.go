package metrics_test

import (
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// seriesOf counts the series whose labels include all of labels, in every family.
func seriesOf(t *testing.T, reg *prometheus.Registry, labels map[string]string) map[string]int {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range families {
	next:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			out[f.GetName()]++
		}
	}
	return out
}

// touch records every kind of event of one version, as its requests would.
func touch(m *metrics.Metrics, v registry.VersionObserver, model, version string) {
	v.State(registry.StatusReady)
	v.Begin()
	v.End(time.Millisecond)
	v.RoutedAway()
	m.Predicted(model, version, registry.ModeSync, registry.OutcomeSuccess, 2)
	m.Predicted(model, version, registry.ModeInfer, registry.OutcomeError, 1)
	m.Stage(model, version, pipeline.StageModel, time.Millisecond)
	m.Batched(model, version, 2)
	m.Queued(model, version, time.Millisecond)
}

// TestForgottenVersionLeavesNoSeries: once the registry forgets a version (its
// directory deleted, or its model unloaded), none of its series is exported, and
// events that come after (requests that were in flight) bring none back; its
// model's refusals go with its last version. A version announced again starts anew.
func TestForgottenVersionLeavesNoSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	v1, v2 := m.Version("iris", "v1"), m.Version("iris", "v2")
	touch(m, v1, "iris", "v1")
	touch(m, v2, "iris", "v2")
	m.RateLimited("oipInfer", "rate_limited", "iris")
	iris1 := map[string]string{"model": "iris", "version": "v1"}
	before := seriesOf(t, reg, iris1)
	for _, name := range []string{"inferd_model_state", "inferd_predictions_total", "inferd_prediction_items_total",
		"inferd_pipeline_stage_duration_seconds", "inferd_batch_size", "inferd_batch_queue_seconds", "inferd_model_load_failures_total",
		"inferd_routing_fallbacks_total", "inferd_model_requests_in_flight", "inferd_model_request_duration_seconds"} {
		if before[name] == 0 {
			t.Fatalf("no %s series of iris v1 to begin with: %v", name, before)
		}
	}

	v1.Forgotten()
	touch(m, v1, "iris", "v1") // late events of requests in flight when it went
	t.Run("the version's series are gone", func(t *testing.T) {
		if got := seriesOf(t, reg, iris1); len(got) != 0 {
			t.Errorf("series of iris v1 left: %v", got)
		}
	})
	t.Run("its sibling's stay", func(t *testing.T) {
		got := seriesOf(t, reg, map[string]string{"model": "iris", "version": "v2"})
		if got["inferd_predictions_total"] == 0 || got["inferd_model_state"] != 3 {
			t.Errorf("iris v2 lost series: %v", got)
		}
	})
	t.Run("the model's refusals stay while a version is held", func(t *testing.T) {
		if n := seriesOf(t, reg, map[string]string{"model": "iris", "code": "rate_limited"})["inferd_rate_limited_requests_total"]; n != 1 {
			t.Errorf("%d refusal series of iris, want 1", n)
		}
	})

	v2.Forgotten()
	m.RateLimited("oipInfer", "rate_limited", "iris") // the name a client sends, no longer a model's
	t.Run("the last version takes the model's refusals", func(t *testing.T) {
		if got := seriesOf(t, reg, map[string]string{"model": "iris"}); len(got) != 0 {
			t.Errorf("series of iris left: %v", got)
		}
		if n := counterValue(t, reg, "inferd_rate_limited_requests_total", map[string]string{"operation": "oipInfer", "code": "rate_limited", "model": ""}); n != 1 {
			t.Errorf("the refusal naming a model no longer held counts %v under no model, want 1", n)
		}
	})

	again := m.Version("iris", "v1")
	touch(m, again, "iris", "v1")
	t.Run("announced again, it counts from zero", func(t *testing.T) {
		if n := counterValue(t, reg, "inferd_predictions_total", map[string]string{"model": "iris", "version": "v1", "mode": "sync", "outcome": "success"}); n != 1 {
			t.Errorf("iris v1 predictions = %v, want 1", n)
		}
	})
}

// An observer the registry replaced (a version of the same name announced again)
// forgets nothing of the version that replaced it.
func TestForgottenStaleObserver(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	old := m.Version("echo", "v1")
	cur := m.Version("echo", "v1")
	touch(m, cur, "echo", "v1")
	old.Forgotten()
	if got := seriesOf(t, reg, map[string]string{"model": "echo", "version": "v1"}); got["inferd_predictions_total"] == 0 || got["inferd_model_state"] != 3 {
		t.Errorf("a stale observer's Forgotten deleted the current version's series: %v", got)
	}
}

// Refusals name only a model the registry holds: any other name a client sends in a
// path is counted under no model, so the label stays bounded.
func TestRateLimitedModelLabelIsBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	m.Version("echo", "v1")
	for _, model := range []string{"echo", "no-such-model", "x%00y", ""} {
		m.RateLimited("oipInfer", "concurrency_limited", model)
	}
	tests := []struct {
		model string
		want  float64
	}{{"echo", 1}, {"", 3}}
	for _, tt := range tests {
		if n := counterValue(t, reg, "inferd_rate_limited_requests_total", map[string]string{"operation": "oipInfer", "code": "concurrency_limited", "model": tt.model}); n != tt.want {
			t.Errorf("model %q: %v refusals, want %v", tt.model, n, tt.want)
		}
	}
	if n := seriesOf(t, reg, map[string]string{"code": "concurrency_limited"})["inferd_rate_limited_requests_total"]; n != 2 {
		t.Errorf("%d series, want 2 (echo, and no model)", n)
	}
}

// Events racing the forgetting of their version leave no series behind, however
// they interleave with it.
func TestForgettingRacesEvents(t *testing.T) {
	for range 20 {
		reg := prometheus.NewRegistry()
		m := metrics.New(reg)
		v := m.Version("m", "v1")
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				<-start
				for range 200 {
					touch(m, v, "m", "v1")
					m.RateLimited("oipInfer", "rate_limited", "m")
				}
			})
		}
		wg.Go(func() { <-start; v.Forgotten() })
		close(start)
		wg.Wait()
		if got := seriesOf(t, reg, map[string]string{"model": "m"}); len(got) != 0 {
			t.Fatalf("series of a forgotten version left by events racing its forgetting: %v", got)
		}
	}
}
