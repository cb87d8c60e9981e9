package registry_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// costModel returns its items after spinning for a fixed time per call, as a runtime
// with a per-call overhead does (ONNX Runtime's Run, a kernel launch), and counts its
// calls and items.
type costModel struct {
	perCall      time.Duration
	calls, items atomic.Int64
}

func (m *costModel) Predict(_ context.Context, batch []any) ([]any, error) {
	m.calls.Add(1)
	m.items.Add(int64(len(batch)))
	for start := time.Now(); time.Since(start) < m.perCall; {
	}
	return batch, nil
}

func (m *costModel) Close() error { return nil }

// BenchmarkPredictConcurrent runs concurrent single-item requests (b.RunParallel, 16
// goroutines per CPU) through the registry with dynamic batching off and on. items/call
// is how many requests shared a model call; allocs/op is per request.
func BenchmarkPredictConcurrent(b *testing.B) {
	models := []struct {
		name    string
		perCall time.Duration
	}{
		{"echo", 0},
		{"cost=50us", 50 * time.Microsecond},
	}
	for _, mm := range models {
		for _, batching := range []bool{false, true} {
			name := mm.name + "/batching=off"
			if batching {
				name = mm.name + "/batching=on"
			}
			b.Run(name, func(b *testing.B) {
				m := &costModel{perCall: mm.perCall}
				loader := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
					return &pipeline.Pipeline{Model: m, Batching: pipeline.Batching{Enabled: batching, MaxSize: 64, MaxQueueDelay: 100 * time.Microsecond}}, nil
				})
				r := registry.New(registry.Options{Logger: quiet, Sources: []registry.Source{registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: loader}}}}}})
				defer r.Close()
				if err := r.Discover(context.Background()); err != nil {
					b.Fatal(err)
				}
				r.Load(context.Background())
				item := []json.RawMessage{json.RawMessage(`[5.1,3.5,1.4,0.2]`)}
				b.SetParallelism(16)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					ctx := context.Background()
					for pb.Next() {
						if _, err := r.Predict(ctx, registry.Request{Model: "m", Version: "v1", Items: item}); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.StopTimer()
				if calls := m.calls.Load(); calls > 0 {
					b.ReportMetric(float64(m.items.Load())/float64(calls), "items/call")
				}
			})
		}
	}
}
