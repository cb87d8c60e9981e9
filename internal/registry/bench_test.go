package registry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
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

// BenchmarkPredictDigits runs concurrent single-item requests (64 goroutines on 2 CPUs)
// through the example digits model (ONNX Runtime, 64-2048-2048-10) with dynamic
// batching off, on with one call at a time, and on with two (its model.yaml). ns/op is
// per request; items/call is how many requests shared an ONNX Runtime Run.
func BenchmarkPredictDigits(b *testing.B) {
	rt := onnxtest.Runtime(b)
	artifact, err := os.ReadFile(filepath.Join("..", "..", "models", "digits", "v1", "model.onnx"))
	if err != nil {
		b.Fatal(err)
	}
	const steps = "preprocess: [{to_tensor: {dtype: float32, shape: [64]}}]\npostprocess: [softmax, {top_k: {k: 3}}]\n"
	tests := []struct {
		name    string
		batches string // model.yaml's dynamic_batching
		off     bool   // DYNAMIC_BATCHING=false
	}{
		{"batching=off", "{max_queue_delay: 2ms, max_calls: 2}", true},
		{"batching=on/max_calls=1", "{max_queue_delay: 2ms}", false},
		{"batching=on/max_calls=2", "{max_queue_delay: 2ms, max_calls: 2}", false},
	}
	item := []json.RawMessage{json.RawMessage(`[0,0,5,13,9,1,0,0,0,0,13,15,10,15,5,0,0,3,15,2,0,11,8,0,0,4,12,0,0,8,8,0,0,5,8,0,0,9,8,0,0,4,11,0,1,12,7,0,0,2,14,5,10,12,0,0,0,0,6,13,10,0,0,0]`)}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "digits", "v1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			yaml := "max_batch_size: 128\ndynamic_batching: " + tt.batches + "\n" + steps
			if err := os.WriteFile(filepath.Join(dir, "model.yaml"), []byte(yaml), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "model.onnx"), artifact, 0o644); err != nil {
				b.Fatal(err)
			}
			repo := repository.New(repository.Options{Dir: filepath.Dir(filepath.Dir(dir)), Backends: backend.Catalogue{onnx.NewBackend(rt)}})
			obs := &batchObserver{}
			r := registry.New(registry.Options{Logger: quiet, Observer: obs, NoDynamicBatching: tt.off, Sources: []registry.Source{repo}})
			defer r.Close()
			if err := r.Discover(context.Background()); err != nil {
				b.Fatal(err)
			}
			r.Load(context.Background())
			b.SetParallelism(32)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					if _, err := r.Predict(ctx, registry.Request{Model: "digits", Version: "v1", Items: item}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			if calls, items := obs.totals(); calls > 0 {
				b.ReportMetric(float64(items)/float64(calls), "items/call")
			}
		})
	}
}

// totals is the calls and items the observer saw.
func (o *batchObserver) totals() (calls, items int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range o.batched {
		items += n
	}
	return len(o.batched), items
}
