package oip

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/tensor"
)

// The wire format is Triton's binary tensor data extension:
// https://github.com/triton-inference-server/server/blob/main/docs/protocol/extension_binary_data.md
// and the JSON tensors of https://github.com/kserve/open-inference-protocol/blob/main/specification/protocol/inference_rest.md

// TestBinaryRoundTrip: every datatype read from raw little-endian bytes is written back
// to the same bytes, and read from JSON to the same values.
func TestBinaryRoundTrip(t *testing.T) {
	le := binary.LittleEndian
	tests := []struct {
		datatype string
		raw      []byte
		json     string
	}{
		{"BOOL", []byte{1, 0, 1}, "[true,false,true]"},
		{"UINT8", []byte{0, 255, 7}, "[0,255,7]"},
		{"INT8", []byte{0x80, 0x7f, 0xff}, "[-128,127,-1]"},
		{"UINT16", le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, 0), 65535), 9), "[0,65535,9]"},
		{"INT16", le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, 0x8000), 0x7fff), 0xffff), "[-32768,32767,-1]"},
		{"UINT32", le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0), math.MaxUint32), 9), "[0,4294967295,9]"},
		{"INT32", le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 1<<31), 1<<31-1), math.MaxUint32), "[-2147483648,2147483647,-1]"},
		{"UINT64", le.AppendUint64(le.AppendUint64(le.AppendUint64(nil, 0), math.MaxUint64), 9), "[0,18446744073709551615,9]"},
		{"INT64", le.AppendUint64(le.AppendUint64(le.AppendUint64(nil, 1<<63), 1<<63-1), math.MaxUint64), "[-9223372036854775808,9223372036854775807,-1]"},
		{"FP16", le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, 0x3c00), 0xc000), 0x7bff), "[1,-2,65504]"},
		{"FP32", le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, math.Float32bits(0.1)), math.Float32bits(-3.5)), math.Float32bits(math.MaxFloat32)), "[0.1,-3.5,3.4028235e+38]"},
		{"FP64", le.AppendUint64(le.AppendUint64(le.AppendUint64(nil, math.Float64bits(0.1)), math.Float64bits(-3.5)), math.Float64bits(1e300)), "[0.1,-3.5,1e+300]"},
		{"BYTES", []byte("\x01\x00\x00\x00a\x00\x00\x00\x00\x02\x00\x00\x00\xc3\xa9"), `["a","","é"]`},
	}
	for _, tt := range tests {
		t.Run(tt.datatype, func(t *testing.T) {
			header := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[3],"datatype":%q,"parameters":{"binary_data_size":%d}}]}`, tt.datatype, len(tt.raw))
			bin, err := Decode([]byte(header), tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			js, err := Decode([]byte(fmt.Sprintf(`{"inputs":[{"name":"x","shape":[3],"datatype":%q,"data":%s}]}`, tt.datatype, tt.json)), nil)
			if err != nil {
				t.Fatal(err)
			}
			a, b := bin.Inputs[0].Tensor, js.Inputs[0].Tensor
			if !slices.Equal(a.Int, b.Int) || !slices.Equal(a.Float, b.Float) || !slices.Equal(a.F32, b.F32) || !slices.EqualFunc(a.Bytes, b.Bytes, bytes.Equal) {
				t.Errorf("binary %+v, JSON %+v", a, b)
			}
			// FP32 is held as float32s both ways, never widened.
			if fp32 := tt.datatype == "FP32"; fp32 != (a.F32 != nil) || fp32 != (b.F32 != nil) || fp32 && (a.Float != nil || b.Float != nil) {
				t.Errorf("%s read as binary into %+v, as JSON into %+v", tt.datatype, a, b)
			}
			if got := appendBinary(nil, a); !bytes.Equal(got, tt.raw) {
				t.Errorf("written back as %x, read from %x", got, tt.raw)
			}
			body, n, err := Encode(Response{Model: "m", Version: "v1", Outputs: []tensor.Named{{Name: "x", Tensor: a}}}, func(string) bool { return true })
			if err != nil || n < 0 || !bytes.Equal(body[n:], tt.raw) {
				t.Errorf("binary response %q (header %d), err %v", body, n, err)
			}
		})
	}
}

// TestHalf: FP16 narrowing rounds to the nearest half, ties to even, and saturates to
// infinity past 65504; widening is exact.
func TestHalf(t *testing.T) {
	tests := []struct {
		v    float64
		half uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e6, 0x7c00},
		{0.1, 0x2e66}, {5.960464477539063e-08, 0x0001}, {1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02},
	}
	for _, tt := range tests {
		if got := floatToHalf(tt.v); got != tt.half {
			t.Errorf("floatToHalf(%g) = %#04x, want %#04x", tt.v, got, tt.half)
		}
	}
	for h := range uint16(0x7c00) {
		if got := floatToHalf(halfToFloat(h)); got != h {
			t.Fatalf("%#04x widened to %g narrows to %#04x", h, halfToFloat(h), got)
		}
	}
}

// TestDecodeRefusals: what the protocol does not allow is an *Error wrapping ErrInvalid.
func TestDecodeRefusals(t *testing.T) {
	tests := []struct {
		name, header string
		binary       []byte
	}{
		{"BYTES length prefix cut", `{"inputs":[{"name":"x","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":2}}]}`, []byte{1, 0}},
		{"BYTES bytes left", `{"inputs":[{"name":"x","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":6}}]}`, []byte{1, 0, 0, 0, 'a', 'b'}},
		{"shape product overflows for the byte count", `{"inputs":[{"name":"x","shape":[4611686018427387904],"datatype":"FP64","parameters":{"binary_data_size":8}}]}`, make([]byte, 8)},
		{"outputs not an array", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1]}],"outputs":{}}`, nil},
		{"output without a name", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1]}],"outputs":[{}]}`, nil},
		{"parameters not an object", `{"parameters":[],"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1]}]}`, nil},
		{"binary_data_output not a boolean", `{"parameters":{"binary_data_output":1},"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1]}]}`, nil},
		{"escaped string in a number tensor", `{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":["\u0031"]}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.header), tt.binary)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Msg == "" {
				t.Errorf("err %v, want an *Error", err)
			}
		})
	}
}

// TestEncodeNotFinite: a NaN or an infinity has no JSON spelling, so it must be asked
// for as binary, after finite values or before them.
func TestEncodeNotFinite(t *testing.T) {
	for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for _, v := range [][]float64{{math.NaN()}, {1.5, math.Inf(1)}, {math.Inf(-1), 2}} {
			t.Run(fmt.Sprint(d, v), func(t *testing.T) {
				out := []tensor.Named{{Name: "y", Tensor: tensor.NewFloat(d, []int64{int64(len(v))}, v)}}
				if _, _, err := Encode(Response{Model: "m", Outputs: out}, func(string) bool { return false }); !errors.Is(err, ErrInvalid) {
					t.Errorf("JSON: err %v, want ErrInvalid", err)
				}
				if _, n, err := Encode(Response{Model: "m", Outputs: out}, func(string) bool { return true }); err != nil || n < 0 {
					t.Errorf("binary: %d %v", n, err)
				}
			})
		}
	}
}

// TestEncodeMaxBytes: an answer exactly MaxBytes long is sent and one byte more is a
// *SizeError, for JSON and binary outputs of every kind of element, large enough that
// appendData looks at the cap on its way (it does every stride elements); the answer
// within the cap is the one Encode writes without one.
func TestEncodeMaxBytes(t *testing.T) {
	const n = 3*stride + 7
	ints, floats, bools := make([]int64, n), make([]float64, n), make([]int64, n)
	strs := make([][]byte, n)
	for i := range n {
		ints[i], floats[i], bools[i] = int64(i*i-5000), float64(i)/7, int64(i%3&1)
		strs[i] = []byte(fmt.Sprint("s", i))
	}
	outputs := []tensor.Named{
		{Name: "i", Tensor: tensor.NewInt(tensor.Int64, []int64{n}, ints)},
		{Name: "f", Tensor: tensor.NewFloat(tensor.Float32, []int64{n}, floats)},
		{Name: "b", Tensor: tensor.NewInt(tensor.Bool, []int64{n}, bools)},
		{Name: "s", Tensor: &tensor.Tensor{DType: tensor.Bytes, Shape: []int64{n}, Bytes: strs}},
	}
	for _, o := range outputs {
		for _, bin := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s binary=%v", o.Tensor.DType, bin), func(t *testing.T) {
				resp := Response{Model: "m", Version: "v1", Outputs: []tensor.Named{o}}
				binary := func(string) bool { return bin }
				whole, _, err := Encode(resp, binary)
				if err != nil {
					t.Fatal(err)
				}
				resp.MaxBytes = len(whole)
				if got, _, err := Encode(resp, binary); err != nil || !bytes.Equal(got, whole) {
					t.Fatalf("at the cap: %v", err)
				}
				resp.MaxBytes = len(whole) - 1
				var big *SizeError
				if _, _, err := Encode(resp, binary); !errors.As(err, &big) || big.MaxBytes != len(whole)-1 || big.AtLeast <= big.MaxBytes {
					t.Fatalf("a byte past the cap: %v", err)
				}
			})
		}
	}
}

// TestEncodeBytesNotText: BYTES elements that are not UTF-8 text are an *Error as JSON,
// which would carry them as U+FFFD, and go unchanged as binary data.
func TestEncodeBytesNotText(t *testing.T) {
	out := []tensor.Named{{Name: "s", Tensor: &tensor.Tensor{DType: tensor.Bytes, Shape: []int64{2}, Bytes: [][]byte{[]byte("é"), {0xc3}}}}}
	_, _, err := Encode(Response{Model: "m", Outputs: out}, func(string) bool { return false })
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, `element 1 is not UTF-8 text`) || !strings.Contains(e.Msg, `"binary_data":true`) {
		t.Errorf("JSON: err %v", err)
	}
	if body, n, err := Encode(Response{Model: "m", Outputs: out}, func(string) bool { return true }); err != nil || !bytes.Equal(body[n:], []byte("\x02\x00\x00\x00é\x01\x00\x00\x00\xc3")) {
		t.Errorf("binary: %q %v", body, err)
	}
}

// TestStrAndQuoted: the fast paths of str and quoted give what encoding/json and fmt's
// %q do.
func TestStrAndQuoted(t *testing.T) {
	for _, s := range []string{`"x"`, `""`, `"input"`, `"é"`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", `"tab\there"`, `null`, `1`, `"a/b c"`} {
		t.Run(s, func(t *testing.T) {
			var want string
			err := json.Unmarshal([]byte(s), &want)
			got, ok := str([]byte(s))
			if ok != (err == nil && s[0] == '"') || got != want {
				t.Errorf("str = %q, %v; encoding/json %q, %v", got, ok, want, err)
			}
			if q, want := quoted("input ", want), fmt.Sprintf("input %q", want); q != want {
				t.Errorf("quoted = %s, want %s", q, want)
			}
		})
	}
}

// TestEncodeIntoBuf: a Buf that holds the answer is written into, over what it held,
// and gives the bytes a fresh body does; one too small is left alone.
func TestEncodeIntoBuf(t *testing.T) {
	floats := make([]float64, 1000)
	for i := range floats {
		floats[i] = float64(i) / 3
	}
	resp := Response{Model: "m", Version: "v1", Outputs: []tensor.Named{{Name: "f", Tensor: tensor.NewFloat(tensor.Float32, []int64{1000}, floats)}}}
	for _, bin := range []bool{false, true} {
		t.Run(fmt.Sprintf("binary=%v", bin), func(t *testing.T) {
			binary := func(string) bool { return bin }
			want, _, err := Encode(resp, binary)
			if err != nil {
				t.Fatal(err)
			}
			big := bytes.Repeat([]byte{'x'}, 64<<10)
			resp := resp
			resp.Buf = big
			got, _, err := Encode(resp, binary)
			if err != nil || !bytes.Equal(got, want) || &got[0] != &big[0] {
				t.Errorf("into a large Buf: %v; same bytes %v, written into Buf %v", err, bytes.Equal(got, want), &got[0] == &big[0])
			}
			small := []byte("keep")
			resp.Buf = small
			if got, _, err := Encode(resp, binary); err != nil || !bytes.Equal(got, want) || string(small) != "keep" {
				t.Errorf("with a small Buf: %v; same bytes %v, Buf now %q", err, bytes.Equal(got, want), small)
			}
		})
	}
}
