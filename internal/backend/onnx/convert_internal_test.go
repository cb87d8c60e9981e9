package onnx

import (
	"testing"

	"github.com/inferd/inferd/internal/tensor"
	ort "github.com/yalue/onnxruntime_go"
)

// TestNewTensorFailsWithNil: a tensor that cannot be made is a nil ort.Value, so that
// destroying a partly made set of tensors skips it instead of calling a nil *Tensor.
func TestNewTensorFailsWithNil(t *testing.T) {
	for _, d := range []tensor.DType{tensor.Float32, tensor.Int64, tensor.Bool, "string"} {
		v, err := newTensor(d, ort.Shape{1, -2})
		if err == nil || v != nil {
			t.Errorf("%s: value %#v, error %v; want nil and an error", d, v, err)
		}
		(&runSet{in: v, outs: []ort.Value{v, nil}}).destroy() // must not panic
	}
}
