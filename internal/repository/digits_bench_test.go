package repository_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/repository"
)

// BenchmarkDigits runs the digits example through its whole pipeline, one item per
// call and batches, to show what a batch saves per item on a compute-bound model.
func BenchmarkDigits(b *testing.B) {
	src := repository.New(repository.Options{Dir: "../../models", Backends: backends(onnxtest.Runtime(b))})
	spec, err := src.Model(context.Background(), "digits")
	if err != nil {
		b.Fatal(err)
	}
	p, err := spec.Versions[0].Loader.Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	item := readExamples(b)["digits"]["v1"].Items[0]
	for _, n := range []int{1, 8, 64} {
		items := make([]json.RawMessage, n)
		for i := range items {
			items[i] = item
		}
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Run(context.Background(), items, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}
