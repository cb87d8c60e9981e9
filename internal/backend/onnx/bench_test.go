package onnx_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/tensor"
)

// BenchmarkPredict runs an iris-sized classifier (4 features, 3 classes, a label and
// probabilities out) on one item, as a lone request does, and on a batch of 64.
func BenchmarkPredict(b *testing.B) {
	w := [][]float32{{0.4, -0.2, 0.1}, {0.3, 0.5, -0.6}, {-0.9, 0.2, 0.4}, {-0.1, -0.8, 0.7}}
	m := open(b, onnxtest.Classifier(w, []float32{0.1, 0, -0.1}), onnx.ModelOptions{})
	for _, n := range []int{1, 64} {
		batch := make([]any, n)
		for i := range batch {
			batch[i] = tensor.NewFloat(tensor.Float32, []int64{4}, []float64{5.1, 3.5, 1.4, float64(i) / 10})
		}
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime(b)
			for b.Loop() {
				if _, err := m.Predict(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
	// Lone requests on many connections at once, as the server runs them: 32
	// goroutines a CPU share the model's kept tensors.
	b.Run("items=1/concurrent", func(b *testing.B) {
		item := []any{tensor.NewFloat(tensor.Float32, []int64{4}, []float64{5.1, 3.5, 1.4, 0.2})}
		b.ReportAllocs()
		b.SetParallelism(32)
		start := cpuTime(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := m.Predict(context.Background(), item); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	})
}

// cpuTime is the process's CPU time (user and system, every thread, ONNX Runtime's
// included): on a machine other work shares, it grows with the benchmark's own work
// where wall time grows with everyone's.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
