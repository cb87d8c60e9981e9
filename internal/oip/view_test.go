package oip

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/inferd/inferd/internal/tensor"
)

// TestDecodeRawOwned: the tensor of an FP32, FP64, INT64 or UINT64 holds the bytes it
// came in when they are aligned for its elements, and a copy when they are not; either
// way its values are DecodeRaw's, and the bytes RawView gives back are the same
// memory. Every other datatype is DecodeRaw's copy, as are a wrong size's messages,
// and every tensor on a big-endian machine.
func TestDecodeRawOwned(t *testing.T) {
	tests := []struct {
		datatype string
		width    int
		kept     bool // held in the bytes it came in
	}{
		{"FP32", 4, true}, {"FP64", 8, true}, {"INT64", 8, true}, {"UINT64", 8, true},
		{"INT32", 4, false}, {"UINT8", 1, false}, {"BOOL", 1, false}, {"FP16", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.datatype, func(t *testing.T) {
			d, _ := DType(tt.datatype)
			const n = 6
			raw := make([]byte, 8+n*tt.width) // 8-aligned, as any allocation of 16 bytes or more
			for i := range raw {
				raw[i] = byte(i*37) & 1 // 0 and 1: valid for BOOL, and any float's bits are a value
			}
			shape := []int64{2, n / 2}
			for _, off := range []int{0, 1} {
				b := raw[off : off+n*tt.width]
				want, err := DecodeRaw("x", d, shape, n, bytes.Clone(b))
				if err != nil {
					t.Fatal(err)
				}
				got, err := DecodeRawOwned("x", d, shape, n, b)
				if err != nil {
					t.Fatal(err)
				}
				if !sameValues(got, want) {
					t.Errorf("offset %d: %+v, DecodeRaw's %+v", off, got, want)
				}
				view, ok := RawView(got)
				if kept := ok && &view[0] == &b[0]; kept != (tt.kept && off == 0 && littleEndian) {
					t.Errorf("offset %d: tensor holds the bytes it came in: %v", off, kept)
				}
				if ok && !bytes.Equal(view, b) {
					t.Errorf("offset %d: RawView %x, came in as %x", off, view, b)
				}
			}
			if _, err := DecodeRawOwned("x", d, shape, n, raw[:n*tt.width-1]); err == nil {
				t.Error("a byte short and no error")
			}
		})
	}
	t.Run("a wrong size has DecodeRaw's message", func(t *testing.T) {
		b := make([]byte, 16)
		_, want := DecodeRaw("x", tensor.Float32, []int64{3}, 3, b)
		_, got := DecodeRawOwned("x", tensor.Float32, []int64{3}, 3, b)
		if got == nil || got.Error() != want.Error() {
			t.Errorf("%v, DecodeRaw's %v", got, want)
		}
	})
}

// TestRawView: a tensor whose elements are held as on the wire is viewed, in its own
// memory, as the bytes AppendRaw writes; any other is not.
func TestRawView(t *testing.T) {
	tests := []struct {
		name   string
		t      *tensor.Tensor
		viewed bool
	}{
		{"FP32 as float32s", tensor.NewFloat32([]int64{3}, []float32{1, -2.5, float32(math.Inf(1))}), true},
		{"FP32 as float64s", &tensor.Tensor{DType: tensor.Float32, Shape: []int64{2}, Float: []float64{1, 2}}, false},
		{"FP64", &tensor.Tensor{DType: tensor.Float64, Shape: []int64{2}, Float: []float64{0.1, -1e300}}, true},
		{"INT64", &tensor.Tensor{DType: tensor.Int64, Shape: []int64{2}, Int: []int64{-1, 1 << 62}}, true},
		{"UINT64", &tensor.Tensor{DType: tensor.Uint64, Shape: []int64{1}, Int: []int64{-1}}, true},
		{"INT32", &tensor.Tensor{DType: tensor.Int32, Shape: []int64{2}, Int: []int64{-1, 7}}, false},
		{"FP16", &tensor.Tensor{DType: tensor.Float16, Shape: []int64{1}, Float: []float64{1}}, false},
		{"empty FP32", tensor.NewFloat32([]int64{0}, []float32{}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok := RawView(tt.t)
			if ok != (tt.viewed && littleEndian) {
				t.Fatalf("viewed %v", ok)
			}
			if !ok {
				return
			}
			if want := AppendRaw(nil, tt.t); !bytes.Equal(b, want) {
				t.Errorf("viewed as %x, AppendRaw writes %x", b, want)
			}
			if p := unsafe.Pointer(&b[0]); p != firstElem(tt.t) {
				t.Error("the view is a copy")
			}
		})
	}
}

func sameValues(a, b *tensor.Tensor) bool {
	return slices.Equal(a.Int, b.Int) && slices.Equal(bitsOf(a.Float), bitsOf(b.Float)) &&
		slices.Equal(a.F32, b.F32) && a.DType == b.DType && slices.Equal(a.Shape, b.Shape)
}

// bitsOf compares NaNs as the bits they are.
func bitsOf(vs []float64) []uint64 {
	out := make([]uint64, len(vs))
	for i, v := range vs {
		out[i] = math.Float64bits(v)
	}
	return out
}

func firstElem(t *tensor.Tensor) unsafe.Pointer {
	switch {
	case t.F32 != nil:
		return unsafe.Pointer(&t.F32[0])
	case t.Float != nil:
		return unsafe.Pointer(&t.Float[0])
	}
	return unsafe.Pointer(&t.Int[0])
}
