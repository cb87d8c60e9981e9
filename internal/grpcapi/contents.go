package grpcapi

import (
	"fmt"
	"math"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/tensor"
)

// The typed contents: each datatype has one field of InferTensorContents (FP16 none),
// whose elements are copied into the registry's tensors and back.

// contentsField names the field of a datatype, for messages.
func contentsField(d tensor.DType) string {
	switch d {
	case tensor.Bool:
		return "bool_contents"
	case tensor.Int8, tensor.Int16, tensor.Int32:
		return "int_contents"
	case tensor.Int64:
		return "int64_contents"
	case tensor.Uint8, tensor.Uint16, tensor.Uint32:
		return "uint_contents"
	case tensor.Uint64:
		return "uint64_contents"
	case tensor.Float32:
		return "fp32_contents"
	case tensor.Float64:
		return "fp64_contents"
	case tensor.Bytes:
		return "bytes_contents"
	}
	return ""
}

// filled lists the fields of c that hold elements, with their counts.
func filled(c *pb.InferTensorContents) map[string]int {
	n := map[string]int{
		"bool_contents": len(c.BoolContents), "int_contents": len(c.IntContents), "int64_contents": len(c.Int64Contents),
		"uint_contents": len(c.UintContents), "uint64_contents": len(c.Uint64Contents), "fp32_contents": len(c.Fp32Contents),
		"fp64_contents": len(c.Fp64Contents), "bytes_contents": len(c.BytesContents),
	}
	for k, v := range n {
		if v == 0 {
			delete(n, k)
		}
	}
	return n
}

// fromContents reads a tensor from the field of its datatype: every element there,
// none in another field.
func fromContents(where string, d tensor.DType, datatype string, shape []int64, size int64, c *pb.InferTensorContents) (*tensor.Tensor, error) {
	field := contentsField(d)
	if field == "" {
		return nil, oip.Invalid(fmt.Sprintf("%s: %s has no contents field; send it in raw_input_contents", where, datatype))
	}
	got := filled(c)
	for _, other := range sortedKeys(got) {
		if other != field {
			return nil, oip.Invalid(fmt.Sprintf("%s is %s, whose elements go in contents.%s, but contents.%s holds %d", where, datatype, field, other, got[other]))
		}
	}
	if n := int64(got[field]); n != size {
		return nil, oip.Invalid(fmt.Sprintf("%s: contents.%s holds %d elements; shape %s takes %d", where, field, n, tensor.FormatShape(shape), size))
	}
	t := &tensor.Tensor{DType: d, Shape: shape}
	switch d {
	case tensor.Float32:
		t.F32 = c.Fp32Contents
	case tensor.Float64:
		t.Float = c.Fp64Contents
	case tensor.Int64:
		t.Int = c.Int64Contents
	case tensor.Uint64:
		t.Int = make([]int64, size)
		for i, v := range c.Uint64Contents {
			t.Int[i] = int64(v) // the bits, as the binary data extension keeps them
		}
	case tensor.Bool:
		t.Int = make([]int64, size)
		for i, v := range c.BoolContents {
			if v {
				t.Int[i] = 1
			}
		}
	case tensor.Bytes:
		t.Bytes = c.BytesContents
	case tensor.Int8, tensor.Int16, tensor.Int32:
		t.Int = make([]int64, size)
		for i, v := range c.IntContents {
			if !d.InRange(float64(v)) {
				return nil, oip.Invalid(fmt.Sprintf("%s: contents.int_contents[%d] is %d, beyond what %s holds", where, i, v, datatype))
			}
			t.Int[i] = int64(v)
		}
	default: // UINT8, UINT16, UINT32
		t.Int = make([]int64, size)
		for i, v := range c.UintContents {
			if !d.InRange(float64(v)) {
				return nil, oip.Invalid(fmt.Sprintf("%s: contents.uint_contents[%d] is %d, beyond what %s holds", where, i, v, datatype))
			}
			t.Int[i] = int64(v)
		}
	}
	return t, nil
}

// toContents writes a tensor's elements to the field of its datatype; FP16 has none
// (the caller answers raw then).
func toContents(t *tensor.Tensor) *pb.InferTensorContents {
	c := &pb.InferTensorContents{}
	switch t.DType {
	case tensor.Float32:
		if t.F32 != nil {
			c.Fp32Contents = t.F32
			break
		}
		c.Fp32Contents = make([]float32, len(t.Float))
		for i, v := range t.Float {
			c.Fp32Contents[i] = float32(v)
		}
	case tensor.Float64:
		c.Fp64Contents = t.Float
	case tensor.Int64:
		c.Int64Contents = t.Int
	case tensor.Uint64:
		c.Uint64Contents = make([]uint64, len(t.Int))
		for i, v := range t.Int {
			c.Uint64Contents[i] = uint64(v)
		}
	case tensor.Bool:
		c.BoolContents = make([]bool, len(t.Int))
		for i, v := range t.Int {
			c.BoolContents[i] = v != 0
		}
	case tensor.Bytes:
		c.BytesContents = t.Bytes
	case tensor.Int8, tensor.Int16, tensor.Int32:
		c.IntContents = make([]int32, len(t.Int))
		for i, v := range t.Int {
			c.IntContents[i] = int32(v)
		}
	case tensor.Uint8, tensor.Uint16, tensor.Uint32:
		c.UintContents = make([]uint32, len(t.Int))
		for i, v := range t.Int {
			c.UintContents[i] = uint32(min(v, math.MaxUint32))
		}
	}
	return c
}
