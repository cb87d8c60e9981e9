package tensor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Tensor is one item's values in row-major order. Shape excludes the batch dimension;
// an empty Shape is a scalar.
type Tensor struct {
	DType DType
	Shape []int64
	// Float holds the values of a float dtype. float32 values are widened exactly, so
	// converting back loses nothing.
	Float []float64
	// F32 holds a Float32 tensor's values as float32s instead of Float, when they came
	// so (binary data, JSON read as FP32, gRPC contents, a model's outputs) and go on
	// so: a large tensor then costs half the memory and no widening on the way in and
	// out. Floats widens them for what computes in float64. A Float32 tensor holds
	// one of the two, never both.
	F32 []float32
	// Int holds the values of an integer or bool dtype.
	Int []int64
	// Bytes holds the elements of a Bytes tensor, each a byte string.
	Bytes [][]byte
}

// NewFloat returns a float tensor; it does not copy values.
func NewFloat(d DType, shape []int64, values []float64) *Tensor {
	return &Tensor{DType: d, Shape: shape, Float: values}
}

// NewInt returns an integer tensor; it does not copy values.
func NewInt(d DType, shape []int64, values []int64) *Tensor {
	return &Tensor{DType: d, Shape: shape, Int: values}
}

// NewFloat32 returns a Float32 tensor holding float32s; it does not copy values.
func NewFloat32(shape []int64, values []float32) *Tensor {
	return &Tensor{DType: Float32, Shape: shape, F32: values}
}

// Len is the number of elements.
func (t *Tensor) Len() int {
	if t.DType == Bytes {
		return len(t.Bytes)
	}
	if t.F32 != nil {
		return len(t.F32)
	}
	if t.DType.IsFloat() {
		return len(t.Float)
	}
	return len(t.Int)
}

// At returns element i as a float64 whatever the dtype.
func (t *Tensor) At(i int) float64 {
	if t.F32 != nil {
		return float64(t.F32[i])
	}
	if t.DType.IsFloat() {
		return t.Float[i]
	}
	return float64(t.Int[i])
}

// Floats is a float tensor's values as float64s: Float, or F32 widened into a new
// slice.
func (t *Tensor) Floats() []float64 {
	if t.F32 == nil {
		return t.Float
	}
	out := make([]float64, len(t.F32))
	for i, v := range t.F32 {
		out[i] = float64(v)
	}
	return out
}

// Check reports a tensor whose value count does not match its shape, which would
// make indexing panic later.
func (t *Tensor) Check() error {
	if n := Size(t.Shape); int64(t.Len()) != n {
		return fmt.Errorf("tensor of shape %s holds %d values, not %d", FormatShape(t.Shape), t.Len(), n)
	}
	if t.DType.IsFloat() && (t.Int != nil || t.Bytes != nil) || t.DType == Bytes && (t.Int != nil || t.Float != nil) ||
		!t.DType.IsFloat() && t.DType != Bytes && (t.Float != nil || t.Bytes != nil) {
		return fmt.Errorf("%s tensor holds values of the other family", t.DType)
	}
	if t.F32 != nil && (t.DType != Float32 || t.Float != nil) {
		return fmt.Errorf("%s tensor holds float32 values beside others", t.DType)
	}
	return nil
}

// Size is the number of elements of a shape; a negative dimension counts as 0.
func Size(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= max(d, 0)
	}
	return n
}

// Static reports whether every dimension of shape is known.
func Static(shape []int64) bool {
	return !slices.ContainsFunc(shape, func(d int64) bool { return d < 0 })
}

// Compatible reports whether a tensor of shape got fits a declaration want, in which
// -1 matches any size.
func Compatible(want, got []int64) bool {
	if len(want) != len(got) {
		return false
	}
	for i, d := range want {
		if d >= 0 && got[i] >= 0 && d != got[i] {
			return false
		}
	}
	return true
}

// FormatShape writes a shape as [4] or [-1,3]; -1 is a dimension of any size.
func FormatShape(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Map is one item's model outputs by output name.
type Map map[string]*Tensor
