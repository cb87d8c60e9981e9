package tensor

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// ErrNotFinite is returned when a value to encode is NaN or infinite: JSON has no
// spelling for it, and a client should not get a silently changed number.
var ErrNotFinite = errors.New("value is not a finite number")

// MarshalJSON writes the tensor as nested arrays following its shape: a scalar for
// shape [], an array for [n], an array of arrays for [n,m]. Floats keep the precision
// of their dtype, so a float32 0.1 is written 0.1 and not 0.10000000149011612.
func (t *Tensor) MarshalJSON() ([]byte, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, 16*t.Len()+8)
	i := 0
	var err error
	buf = nest(buf, t.Shape, func(b []byte) []byte {
		switch {
		case t.F32 != nil:
			b, err = AppendFloat(b, float64(t.F32[i]), 32, err)
		case t.DType.IsFloat():
			b, err = AppendFloat(b, t.Float[i], t.DType.Bits(), err)
		case t.DType == Bool:
			b = strconv.AppendBool(b, t.Int[i] != 0)
		case t.DType == Bytes:
			q, _ := json.Marshal(string(t.Bytes[i])) // a string always encodes
			b = append(b, q...)
		default:
			b = strconv.AppendInt(b, t.Int[i], 10)
		}
		i++
		return b
	})
	return buf, err
}

// nest writes shape-nested arrays, calling leaf for each element in row-major order.
func nest(b []byte, shape []int64, leaf func([]byte) []byte) []byte {
	if len(shape) == 0 {
		return leaf(b)
	}
	b = append(b, '[')
	for j := int64(0); j < shape[0]; j++ {
		if j > 0 {
			b = append(b, ',')
		}
		b = nest(b, shape[1:], leaf)
	}
	return append(b, ']')
}

// Nest writes n values (n = Size(shape)) as arrays nested by shape, with leaf
// appending element i. Steps whose results are not numbers (labels) use it to keep
// the same shape rules as tensors.
func Nest(b []byte, shape []int64, leaf func(b []byte, i int) []byte) []byte {
	i := 0
	return nest(b, shape, func(b []byte) []byte {
		b = leaf(b, i)
		i++
		return b
	})
}

// AppendFloat appends f as a JSON number with the shortest spelling that reads back
// as the same float of the given bit size, as encoding/json does. It passes on a
// non-nil err and returns ErrNotFinite for NaN and infinities.
func AppendFloat(b []byte, f float64, bits int, err error) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if err == nil {
			err = ErrNotFinite
		}
		return append(b, '0'), err
	}
	if bits == 32 {
		// A float64 past float32's range is not one of a float32 tensor's values, and
		// is left to strconv, which spells it +Inf or -Inf.
		if f32 := float32(f); !math.IsInf(float64(f32), 0) {
			return AppendFloat32(b, f32), err
		}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, err
}
