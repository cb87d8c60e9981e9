package oip

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/inferd/inferd/internal/tensor"
)

// decodeBinary reads a tensor's raw little-endian bytes into t.
func decodeBinary(where string, t *tensor.Tensor, size int64, b []byte) error {
	name := Datatype(t.DType)
	if t.DType == tensor.Bytes {
		return decodeBytes(where, t, size, b)
	}
	w := int64(elemSize(t.DType))
	if size > int64(len(b))/w || size*w != int64(len(b)) {
		return fail("%s: binary_data_size is %d bytes; shape %s of %s takes %d-byte elements, so %d values need %s bytes", where, len(b), tensor.FormatShape(t.Shape), name, w, size, mulString(size, w))
	}
	n := int(size)
	switch {
	case t.DType == tensor.Float32:
		t.F32 = make([]float32, n)
		for i := range t.F32 {
			t.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case t.DType.IsFloat():
		t.Float = make([]float64, n)
		for i := range t.Float {
			var v float64
			switch t.DType {
			case tensor.Float16:
				v = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
			default:
				v = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
			t.Float[i] = v
		}
	default:
		t.Int = make([]int64, n)
		for i := range t.Int {
			var v int64
			switch t.DType {
			case tensor.Bool:
				if b[i] > 1 {
					return fail("%s: element %d is the byte %d; BOOL elements are 0 or 1", where, i, b[i])
				}
				v = int64(b[i])
			case tensor.Uint8:
				v = int64(b[i])
			case tensor.Int8:
				v = int64(int8(b[i]))
			case tensor.Uint16:
				v = int64(binary.LittleEndian.Uint16(b[2*i:]))
			case tensor.Int16:
				v = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
			case tensor.Uint32:
				v = int64(binary.LittleEndian.Uint32(b[4*i:]))
			case tensor.Int32:
				v = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
			default: // INT64, UINT64 (its bits)
				v = int64(binary.LittleEndian.Uint64(b[8*i:]))
			}
			t.Int[i] = v
		}
	}
	return nil
}

// decodeBytes reads BYTES elements: each a 4-byte little-endian length, then the bytes.
func decodeBytes(where string, t *tensor.Tensor, size int64, b []byte) error {
	if size > int64(len(b))/4 {
		return fail("%s: binary_data_size is %d bytes, too few for the %d elements of shape %s (each takes at least its 4-byte length)", where, len(b), size, tensor.FormatShape(t.Shape))
	}
	t.Bytes = make([][]byte, 0, size)
	for i := int64(0); i < size; i++ {
		if len(b) < 4 {
			return fail("%s: the binary data ends before BYTES element %d's 4-byte length", where, i)
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(n) > uint64(len(b)) {
			return fail("%s: BYTES element %d is %d bytes long, but only %d bytes are left", where, i, n, len(b))
		}
		t.Bytes = append(t.Bytes, b[:n:n])
		b = b[n:]
	}
	if len(b) > 0 {
		return fail("%s: %d bytes are left after the %d BYTES elements of shape %s; binary_data_size must cover them exactly", where, len(b), size, tensor.FormatShape(t.Shape))
	}
	return nil
}

// appendFloat32s appends vs as little-endian float32s, from either of the ways a
// Float32 tensor holds them.
func appendFloat32s[T float32 | float64](b []byte, vs []T) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
	}
	return b
}

func mulString(a, b int64) string {
	if a > math.MaxInt64/b {
		return "more"
	}
	return fmt.Sprint(a * b)
}

// appendBinary appends t's elements as raw little-endian bytes.
func appendBinary(b []byte, t *tensor.Tensor) []byte {
	switch t.DType {
	case tensor.Bytes:
		for _, e := range t.Bytes {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(e)))
			b = append(b, e...)
		}
	case tensor.Float16:
		for _, v := range t.Float {
			b = binary.LittleEndian.AppendUint16(b, floatToHalf(v))
		}
	case tensor.Float32:
		if t.F32 != nil {
			b = appendFloat32s(b, t.F32)
		} else {
			b = appendFloat32s(b, t.Float)
		}
	case tensor.Float64:
		for _, v := range t.Float {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	default:
		w := elemSize(t.DType)
		for _, v := range t.Int {
			switch w {
			case 1:
				b = append(b, byte(v))
			case 2:
				b = binary.LittleEndian.AppendUint16(b, uint16(v))
			case 4:
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			default:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			}
		}
	}
	return b
}

// binarySize is how many bytes appendBinary writes for t.
func binarySize(t *tensor.Tensor) int {
	if t.DType == tensor.Bytes {
		n := 0
		for _, e := range t.Bytes {
			n += 4 + len(e)
		}
		return n
	}
	return t.Len() * elemSize(t.DType)
}

// halfToFloat widens an IEEE 754 half-precision value.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// floatToHalf narrows v to the nearest IEEE 754 half-precision value (ties to even).
func floatToHalf(v float64) uint16 {
	f := math.Float32bits(float32(v))
	sign := uint16(f>>16) & 0x8000
	exp := int(f>>23&0xff) - 127 + 15
	mant := f & 0x7fffff
	switch {
	case f&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := uint16(mant >> shift)
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || rem == mid && half&1 == 1 {
			half++
		}
		return sign | half
	}
	half := sign | uint16(exp)<<10 | uint16(mant>>13)
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && half&1 == 1 {
		half++ // a carry into the exponent is the right rounding too
	}
	return half
}
