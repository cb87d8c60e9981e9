package onnx_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

var _ pipeline.TensorModel = (*onnx.Model)(nil)

// TestInfer holds a whole tensor call to what Predict answers for its rows one item
// each, stacked: in one Run, in chunks (MaxBatchSize), row by row (a fixed batch of
// one), and for one row, whose Runs reuse a kept set of tensors.
func TestInfer(t *testing.T) {
	rows := func(d tensor.DType, n int, v ...float64) *tensor.Tensor {
		return tensor.NewFloat(d, []int64{int64(n), int64(len(v) / n)}, v)
	}
	tests := []struct {
		name string
		g    onnxtest.Graph
		opts onnx.ModelOptions
		in   *tensor.Tensor
	}{
		{"one row", onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{}, rows(tensor.Float32, 1, 1, 2)},
		{"rows", onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{}, rows(tensor.Float32, 3, 1, 2, 0, 0, -1, 1)},
		{"more rows than MaxBatchSize", onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{MaxBatchSize: 2}, rows(tensor.Float32, 3, 1, 2, 0, 0, -1, 1)},
		{"fixed batch of one", onnxtest.Linear(1, weights, bias), onnx.ModelOptions{}, rows(tensor.Float32, 2, 1, 2, -1, 1)},
		{"classifier outputs", onnxtest.Classifier([][]float32{{1, 0}, {0, 1}}, []float32{0, 0}), onnx.ModelOptions{}, rows(tensor.Float32, 2, 0, 0, 0, 2)},
		{"float64", onnxtest.Identity(onnxtest.Double, []int64{-1, 2}), onnx.ModelOptions{}, rows(tensor.Float64, 2, 0.1, 1e308, 3, 4)},
		{"int64", onnxtest.Identity(onnxtest.Int64, []int64{-1, 2}), onnx.ModelOptions{}, tensor.NewInt(tensor.Int64, []int64{2, 2}, []int64{9007199254740993, -1, 3, 4})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := open(t, tt.g, tt.opts)
			items := make([]any, tt.in.Shape[0])
			for i, r := range tt.in.Rows() {
				items[i] = r
			}
			res, err := m.Predict(context.Background(), items)
			if err != nil {
				t.Fatal(err)
			}
			// Twice: a one-row call's second Run is in the kept set the first left.
			for range 2 {
				got, err := m.Infer(context.Background(), tt.in)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(m.Outputs()) {
					t.Fatalf("%d outputs, want %d", len(got), len(m.Outputs()))
				}
				for k, o := range m.Outputs() {
					parts := make([]*tensor.Tensor, len(res))
					for i, r := range res {
						parts[i] = r.(tensor.Map)[o.Name]
					}
					want, err := tensor.Stack(parts)
					if err != nil {
						t.Fatal(err)
					}
					if got[k].Name != o.Name || jsonOf(t, got[k].Tensor) != jsonOf(t, want) || !slices.Equal(got[k].Tensor.Shape, want.Shape) {
						t.Errorf("output %d: %s %v %s, want %s %v %s", k, got[k].Name, got[k].Tensor.Shape, jsonOf(t, got[k].Tensor), o.Name, want.Shape, jsonOf(t, want))
					}
					if y := got[k].Tensor; y.DType == tensor.Float32 && y.F32 == nil {
						t.Errorf("FP32 output %q held as float64s", o.Name)
					}
				}
			}
		})
	}
}

func TestInferErrors(t *testing.T) {
	m := open(t, onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{})
	tests := []struct {
		name    string
		in      *tensor.Tensor
		wantErr string
	}{
		{"wrong dtype", tensor.NewFloat(tensor.Float64, []int64{1, 2}, []float64{1, 2}), `the input is float64 [1,2]; input "x" takes float32 [-1,2]`},
		{"wrong shape", tensor.NewFloat(tensor.Float32, []int64{1, 3}, []float64{1, 2, 3}), `the input is float32 [1,3]; input "x" takes float32 [-1,2]`},
		{"no rows", tensor.NewFloat(tensor.Float32, []int64{0, 2}, nil), `the input is float32 [0,2]; input "x" takes float32 [-1,2]`},
		{"inconsistent", tensor.NewFloat(tensor.Float32, []int64{1, 2}, []float64{1}), "the input: tensor of shape [1,2] holds 1 values, not 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Infer(context.Background(), tt.in)
			if !errors.Is(err, pipeline.ErrExecution) || !strings.HasSuffix(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want an execution error ending in %q", err, tt.wantErr)
			}
		})
	}
}

func jsonOf(t *testing.T, v *tensor.Tensor) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
