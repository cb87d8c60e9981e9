package onnx

import (
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/tensor"
	ort "github.com/yalue/onnxruntime_go"
)

// dtypeOf names an ONNX element type as the tensor package does; ok is false for the
// types inferd cannot carry (strings, float16 and the like).
func dtypeOf(t ort.TensorElementDataType) (tensor.DType, bool) {
	switch t {
	case ort.TensorElementDataTypeFloat:
		return tensor.Float32, true
	case ort.TensorElementDataTypeDouble:
		return tensor.Float64, true
	case ort.TensorElementDataTypeInt8:
		return tensor.Int8, true
	case ort.TensorElementDataTypeInt16:
		return tensor.Int16, true
	case ort.TensorElementDataTypeInt32:
		return tensor.Int32, true
	case ort.TensorElementDataTypeInt64:
		return tensor.Int64, true
	case ort.TensorElementDataTypeUint8:
		return tensor.Uint8, true
	case ort.TensorElementDataTypeUint16:
		return tensor.Uint16, true
	case ort.TensorElementDataTypeUint32:
		return tensor.Uint32, true
	case ort.TensorElementDataTypeUint64:
		return tensor.Uint64, true
	case ort.TensorElementDataTypeBool:
		return tensor.Bool, true
	}
	return "", false
}

// elemName names an ONNX element type for error messages.
func elemName(t ort.TensorElementDataType) string {
	if d, ok := dtypeOf(t); ok {
		return string(d)
	}
	switch t {
	case ort.TensorElementDataTypeString:
		return "string"
	case ort.TensorElementDataTypeFloat16:
		return "float16"
	case ort.TensorElementDataTypeBFloat16:
		return "bfloat16"
	}
	return fmt.Sprintf("element type %d", int(t))
}

// stack builds one input tensor of the given shape from the values of items, one
// after the other: rows of equal shape, or a call's tensor whole.
func stack(d tensor.DType, shape ort.Shape, items []*tensor.Tensor) (ort.Value, error) {
	in, err := newTensor(d, shape)
	if err != nil {
		return nil, err
	}
	if err := load(in, items); err != nil {
		in.Destroy()
		return nil, err
	}
	return in, nil
}

// load writes items, one after the other, into in, a tensor of their stacked shape.
func load(in ort.Value, items []*tensor.Tensor) error {
	switch t := in.(type) {
	case *ort.Tensor[float32]:
		return put(t.GetData(), items, func(t *tensor.Tensor, i int) float32 {
			if t.F32 != nil {
				return t.F32[i]
			}
			return float32(t.Float[i])
		})
	case *ort.Tensor[float64]:
		return put(t.GetData(), items, func(t *tensor.Tensor, i int) float64 { return t.Float[i] })
	case *ort.Tensor[int32]:
		return put(t.GetData(), items, func(t *tensor.Tensor, i int) int32 { return int32(t.Int[i]) })
	case *ort.Tensor[int64]:
		return put(t.GetData(), items, func(t *tensor.Tensor, i int) int64 { return t.Int[i] })
	}
	return fmt.Errorf("inferd cannot feed %T inputs", in)
}

func put[T ort.TensorData](data []T, items []*tensor.Tensor, at func(*tensor.Tensor, int) T) error {
	k := 0
	for _, t := range items {
		if k+t.Len() > len(data) {
			return fmt.Errorf("the items hold more than the %d values of the input", len(data))
		}
		for i := range t.Len() {
			data[k] = at(t, i)
			k++
		}
	}
	if k != len(data) {
		return fmt.Errorf("the items hold %d values, not the %d of the input", k, len(data))
	}
	return nil
}

// newTensor allocates a tensor of type d and the given shape.
func newTensor(d tensor.DType, shape ort.Shape) (ort.Value, error) {
	switch d {
	case tensor.Float32:
		return emptyOf[float32](shape)
	case tensor.Float64:
		return emptyOf[float64](shape)
	case tensor.Int8:
		return emptyOf[int8](shape)
	case tensor.Int16:
		return emptyOf[int16](shape)
	case tensor.Int32:
		return emptyOf[int32](shape)
	case tensor.Int64:
		return emptyOf[int64](shape)
	case tensor.Uint8:
		return emptyOf[uint8](shape)
	case tensor.Uint16:
		return emptyOf[uint16](shape)
	case tensor.Uint32:
		return emptyOf[uint32](shape)
	case tensor.Uint64:
		return emptyOf[uint64](shape)
	case tensor.Bool:
		return emptyOf[bool](shape)
	}
	return nil, fmt.Errorf("inferd cannot hold %s tensors", d)
}

// emptyOf is ort.NewEmptyTensor as an ort.Value that is nil, not a nil *Tensor, on
// failure, so that a caller's nil checks hold.
func emptyOf[T ort.TensorData](shape ort.Shape) (ort.Value, error) {
	t, err := ort.NewEmptyTensor[T](shape)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// split cuts an output of shape [len(parts), item...] into an item tensor per part;
// shape is v's, which the items' shapes share.
func split(v ort.Value, shape ort.Shape, parts []*tensor.Tensor) error {
	n := len(parts)
	if len(shape) == 0 || shape[0] != int64(n) {
		return fmt.Errorf("output of shape %v has no batch dimension of %d", []int64(shape), n)
	}
	// Capped, so that appending to an item's shape copies it: a kept set's shape is
	// every one of its Runs'.
	return cutValue(v, []int64(shape[1:len(shape):len(shape)]), parts)
}

// whole is an output of the given shape as one tensor, batch dimension and all.
func whole(v ort.Value, shape ort.Shape) (*tensor.Tensor, error) {
	var one [1]*tensor.Tensor
	// A copy of the shape: a kept set's is every one of its Runs'.
	if err := cutValue(v, slices.Clone([]int64(shape)), one[:]); err != nil {
		return nil, err
	}
	return one[0], nil
}

// cutValue cuts v into parts of shape item each.
func cutValue(v ort.Value, item []int64, parts []*tensor.Tensor) error {
	switch t := v.(type) {
	case *ort.Tensor[float32]:
		return cut(t.GetData(), parts, item, tensor.Float32)
	case *ort.Tensor[float64]:
		return cut(t.GetData(), parts, item, tensor.Float64)
	case *ort.Tensor[int8]:
		return cut(t.GetData(), parts, item, tensor.Int8)
	case *ort.Tensor[int16]:
		return cut(t.GetData(), parts, item, tensor.Int16)
	case *ort.Tensor[int32]:
		return cut(t.GetData(), parts, item, tensor.Int32)
	case *ort.Tensor[int64]:
		return cut(t.GetData(), parts, item, tensor.Int64)
	case *ort.Tensor[uint8]:
		return cut(t.GetData(), parts, item, tensor.Uint8)
	case *ort.Tensor[uint16]:
		return cut(t.GetData(), parts, item, tensor.Uint16)
	case *ort.Tensor[uint32]:
		return cut(t.GetData(), parts, item, tensor.Uint32)
	case *ort.Tensor[uint64]:
		// Values past 2^63 wrap; no exporter emits uint64 scores or labels that large.
		return cut(t.GetData(), parts, item, tensor.Uint64)
	case *ort.Tensor[bool]:
		data := t.GetData()
		ints := make([]int64, len(data))
		for i, b := range data {
			if b {
				ints[i] = 1
			}
		}
		return cut(ints, parts, item, tensor.Bool)
	}
	return fmt.Errorf("output of type %T is not supported", v)
}

type number interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// cut splits data, a model's output, into the parts of its rows, each a tensor of d and
// shape item holding its values as d's family holds them.
func cut[T number](data []T, parts []*tensor.Tensor, item []int64, d tensor.DType) error {
	n, size := len(parts), int(tensor.Size(item))
	if len(data) != n*size {
		return fmt.Errorf("output holds %d values, not %d", len(data), n*size)
	}
	for i := range parts {
		part := data[i*size : (i+1)*size]
		t := &tensor.Tensor{DType: d, Shape: item}
		switch {
		case d == tensor.Float32:
			// Kept as float32s: an FP32 answer goes out as it came, unwidened.
			t.F32 = make([]float32, size)
			for j, x := range part {
				t.F32[j] = float32(x)
			}
		case d.IsFloat():
			t.Float = make([]float64, size)
			for j, x := range part {
				t.Float[j] = float64(x)
			}
		default:
			t.Int = make([]int64, size)
			for j, x := range part {
				t.Int[j] = int64(x)
			}
		}
		parts[i] = t
	}
	return nil
}
