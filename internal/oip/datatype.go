package oip

import "github.com/inferd/inferd/internal/tensor"

// The protocol's datatypes and the element types inferd holds them in.
var dtypes = map[string]tensor.DType{
	"BOOL": tensor.Bool, "UINT8": tensor.Uint8, "UINT16": tensor.Uint16, "UINT32": tensor.Uint32, "UINT64": tensor.Uint64,
	"INT8": tensor.Int8, "INT16": tensor.Int16, "INT32": tensor.Int32, "INT64": tensor.Int64,
	"FP16": tensor.Float16, "FP32": tensor.Float32, "FP64": tensor.Float64, "BYTES": tensor.Bytes,
}

// Datatypes lists the protocol's datatypes, for messages.
const Datatypes = "BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, FP32, FP64, BYTES"

// DType is the element type of the protocol's datatype name.
func DType(name string) (tensor.DType, bool) {
	d, ok := dtypes[name]
	return d, ok
}

// Datatype is the protocol's name of an element type, or "" when it has none.
func Datatype(d tensor.DType) string {
	for name, v := range dtypes {
		if v == d {
			return name
		}
	}
	return ""
}

// elemSize is the width of one element in the binary extension; 0 for BYTES, whose
// elements are length-prefixed.
func elemSize(d tensor.DType) int {
	switch d {
	case tensor.Bool, tensor.Uint8, tensor.Int8:
		return 1
	case tensor.Uint16, tensor.Int16, tensor.Float16:
		return 2
	case tensor.Uint32, tensor.Int32, tensor.Float32:
		return 4
	case tensor.Bytes:
		return 0
	}
	return 8
}
