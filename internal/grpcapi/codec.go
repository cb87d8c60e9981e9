package grpcapi

import (
	"runtime"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	protov2 "google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/tensor"
)

// rawCodecMin is the size of message from which Codec spares a copy of the raw
// tensors: below it, grpc-go's codec copies little, from pooled buffers.
const rawCodecMin = 64 << 10

// The field numbers of the raw tensors.
var (
	rawInputField  = (&pb.ModelInferRequest{}).ProtoReflect().Descriptor().Fields().ByName("raw_input_contents").Number()
	rawOutputField = (&pb.ModelInferResponse{}).ProtoReflect().Descriptor().Fields().ByName("raw_output_contents").Number()
)

// Codec is grpc-go's protobuf codec (the content-subtype "proto") with two copies of
// a large raw tensor left out. grpc-go's own copies a received message into one
// buffer and then every bytes field out of it, and marshals an answer's bytes fields
// into a buffer of its own: a megabyte tensor in and out of ModelInfer is copied
// twice more than over REST's binary data extension (docs/design.md, "gRPC beside
// REST"). Here a large ModelInferRequest's raw_input_contents alias the received
// message, copied into a buffer of its own that nothing else holds; and a large
// ModelInferResponse is sent as its other fields, marshalled, then each raw output's
// tag and length followed by the answer's own bytes, not copied.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// writeBuffer is how many bytes of frames the server gathers before a write to the
// socket. grpc-go's 32 KiB made a 1 MB answer some thirty writes, twice the time in
// write(2) that a few take (docs/design.md, "gRPC beside REST"). grpc-go shares write
// buffers (the default since SharedWriteBuffer was deprecated): one is taken from a
// pool for a write and given back after it, so an idle connection holds none.
const writeBuffer = 1 << 20

// streamWindow and connWindow are fixed flow-control windows. Without them grpc-go
// estimates each connection's bandwidth-delay product with a PING per burst of data
// it receives, which a small call pays for: 1.8 writes and 3.3 reads per digits call
// against 1.0 and 2.9 for REST. A call's message of up to 4 MiB fits the stream's
// window, so a large tensor is not held back waiting for WINDOW_UPDATEs either.
const (
	streamWindow = 4 << 20
	connWindow   = 16 << 20
)

// ServerOptions are the grpc.Server's options for the service's traffic: Codec, the
// write buffer and the fixed windows.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.ForceServerCodecV2(Codec{}), grpc.WriteBufferSize(writeBuffer),
		grpc.InitialWindowSize(streamWindow), grpc.InitialConnWindowSize(connWindow)}
}

// stock is grpc-go's codec, which Codec defers to for everything else.
var stock = encoding.GetCodecV2(proto.Name)

// Name is the content-subtype Codec speaks: the standard one.
func (Codec) Name() string { return proto.Name }

// Marshal encodes v; a large ModelInferResponse's raw outputs go out as they are.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	resp, ok := v.(*pb.ModelInferResponse)
	if !ok || rawBytes(resp.RawOutputContents) < rawCodecMin {
		return stock.Marshal(v)
	}
	// Wire order does not matter to a parser but a repeated field's own order does:
	// the other fields first, then the raw outputs in their order.
	rest := &pb.ModelInferResponse{ModelName: resp.ModelName, ModelVersion: resp.ModelVersion, Id: resp.Id,
		Parameters: resp.Parameters, Outputs: resp.Outputs}
	head, err := protov2.Marshal(rest)
	if err != nil {
		return nil, err
	}
	out := make(mem.BufferSlice, 0, 2*len(resp.RawOutputContents))
	for _, raw := range resp.RawOutputContents {
		head = protowire.AppendTag(head, rawOutputField, protowire.BytesType)
		head = protowire.AppendVarint(head, uint64(len(raw)))
		out = append(out, mem.SliceBuffer(head), rawBuffer(raw))
		head = nil
	}
	return out, nil
}

// Unmarshal decodes data into v; a large ModelInferRequest's raw inputs alias data,
// copied once into a slice of its own.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	req, ok := v.(*pb.ModelInferRequest)
	if !ok || data.Len() < rawCodecMin {
		return stock.Unmarshal(data, v)
	}
	// Materialize allocates: the slice is the request's alone for as long as it lives,
	// unlike a pooled buffer, which grpc-go reuses once Unmarshal returns. The
	// protobuf runtime copies every element of a repeated bytes field, whatever it is
	// told about aliasing: raw_input_contents is taken out here, and the other fields,
	// a few hundred bytes, go to the runtime.
	buf := data.Materialize()
	var rest []byte
	var raw [][]byte
	for b := buf; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		if num == rawInputField && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			raw = append(raw, v[:len(v):len(v)]) // an append to it must not write into buf
		} else {
			rest = append(rest, b[:n+m]...)
		}
		b = b[n+m:]
	}
	if err := protov2.Unmarshal(rest, req); err != nil {
		return err
	}
	req.RawInputContents = raw
	return nil
}

func rawBytes(raw [][]byte) int {
	n := 0
	for _, b := range raw {
		n += len(b)
	}
	return n
}

// rawPool holds the buffers of large raw outputs: a fresh megabyte is zeroed by the
// allocator before it is written over, and is a megabyte more for the collector; one
// from the pool is neither. grpc-go gives a buffer back once its frames are written.
var rawPool = mem.DefaultBufferPool()

// pooled maps the first byte of a raw output taken from rawPool to its buffer, from
// answer until Marshal hands it to grpc-go (or, if the answer is never marshalled,
// until the answer is collected).
var pooled sync.Map // *byte -> *[]byte

// appendRaw is t's raw contents for the answer resp: for a large t, in a buffer from
// rawPool that rawBuffer will find.
func appendRaw(resp *pb.ModelInferResponse, t *tensor.Tensor) []byte {
	n := oip.RawSize(t)
	if n < rawCodecMin {
		return oip.AppendRaw(make([]byte, 0, n), t)
	}
	buf := rawPool.Get(n)
	b := oip.AppendRaw((*buf)[:0], t)
	if len(b) == 0 || &b[0] != &(*buf)[0] { // grew out of it (RawSize was short): not pooled
		rawPool.Put(buf)
		return b
	}
	*buf = b
	key := &b[0]
	pooled.Store(key, buf)
	// If the answer is dropped unmarshalled, the entry goes when it does, and the buffer
	// to the collector. Run after a Marshal, it may remove the entry of a later answer
	// that got the buffer again: that one is then sent as a plain slice, which nothing
	// gives back to the pool or reuses.
	runtime.AddCleanup(resp, func(k *byte) { pooled.Delete(k) }, key)
	return b
}

// rawBuffer hands raw to grpc-go: its pooled buffer, which grpc-go frees once written,
// or the slice as it is.
func rawBuffer(raw []byte) mem.Buffer {
	if len(raw) > 0 {
		if buf, ok := pooled.LoadAndDelete(&raw[0]); ok {
			return mem.NewBuffer(buf.(*[]byte), rawPool)
		}
	}
	return mem.SliceBuffer(raw)
}
