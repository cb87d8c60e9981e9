package oip

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// Response is an inference response to encode.
type Response struct {
	Model, Version string
	ID             *string
	Outputs        []registry.Named
}

// Encode writes the response. binary lists the outputs to send as binary data (the
// request's binary_data, or every output with binary_data_output); when there are
// any, body is the JSON header followed by their bytes and headerLen the header's
// length, else body is plain JSON and headerLen is -1. An output that is not finite
// has no JSON spelling, so it is an *Error unless it goes as binary data.
func Encode(resp Response, binary func(name string) bool) (body []byte, headerLen int, err error) {
	size := 256
	for _, o := range resp.Outputs {
		size += 64 + len(o.Name)
		if binary(o.Name) {
			size += binarySize(o.Tensor)
		} else {
			size += jsonSize(o.Tensor)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"model_name":`...)
	b = appendString(b, resp.Model)
	b = append(b, `,"model_version":`...)
	b = appendString(b, resp.Version)
	if resp.ID != nil {
		b = append(b, `,"id":`...)
		b = appendString(b, *resp.ID)
	}
	b = append(b, `,"outputs":[`...)
	var bin []registry.Named
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
		if b, err = appendData(b, o.Tensor); err != nil {
			if errors.Is(err, tensor.ErrNotFinite) {
				return nil, 0, fail("output %q holds a value that is not a finite number, which JSON cannot carry; ask for it as binary data (parameters.binary_data: true)", o.Name)
			}
			return nil, 0, err
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	if len(bin) == 0 {
		return b, -1, nil
	}
	headerLen = len(b)
	for _, o := range bin {
		b = appendBinary(b, o.Tensor)
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
	case t.DType.IsFloat():
		return t.Len() * (t.DType.Bits()/3 + 4) // 9, 14 and 25 bytes at 16, 32 and 64 bits
	}
	return t.Len() * 6
}

// appendData writes t's elements as a flat JSON array in row-major order.
func appendData(b []byte, t *tensor.Tensor) ([]byte, error) {
	b = append(b, '[')
	var err error
	n := t.Len()
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case t.DType == tensor.Bytes:
			b = appendString(b, string(t.Bytes[i]))
		case t.DType.IsFloat():
			b, err = tensor.AppendFloat(b, t.Float[i], t.DType.Bits(), err)
		case t.DType == tensor.Bool:
			b = strconv.AppendBool(b, t.Int[i] != 0)
		case t.DType == tensor.Uint64:
			b = strconv.AppendUint(b, uint64(t.Int[i]), 10)
		default:
			b = strconv.AppendInt(b, t.Int[i], 10)
		}
	}
	return append(b, ']'), err
}

func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
