package repository_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// TestTensorCallsWholeOrByRow: a tensor call of several rows answers, row for row,
// what calls of one row each answer, whichever way the version takes it: whole (no
// steps: the ONNX model's Infer; a graph of no steps: its run), or row by row (a
// step on tensors, a batcher that shares calls between requests by rows).
func TestTensorCallsWholeOrByRow(t *testing.T) {
	w := [][]float32{{1, 0, 2}, {0, 1, -1}}
	lin := string(onnxtest.Linear(-1, w, []float32{0.5, 0, 0}).Encode())
	dir := repo(t, map[string]string{
		"lin/v1/model.yaml": "backend: onnx\nartifact: model.onnx\n",
		"lin/v1/model.onnx": lin,
		"lin/v2/model.yaml": "backend: onnx\nartifact: model.onnx\ndynamic_batching:\n  max_queue_delay: 1ms\n",
		"lin/v2/model.onnx": lin,
		"lin/v3/model.yaml": "backend: onnx\nartifact: model.onnx\npostprocess:\n  - round: {decimals: 2}\n",
		"lin/v3/model.onnx": lin,
		"lin/v4/model.yaml": "backend: onnx\nartifact: model.onnx\nmax_batch_size: 2\n",
		"lin/v4/model.onnx": lin,
		"graph/v1/model.yaml": "graph:\n  inputs: [{name: x, dtype: float32, shape: [-1, 2]}]\n" +
			"  steps: [{name: a, model: lin, version: v1, inputs: {x: request.x}}]\n  outputs: {y: a.y}\n",
	})
	reg, _ := serve(t, dir)

	rows := []float64{1, 2, 0, 0, -1, 1}
	infer := func(t *testing.T, model, version string, in *tensor.Tensor) *tensor.Tensor {
		t.Helper()
		res, err := reg.Infer(context.Background(), registry.InferRequest{Model: model, Version: version, Inputs: []registry.Named{{Name: "x", Tensor: in}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Outputs) != 1 || res.Outputs[0].Name != "y" {
			t.Fatalf("outputs %v", res.Outputs)
		}
		return res.Outputs[0].Tensor
	}
	for _, c := range []struct{ model, version string }{
		{"lin", "v1"}, {"lin", "v2"}, {"lin", "v3"}, {"lin", "v4"}, {"graph", "v1"},
	} {
		t.Run(c.model+" "+c.version, func(t *testing.T) {
			got := infer(t, c.model, c.version, tensor.NewFloat(tensor.Float32, []int64{3, 2}, rows))
			if len(got.Shape) != 2 || got.Shape[0] != 3 || got.Shape[1] != 3 {
				t.Fatalf("shape %v, want [3,3]", got.Shape)
			}
			whole, _ := json.Marshal(got)
			var want []json.RawMessage
			for i := range 3 {
				one := infer(t, c.model, c.version, tensor.NewFloat(tensor.Float32, []int64{1, 2}, rows[2*i:2*i+2]))
				r, _ := json.Marshal(one.Row(0))
				want = append(want, r)
			}
			if w, _ := json.Marshal(want); string(whole) != string(w) {
				t.Fatalf("whole call %s, the rows one by one %s", whole, w)
			}
		})
	}
}
