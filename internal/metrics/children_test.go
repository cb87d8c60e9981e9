package metrics_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// Events recorded through the cached children land in the same series, exactly, as
// looking the children up on every event did: concurrent first uses of a label set
// make one child, and nothing is lost while the cache grows.
func TestCachedChildrenCountExactly(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	const goroutines, events = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range events {
				op := fmt.Sprintf("op%d", i%5) // new label sets arrive while others are counted
				m.HTTP(op, 200+g%2, time.Millisecond)
				m.Predicted("echo", "v1", registry.ModeSync, registry.OutcomeSuccess, 2)
				m.Stage("echo", "v1", pipeline.StageModel, time.Millisecond)
				m.Batched("echo", "v1", 3)
			}
		})
	}
	wg.Wait()
	tests := []struct {
		name      string
		got, want float64
	}{
		{"requests of op0 answered 200", counterValue(t, reg, "inferd_http_requests_total", map[string]string{"operation": "op0", "code": "200"}), goroutines / 2 * events / 5},
		{"predictions", counterValue(t, reg, "inferd_predictions_total", map[string]string{"model": "echo", "version": "v1", "mode": "sync", "outcome": "success"}), goroutines * events},
		{"items", counterValue(t, reg, "inferd_prediction_items_total", map[string]string{"model": "echo", "version": "v1", "mode": "sync"}), 2 * goroutines * events},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
			}
		})
	}
	if n := testutil.CollectAndCount(reg, "inferd_http_requests_total"); n != 10 {
		t.Errorf("inferd_http_requests_total has %d series, want 10 (5 operations, 2 codes)", n)
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue next
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return 0
}

// The events of a request allocate nothing once their label sets have been seen.
func TestRequestEventsDoNotAllocate(t *testing.T) {
	m := metrics.New(prometheus.NewRegistry())
	tests := []struct {
		name string
		f    func()
	}{
		{"HTTP", func() { m.HTTP("predict", 200, time.Millisecond) }},
		{"Predicted", func() { m.Predicted("echo", "v1", registry.ModeSync, registry.OutcomeSuccess, 1) }},
		{"Stage", func() { m.Stage("echo", "v1", pipeline.StageModel, time.Millisecond) }},
		{"Batched", func() { m.Batched("echo", "v1", 1) }},
		{"Queued", func() { m.Queued("echo", "v1", time.Millisecond) }},
		{"GRPC", func() { m.GRPC("ModelInfer", "OK", time.Millisecond) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f()
			if n := testing.AllocsPerRun(100, tt.f); n != 0 {
				t.Errorf("%s allocates %v times per event", tt.name, n)
			}
		})
	}
}
