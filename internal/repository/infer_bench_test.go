package repository_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
	"github.com/inferd/inferd/internal/testkit"
)

// BenchmarkInfer is a tensor call (what /v2 infer and gRPC ModelInfer make) of 1 and
// 64 rows through the registry (no HTTP) to digits-cnn, a model served with no steps,
// whose calls go to ONNX Runtime whole, and to iris v1, whose steps take the rows one
// by one.
func BenchmarkInfer(b *testing.B) {
	dir := b.TempDir()
	for _, m := range []string{"iris", "digits-cnn"} {
		testkit.CopyDir(b, filepath.Join("../../models", m), filepath.Join(dir, m))
	}
	reg, _ := serve(b, dir)
	for _, c := range []struct {
		model, input string
		item         []int64
	}{
		{"digits-cnn", "image", []int64{1, 8, 8}},
		{"iris", "input", []int64{4}},
	} {
		for _, rows := range []int64{1, 64} {
			size := rows * tensor.Size(c.item)
			values := make([]float64, size)
			for i := range values {
				values[i] = float64(i % 7)
			}
			in := tensor.NewFloat(tensor.Float32, append([]int64{rows}, c.item...), values)
			req := registry.InferRequest{Model: c.model, Version: "v1", Inputs: []registry.Named{{Name: c.input, Tensor: in}}}
			b.Run(fmt.Sprintf("%s/rows=%d", c.model, rows), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := reg.Infer(context.Background(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
