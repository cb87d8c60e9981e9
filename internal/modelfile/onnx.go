package modelfile

import (
	"errors"
	"fmt"

	"github.com/inferd/inferd/internal/pipeline"
	"google.golang.org/protobuf/encoding/protowire"
)

// The field numbers of onnx.proto read here: a few fields of a few messages, rather
// than the whole generated schema.
const (
	modelIRVersion = 1 // ModelProto.ir_version
	modelGraph     = 7 // ModelProto.graph

	graphInitializer = 5  // GraphProto.initializer (TensorProto)
	graphInput       = 11 // GraphProto.input (ValueInfoProto)
	graphOutput      = 12 // GraphProto.output

	tensorName = 8 // TensorProto.name

	valueName = 1 // ValueInfoProto.name
	valueType = 2 // ValueInfoProto.type (TypeProto)

	typeTensor   = 1 // TypeProto.tensor_type
	typeSequence = 4 // TypeProto.sequence_type
	typeMap      = 5 // TypeProto.map_type
	typeSparse   = 8 // TypeProto.sparse_tensor_type
	typeOptional = 9 // TypeProto.optional_type

	tensorElemType = 1 // TypeProto.Tensor.elem_type
	tensorShape    = 2 // TypeProto.Tensor.shape (TensorShapeProto)

	shapeDim = 1 // TensorShapeProto.dim

	dimValue = 1 // TensorShapeProto.Dimension.dim_value
)

// onnxDTypes names TensorProto.DataType values as numpy does (and inferd's tensors);
// the types inferd has no tensors of keep ONNX's own name.
var onnxDTypes = map[uint64]string{
	1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
	8: "bytes", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
	14: "complex64", 15: "complex128", 16: "bfloat16",
}

var errNotONNX = fmt.Errorf("%w: not an ONNX model (no ModelProto with a graph that has inputs and outputs)", ErrNotModel)

// ReadONNX reads an ONNX ModelProto's graph inputs and outputs. Inputs that name an
// initializer (IR versions before 4 list the weights among the inputs) are left out:
// a caller does not feed them.
func ReadONNX(data []byte) (*Model, error) {
	var graph []byte
	var ir uint64
	err := fields(data, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == modelIRVersion && typ == protowire.VarintType:
			ir = n
		case num == modelGraph && typ == protowire.BytesType:
			graph = v
		}
		return nil
	})
	if err != nil || graph == nil || ir == 0 {
		return nil, errNotONNX
	}
	var ins, outs [][]byte
	weights := map[string]bool{}
	err = fields(graph, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case graphInput:
			ins = append(ins, v)
		case graphOutput:
			outs = append(outs, v)
		case graphInitializer:
			return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num == tensorName && typ == protowire.BytesType {
					weights[string(v)] = true
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, errNotONNX
	}
	m := &Model{Backend: "onnx"}
	for _, in := range ins {
		t, err := valueInfo(in)
		if err != nil {
			return nil, errNotONNX
		}
		if !weights[t.Name] {
			m.Inputs = append(m.Inputs, t)
		}
	}
	for _, out := range outs {
		t, err := valueInfo(out)
		if err != nil {
			return nil, errNotONNX
		}
		m.Outputs = append(m.Outputs, t)
	}
	if len(m.Inputs) == 0 || len(m.Outputs) == 0 {
		return nil, errNotONNX
	}
	return m, nil
}

// valueInfo reads a ValueInfoProto: a tensor's name, element type and shape, or for
// a value of another kind (a sequence, a map) that kind as its DType and no shape.
func valueInfo(data []byte) (pipeline.Tensor, error) {
	var t pipeline.Tensor
	var typ []byte
	err := fields(data, func(num protowire.Number, wt protowire.Type, v []byte, _ uint64) error {
		switch {
		case num == valueName && wt == protowire.BytesType:
			t.Name = string(v)
		case num == valueType && wt == protowire.BytesType:
			typ = v
		}
		return nil
	})
	if err != nil || t.Name == "" {
		return t, errNotONNX
	}
	err = fields(typ, func(num protowire.Number, wt protowire.Type, v []byte, _ uint64) error {
		if wt != protowire.BytesType {
			return nil
		}
		switch num {
		case typeTensor:
			return tensorType(v, &t)
		case typeSequence:
			t.DType = "sequence"
		case typeMap:
			t.DType = "map"
		case typeSparse:
			t.DType = "sparse_tensor"
		case typeOptional:
			t.DType = "optional"
		}
		return nil
	})
	return t, err
}

// tensorType reads a TypeProto.Tensor into t: no shape field leaves the rank
// unknown (nil), a dimension without a value is -1.
func tensorType(data []byte, t *pipeline.Tensor) error {
	return fields(data, func(num protowire.Number, wt protowire.Type, v []byte, n uint64) error {
		switch {
		case num == tensorElemType && wt == protowire.VarintType:
			d, ok := onnxDTypes[n]
			if !ok {
				d = fmt.Sprintf("onnx type %d", n)
			}
			t.DType = d
		case num == tensorShape && wt == protowire.BytesType:
			t.Shape = []int64{}
			return fields(v, func(num protowire.Number, wt protowire.Type, v []byte, _ uint64) error {
				if num != shapeDim || wt != protowire.BytesType {
					return nil
				}
				d := int64(-1)
				err := fields(v, func(num protowire.Number, wt protowire.Type, _ []byte, n uint64) error {
					if num == dimValue && wt == protowire.VarintType && int64(n) > 0 {
						d = int64(n)
					}
					return nil
				})
				t.Shape = append(t.Shape, d)
				return err
			})
		}
		return nil
	})
}

var errWire = errors.New("malformed protobuf")

// fields calls f with each field of the message in data: a length-delimited field's
// bytes as v, a varint's value as n; groups and fixed-width fields are skipped.
func fields(data []byte, f func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	for len(data) > 0 {
		num, typ, k := protowire.ConsumeTag(data)
		if k < 0 {
			return errWire
		}
		data = data[k:]
		var v []byte
		var n uint64
		switch typ {
		case protowire.VarintType:
			n, k = protowire.ConsumeVarint(data)
		case protowire.BytesType:
			v, k = protowire.ConsumeBytes(data)
		default:
			k = protowire.ConsumeFieldValue(num, typ, data)
		}
		if k < 0 {
			return errWire
		}
		data = data[k:]
		if typ == protowire.VarintType || typ == protowire.BytesType {
			if err := f(num, typ, v, n); err != nil {
				return err
			}
		}
	}
	return nil
}
