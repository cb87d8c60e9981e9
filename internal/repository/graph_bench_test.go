package repository_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/testkit"
)

// BenchmarkGraph is one flower through the registry (no HTTP): to iris v1, to a graph
// of one step calling iris v1 with iris v1's steps around it, and to iris-ensemble. The
// difference between the first two is what a graph adds to its member's call.
func BenchmarkGraph(b *testing.B) {
	dir := b.TempDir()
	for _, m := range []string{"iris", "iris-ensemble"} {
		testkit.CopyDir(b, filepath.Join("../../models", m), filepath.Join(dir, m))
	}
	step := filepath.Join(dir, "iris-step", "v1")
	if err := os.MkdirAll(step, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(step, "model.yaml"), []byte(`preprocess:
  - to_tensor: {features: [sepal_length, sepal_width, petal_length, petal_width], dtype: float32, shape: [4]}
graph:
  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]
  steps: [{name: v1, model: iris, version: v1, inputs: {input: request.input}}]
  outputs: {logits: v1.logits}
postprocess:
  - top_k: {k: 3, labels: [setosa, versicolor, virginica]}
  - round: {decimals: 4}
`), 0o644); err != nil {
		b.Fatal(err)
	}
	reg, _ := serve(b, dir)
	item := []json.RawMessage{json.RawMessage(`[5.1,3.5,1.4,0.2]`)}
	for _, c := range []struct{ name, model, version string }{
		{"iris v1", "iris", "v1"},
		{"one-step graph", "iris-step", "v1"},
		{"iris-ensemble", "iris-ensemble", "v1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := reg.Predict(context.Background(), registry.Request{Model: c.model, Version: c.version, Items: item}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
