package tensor

import (
	"fmt"
	"math"
)

// DType is an element type, spelled as numpy spells it.
type DType string

// The element types a tensor can hold. Floats are kept in Tensor.Float and every
// integer type and bool in Tensor.Int, so steps need one code path per family;
// float32s that come as such may stay in Tensor.F32 (see Tensor.Floats).
const (
	Float32 DType = "float32"
	Float64 DType = "float64"
	Int8    DType = "int8"
	Int16   DType = "int16"
	Int32   DType = "int32"
	Int64   DType = "int64"
	Uint8   DType = "uint8"
	Uint16  DType = "uint16"
	Uint32  DType = "uint32"
	Uint64  DType = "uint64"
	Bool    DType = "bool"
	// Float16 and Bytes reach only models that take any tensor (echo), through the
	// Open Inference Protocol: no step produces them and no ONNX input takes them.
	Float16 DType = "float16"
	Bytes   DType = "bytes"
)

// MaxFloat16 is the largest finite IEEE 754 half-precision value.
const MaxFloat16 = 65504

// InputDTypes are the dtypes that to_tensor and cast produce: the ones ML exporters
// use for model inputs.
var InputDTypes = []DType{Float32, Float64, Int32, Int64}

// ParseDType returns the DType named s.
func ParseDType(s string) (DType, error) {
	switch d := DType(s); d {
	case Float32, Float64, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Bool:
		return d, nil
	}
	return "", fmt.Errorf("unknown dtype %q", s)
}

// IsFloat reports whether d is held in Tensor.Float.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 || d == Float16 }

// Bits is the width of a float dtype, for formatting numbers with the precision the
// model computed them in; 64 for everything else.
func (d DType) Bits() int {
	if d == Float32 || d == Float16 {
		return 32
	}
	return 64
}

// InRange reports whether v can be stored in dtype d without overflow. Whether v is
// whole is the caller's concern.
func (d DType) InRange(v float64) bool {
	switch d {
	case Int8:
		return v >= -1<<7 && v <= 1<<7-1
	case Int16:
		return v >= -1<<15 && v <= 1<<15-1
	case Int32:
		return v >= -1<<31 && v <= 1<<31-1
	case Int64:
		return v >= -1<<63 && v < 1<<63 // 1<<63-1 has no float64 spelling
	case Uint8:
		return v >= 0 && v <= 1<<8-1
	case Uint16:
		return v >= 0 && v <= 1<<16-1
	case Uint32:
		return v >= 0 && v <= 1<<32-1
	case Uint64:
		return v >= 0 && v < 1<<64
	case Bool:
		return v == 0 || v == 1
	case Float32:
		return math.Abs(v) <= math.MaxFloat32
	case Float16:
		return math.Abs(v) <= MaxFloat16
	}
	return !math.IsInf(v, 0) && !math.IsNaN(v)
}
