package oip

import (
	"encoding/binary"
	"unsafe"

	"github.com/inferd/inferd/internal/tensor"
)

// Raw contents are little-endian; on a little-endian machine an FP32, FP64, INT64 or
// UINT64 tensor's elements are laid out in memory exactly as on the wire, so a tensor
// can hold the bytes it came in, and be sent from the memory it is held in, with no
// copy. A megabyte tensor through gRPC saved two copies and a fresh megabyte this way
// (docs/design.md, "gRPC beside REST").

// littleEndian says whether this machine's byte order is the wire's.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// view is b as elements of type T, when the machine's byte order and b's alignment
// allow; the result has b's memory, and the capacity of its length, so that an append
// to it cannot write past b.
func view[T float32 | float64 | int64](b []byte) ([]T, bool) {
	var z T
	size := int(unsafe.Sizeof(z))
	p := unsafe.SliceData(b)
	if !littleEndian || len(b) == 0 || len(b)%size != 0 || uintptr(unsafe.Pointer(p))%unsafe.Alignof(z) != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(unsafe.Pointer(p)), len(b)/size), true
}

// bytesOf is vs's memory as bytes: their raw contents on a little-endian machine.
func bytesOf[T float32 | float64 | int64](vs []T) []byte {
	if len(vs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vs))), len(vs)*int(unsafe.Sizeof(vs[0])))
}

// DecodeRawOwned is DecodeRaw for bytes the caller gives up: an FP32, FP64, INT64 or
// UINT64 tensor may hold b's memory as its elements rather than a copy (when the
// machine is little-endian and b aligned for them), so b must not be written again.
// Tensors are never written in place (steps make new ones), so reading b through the
// tensor is all that happens to it.
func DecodeRawOwned(where string, d tensor.DType, shape []int64, size int64, b []byte) (*tensor.Tensor, error) {
	t := &tensor.Tensor{DType: d, Shape: shape}
	n := 0
	switch d {
	case tensor.Float32:
		t.F32, _ = view[float32](b)
		n = len(t.F32)
	case tensor.Float64:
		t.Float, _ = view[float64](b)
		n = len(t.Float)
	case tensor.Int64, tensor.Uint64:
		t.Int, _ = view[int64](b)
		n = len(t.Int)
	}
	if n > 0 && int64(n) == size {
		return t, nil
	}
	return DecodeRaw(where, d, shape, size, b) // its messages for a wrong size
}

// RawView is t's raw contents in the memory t holds its elements in, when they are
// laid out as on the wire (see DecodeRawOwned); the bytes are t's, to be read only.
func RawView(t *tensor.Tensor) ([]byte, bool) {
	if !littleEndian {
		return nil, false
	}
	var b []byte
	switch t.DType {
	case tensor.Float32:
		b = bytesOf(t.F32)
	case tensor.Float64:
		b = bytesOf(t.Float)
	case tensor.Int64, tensor.Uint64:
		b = bytesOf(t.Int)
	}
	return b, len(b) > 0
}
