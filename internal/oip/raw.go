package oip

import "github.com/inferd/inferd/internal/tensor"

// Raw contents are the binary data extension's bytes without the JSON around them:
// gRPC's raw_input_contents and raw_output_contents carry each tensor's elements this
// way, so both protocols read and write them with the same code and messages.

// DecodeRaw reads a tensor of element type d and shape from its raw little-endian
// bytes (BYTES elements each after a 4-byte length); where names it in messages. The
// shape must have passed CheckShape, whose size is size.
func DecodeRaw(where string, d tensor.DType, shape []int64, size int64, b []byte) (*tensor.Tensor, error) {
	t := &tensor.Tensor{DType: d, Shape: shape}
	if err := decodeBinary(where, t, size, b); err != nil {
		return nil, err
	}
	return t, nil
}

// AppendRaw appends t's elements as raw bytes, as DecodeRaw reads them.
func AppendRaw(b []byte, t *tensor.Tensor) []byte { return appendBinary(b, t) }

// RawSize is how many bytes AppendRaw appends for t.
func RawSize(t *tensor.Tensor) int { return binarySize(t) }

// Invalid is a request's fault in the protocol's terms, worded as msg.
func Invalid(msg string) error { return &Error{Msg: msg} }
