package onnxtest

import (
	"encoding/binary"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// Elem is an ONNX TensorProto.DataType.
type Elem int32

// The element types the tests use.
const (
	Float  Elem = 1
	Int32  Elem = 6
	Int64  Elem = 7
	String Elem = 8
	Bool   Elem = 9
	Double Elem = 11
)

// Value is a graph input or output: a tensor with a shape in which -1 is a dimension
// of any size.
type Value struct {
	Name string
	Elem Elem
	Dims []int64
}

// Node is one operator.
type Node struct {
	Op      string
	Inputs  []string
	Outputs []string
	// Ints are integer attributes, such as ArgMax's axis and keepdims.
	Ints map[string]int64
}

// Init is a constant float tensor (an initializer), such as a weight matrix.
type Init struct {
	Name string
	Dims []int64
	Data []float32
}

// Graph is a whole model.
type Graph struct {
	Inputs  []Value
	Outputs []Value
	Nodes   []Node
	Inits   []Init
}

// Field numbers of onnx.proto (ModelProto, GraphProto, NodeProto, ...).
const (
	modelIRVersion   = 1
	modelProducer    = 2
	modelGraph       = 7
	modelOpset       = 8
	opsetVersion     = 2
	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphInput       = 11
	graphOutput      = 12
	nodeInput        = 1
	nodeOutput       = 2
	nodeOpType       = 4
	nodeAttribute    = 5
	attrName         = 1
	attrInt          = 3
	attrType         = 20
	attrTypeInt      = 2
	tensorDims       = 1
	tensorDataType   = 2
	tensorName       = 8
	tensorRawData    = 9
	valueName        = 1
	valueType        = 2
	typeTensor       = 1
	tensorElemType   = 1
	tensorShape      = 2
	shapeDim         = 1
	dimValue         = 1
	dimParam         = 2
)

// Encode writes the graph as an ONNX model (IR version 8, opset 13).
func (g Graph) Encode() []byte {
	var graph []byte
	for _, n := range g.Nodes {
		graph = msg(graph, graphNode, n.encode())
	}
	graph = str(graph, graphName, "test")
	for _, in := range g.Inits {
		graph = msg(graph, graphInitializer, in.encode())
	}
	for _, v := range g.Inputs {
		graph = msg(graph, graphInput, v.encode())
	}
	for _, v := range g.Outputs {
		graph = msg(graph, graphOutput, v.encode())
	}
	var b []byte
	b = varint(b, modelIRVersion, 8)
	b = str(b, modelProducer, "inferd onnxtest")
	b = msg(b, modelGraph, graph)
	b = msg(b, modelOpset, varint(nil, opsetVersion, 13))
	return b
}

func (n Node) encode() []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = str(b, nodeInput, s)
	}
	for _, s := range n.Outputs {
		b = str(b, nodeOutput, s)
	}
	b = str(b, nodeOpType, n.Op)
	names := make([]string, 0, len(n.Ints))
	for name := range n.Ints {
		names = append(names, name)
	}
	slices.Sort(names) // the same graph always encodes to the same bytes
	for _, name := range names {
		var a []byte
		a = str(a, attrName, name)
		a = varint(a, attrInt, uint64(n.Ints[name]))
		a = varint(a, attrType, attrTypeInt)
		b = msg(b, nodeAttribute, a)
	}
	return b
}

func (in Init) encode() []byte {
	var b []byte
	for _, d := range in.Dims {
		b = varint(b, tensorDims, uint64(d))
	}
	b = varint(b, tensorDataType, uint64(Float))
	b = str(b, tensorName, in.Name)
	raw := make([]byte, 4*len(in.Data))
	for i, f := range in.Data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	return msg(b, tensorRawData, raw)
}

func (v Value) encode() []byte {
	var shape []byte
	for _, d := range v.Dims {
		if d < 0 {
			shape = msg(shape, shapeDim, str(nil, dimParam, "N"))
		} else {
			shape = msg(shape, shapeDim, varint(nil, dimValue, uint64(d)))
		}
	}
	var tt []byte
	tt = varint(tt, tensorElemType, uint64(v.Elem))
	tt = msg(tt, tensorShape, shape)
	var b []byte
	b = str(b, valueName, v.Name)
	return msg(b, valueType, msg(nil, typeTensor, tt))
}

func varint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func str(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func msg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}
