package metrics

import (
	"bytes"
	"math"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// A histogramVec exposes what prometheus.HistogramVec does for the same
// observations, made concurrently: the buckets (a value on a bound counts in that
// bound's bucket), _sum and _count, per label set.
func TestHistogramVecExposition(t *testing.T) {
	buckets := []float64{.001, .01, .1, 1}
	values := []float64{0, -1, .0005, .001, .0010001, .01, .05, .1, 1, 1.5, 1e9, math.Inf(1)}
	tests := []struct {
		name    string
		buckets []float64
	}{
		{"buckets", buckets},
		{"buckets ending in +Inf", append(append([]float64(nil), buckets...), math.Inf(1))},
		{"one bucket", []float64{.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stock := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "h_seconds", Help: "A histogram.", Buckets: tt.buckets}, []string{"model", "stage"})
			sharded := newHistogramVec("h_seconds", "A histogram.", tt.buckets, "model", "stage")
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for range 250 {
						for i, v := range values {
							lvs := []string{"iris", []string{"model", "preprocess"}[(g+i)%2]}
							stock.WithLabelValues(lvs...).Observe(v)
							sharded.WithLabelValues(lvs...).Observe(v)
						}
					}
				})
			}
			wg.Wait()
			want, got := exposition(t, stock), exposition(t, sharded)
			if got != want {
				t.Errorf("exposition:\n%s\nwant (prometheus.HistogramVec's):\n%s", got, want)
			}
		})
	}
}

func exposition(t *testing.T, c prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// BenchmarkHistogram observes from every core at once, as requests in flight do:
// stock is a prometheus.HistogramVec child, sharded a histogramVec's. Run with -cpu
// 1,2 to see what sharing the stock child's words between cores costs.
func BenchmarkHistogram(b *testing.B) {
	buckets := []float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5}
	for _, bc := range []struct {
		name string
		o    prometheus.Observer
	}{
		{"stock", prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "h", Buckets: buckets}, []string{"stage"}).WithLabelValues("model")},
		{"sharded", newHistogramVec("h", "", buckets, "stage").WithLabelValues("model")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bc.o.Observe(0.0003)
				}
			})
		})
	}
}
