package xgboost_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/tensor"
)

// BenchmarkPredict evaluates models/wine/v1 (30 rounds of 3 classes, depth 3) on 1
// and on 1,024 rows of one call, as the batch a 1,024-row /v2 request makes; compare
// with XGBoost's own predict on the same model: tools/bench-xgboost.py.
func BenchmarkPredict(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "models", "wine", "v1", "model.json"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := xgboost.Open("wine/v1/model.json", data)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 1024} {
		batch := wineLike(n)
		b.Run(strconv.Itoa(n)+" rows", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Predict(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		})
	}
}

// wineLike is n rows of values in the wine data's ranges, the same on every run.
func wineLike(n int) []any {
	lo := []float32{11, 0.7, 1.3, 10, 70, 0.9, 0.3, 0.1, 0.4, 1.2, 0.4, 1.2, 270}
	hi := []float32{15, 5.8, 3.3, 30, 162, 3.9, 5.1, 0.7, 3.6, 13, 1.8, 4, 1680}
	r := rand.New(rand.NewPCG(1, 2))
	batch := make([]any, n)
	for i := range batch {
		v := make([]float32, len(lo))
		for j := range v {
			v[j] = lo[j] + (hi[j]-lo[j])*r.Float32()
		}
		batch[i] = tensor.NewFloat32([]int64{int64(len(v))}, v)
	}
	return batch
}
