package metrics_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/registry"
)

// A request's observations on its version (in flight, latency) allocate nothing: the
// label children are resolved once per version, not per request.
func TestVersionObservationsDoNotAllocate(t *testing.T) {
	v := metrics.New(prometheus.NewRegistry()).Version("iris", "v1")
	tests := []struct {
		name string
		f    func()
	}{
		{"request", func() { v.Begin(); v.End(time.Millisecond) }},
		{"fallback", v.RoutedAway},
		{"state", func() { v.State(registry.StatusReady) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := testing.AllocsPerRun(1000, tt.f); n != 0 {
				t.Errorf("%v allocations per call, want 0", n)
			}
		})
	}
}

// BenchmarkVersionObservation is a request's Begin and End on its version, beside the
// same two observations looked up by label values per request.
func BenchmarkVersionObservation(b *testing.B) {
	b.Run("resolved", func(b *testing.B) {
		v := metrics.New(prometheus.NewRegistry()).Version("iris", "v1")
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				v.Begin()
				v.End(time.Millisecond)
			}
		})
	})
	b.Run("by-labels", func(b *testing.B) {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "g"}, []string{"model", "version"})
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "h"}, []string{"model", "version"})
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				g.WithLabelValues("iris", "v1").Inc()
				g.WithLabelValues("iris", "v1").Dec()
				h.WithLabelValues("iris", "v1").Observe(0.001)
			}
		})
	})
}
