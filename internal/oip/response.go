package oip

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/inferd/inferd/internal/jsonscan"
	"github.com/inferd/inferd/internal/tensor"
)

// Response is an inference response to encode.
type Response struct {
	Model, Version string
	ID             *string
	Outputs        []tensor.Named
	// MaxBytes caps the encoded response, JSON header and binary data together; 0:
	// no cap. A response that would pass it is a *SizeError, found before anything is
	// written when its data alone would (binary data has an exact size, JSON text at
	// least a byte per digit), else within a stride of elements of passing it.
	MaxBytes int
	// Buf, when its capacity holds what Encode expects to write, is where the body is
	// written (a buffer reused from an earlier response); else Encode allocates one.
	Buf []byte
}

// SizeError is a response that would be larger than Response.MaxBytes.
type SizeError struct {
	// AtLeast is what the response would take at the least: the bytes written when
	// Encode gave up, or what the outputs take before any is written.
	AtLeast, MaxBytes int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("the response would take at least %d bytes, more than the %d allowed", e.AtLeast, e.MaxBytes)
}

// Encode writes the response. binary lists the outputs to send as binary data (the
// request's binary_data, or every output with binary_data_output); when there are
// any, body is the JSON header followed by their bytes and headerLen the header's
// length, else body is plain JSON and headerLen is -1. An output that JSON cannot
// carry as it is (a value that is not finite, BYTES that are not UTF-8 text) is an
// *Error unless it goes as binary data; a response past resp.MaxBytes is a
// *SizeError.
func Encode(resp Response, binary func(name string) bool) (body []byte, headerLen int, err error) {
	size, least := 256, 0 // least counts the data alone, which dwarfs the rest
	for _, o := range resp.Outputs {
		size += 64 + len(o.Name)
		if binary(o.Name) {
			size += binarySize(o.Tensor)
			least += binarySize(o.Tensor)
		} else {
			size += jsonSize(o.Tensor)
			least += jsonLeast(o.Tensor)
		}
	}
	limit := resp.MaxBytes
	if limit <= 0 {
		limit = int(^uint(0) >> 1)
	}
	if least > limit {
		return nil, 0, &SizeError{AtLeast: least, MaxBytes: limit}
	}
	var b []byte
	if want := min(size, limit); cap(resp.Buf) >= want {
		b = resp.Buf[:0]
	} else {
		b = make([]byte, 0, want)
	}
	b = append(b, `{"model_name":`...)
	b = appendString(b, resp.Model)
	b = append(b, `,"model_version":`...)
	b = appendString(b, resp.Version)
	if resp.ID != nil {
		b = append(b, `,"id":`...)
		b = appendString(b, *resp.ID)
	}
	b = append(b, `,"outputs":[`...)
	var bin []tensor.Named
	for i, o := range resp.Outputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, o.Name)
		b = append(b, `,"datatype":"`...)
		b = append(b, Datatype(o.Tensor.DType)...)
		b = append(b, `","shape":[`...)
		for j, d := range o.Tensor.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, d, 10)
		}
		b = append(b, ']')
		if binary(o.Name) {
			bin = append(bin, o)
			b = append(b, `,"parameters":{"binary_data_size":`...)
			b = strconv.AppendInt(b, int64(binarySize(o.Tensor)), 10)
			b = append(b, "}}"...)
			continue
		}
		b = append(b, `,"data":`...)
		if b, err = appendData(b, o.Tensor, limit); err != nil {
			var notText notUTF8
			switch {
			case errors.Is(err, tensor.ErrNotFinite):
				return nil, 0, fail("output %q holds a value that is not a finite number, which JSON cannot carry; ask for it as binary data (parameters.binary_data: true)", o.Name)
			case errors.As(err, &notText):
				return nil, 0, fail(`output %q is BYTES, and its element %d is not UTF-8 text, which a JSON string cannot carry unchanged; ask for it as binary data: "outputs":[{"name":%q,"parameters":{"binary_data":true}}]`, o.Name, int(notText), o.Name)
			}
			return nil, 0, err
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	headerLen = -1
	if len(bin) > 0 {
		headerLen = len(b)
		for _, o := range bin {
			b = appendBinary(b, o.Tensor)
		}
	}
	if len(b) > limit {
		return nil, 0, &SizeError{AtLeast: len(b), MaxBytes: limit}
	}
	return b, headerLen, nil
}

// jsonSize guesses the length of t's data as JSON, so that Encode allocates the body
// once: appended to a small slice, a megabyte tensor's JSON is copied each time the
// slice grows, by a quarter at that size, about five times its length in all.
func jsonSize(t *tensor.Tensor) int {
	switch {
	case t.DType == tensor.Bytes:
		return binarySize(t)
	case t.DType == tensor.Bool:
		return jsonLeast(t) + t.Len() // at most "false," each
	case t.DType.IsFloat():
		return t.Len() * (t.DType.Bits()/3 + 4) // 9, 14 and 25 bytes at 16, 32 and 64 bits
	}
	return t.Len() * 6
}

// jsonLeast is the fewest bytes t's data takes as JSON: the brackets, commas between
// the elements, and a digit for a number, "true" for a boolean, quotes around a
// string's bytes.
func jsonLeast(t *tensor.Tensor) int {
	n := t.Len()
	if n == 0 {
		return 2
	}
	switch t.DType {
	case tensor.Bool:
		return 1 + 5*n
	case tensor.Bytes:
		return 1 + binarySize(t) - n // each element's 4-byte length becomes 3 bytes
	}
	return 1 + 2*n
}

// stride is how many elements appendData writes between two looks at the cap: a few
// kilobytes of text, so that a cap is passed by little more than that.
const stride = 1024

// notUTF8 is the index of a BYTES element that is not UTF-8 text.
type notUTF8 int

func (e notUTF8) Error() string { return "element " + strconv.Itoa(int(e)) + " is not UTF-8 text" }

// appendData writes t's elements as a flat JSON array in row-major order, one loop per
// datatype, and stops with a *SizeError once b is past limit.
func appendData(b []byte, t *tensor.Tensor, limit int) ([]byte, error) {
	b = append(b, '[')
	n := t.Len()
	var err error
	for start := 0; start < n; start += stride {
		if len(b) > limit {
			return b, &SizeError{AtLeast: len(b), MaxBytes: limit}
		}
		end := min(start+stride, n)
		if start > 0 {
			b = append(b, ',')
		}
		switch {
		case t.DType == tensor.Bytes:
			for i, e := range t.Bytes[start:end] {
				if !utf8.Valid(e) {
					return b, notUTF8(start + i)
				}
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, string(e))
			}
		case t.F32 != nil:
			if b, err = appendFloats(b, t.F32[start:end], 32); err != nil {
				return b, err
			}
		case t.DType.IsFloat():
			if b, err = appendFloats(b, t.Float[start:end], t.DType.Bits()); err != nil {
				return b, err
			}
		case t.DType == tensor.Bool:
			for _, v := range t.Int[start:end] {
				if v != 0 {
					b = append(b, "true,"...)
				} else {
					b = append(b, "false,"...)
				}
			}
			b = b[:len(b)-1]
		case t.DType == tensor.Uint64:
			for i, v := range t.Int[start:end] {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(v), 10)
			}
		default:
			for i, v := range t.Int[start:end] {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, v, 10)
			}
		}
	}
	return append(b, ']'), nil
}

// appendFloats writes vs, comma-separated, as numbers of bits bits, from either of
// the ways a tensor holds floats; its error is the first value's that is not finite.
func appendFloats[T float32 | float64](b []byte, vs []T, bits int) ([]byte, error) {
	var err error
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b, err = tensor.AppendFloat(b, float64(v), bits, err)
	}
	return b, err
}

func appendString(b []byte, s string) []byte {
	if !jsonscan.Plain(s) {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
