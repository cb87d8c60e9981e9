package grpcapi

import (
	"errors"
	"io"
	"runtime"
	"slices"
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

// Codec is grpc-go's protobuf codec (the content-subtype "proto") with copies of a
// large raw tensor left out. grpc-go's own joins a received message into one buffer
// and then copies every bytes field out of it, and marshals an answer's bytes fields
// into a buffer of its own: a megabyte tensor in and out of ModelInfer is copied
// twice more than over REST's binary data extension (docs/design.md, "gRPC beside
// REST"). Here a large ModelInferRequest's raw_input_contents are copied once, out of
// the frames they came in, each into a slice of its own that its tensor may keep
// (unmarshalRequest); and a large ModelInferResponse is sent as its other fields,
// marshalled, then each raw output's tag and length followed by the answer's own
// bytes, not copied.
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
// write buffer and the fixed windows. The server must have Server.Unary as its unary
// interceptor too: it answers the messages Codec could not read (Undecodable).
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

// Unmarshal decodes data into v; a large ModelInferRequest's raw inputs are each
// copied out of the frames into a slice of its own. A message of the service that does
// not parse is reported by Undecodable, not here (undecodable.go says why).
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	var err error
	if req, ok := v.(*pb.ModelInferRequest); ok && data.Len() >= rawCodecMin {
		err = unmarshalRequest(data, req)
	} else {
		err = stock.Unmarshal(data, v)
	}
	if err != nil && setAside(v, err) {
		return nil
	}
	return err
}

// unmarshalRequest is Unmarshal's way with a large ModelInferRequest. grpc-go reuses
// the frames' buffers once Unmarshal returns, so the raw inputs are copied, once,
// each into a fresh slice (a Go allocation, aligned for any element type its length
// allows) that the request then holds alone: its tensor may keep it as its elements
// (oip.DecodeRawOwned). The protobuf runtime would need the message joined into one
// piece first, and then copies every element of a repeated bytes field out of it
// whatever it is told about aliasing: raw_input_contents is taken out here, and the
// other fields, a few hundred bytes, go to the runtime.
func unmarshalRequest(data mem.BufferSlice, req *pb.ModelInferRequest) error {
	rest, raw, err := splitRaw(data)
	if errors.Is(err, errLeft) { // the runtime knows what to do with it
		return stock.Unmarshal(data, req)
	}
	if err != nil {
		return err
	}
	if err := protov2.Unmarshal(rest, req); err != nil {
		return err
	}
	req.RawInputContents = raw
	return nil
}

// splitRaw reads a ModelInferRequest from the pieces it arrived in: its raw inputs,
// and the other fields as they came on the wire (unknown ones included, byte for
// byte, as the runtime keeps them).
func splitRaw(data mem.BufferSlice) (rest []byte, raw [][]byte, err error) {
	r := &pieces{bufs: data, n: data.Len()}
	for r.left() > 0 {
		field := len(rest)
		var tag, n uint64
		if rest, tag, err = r.varint(rest); err != nil {
			return nil, nil, err
		}
		num, typ := protowire.DecodeTag(tag)
		switch typ {
		case protowire.VarintType:
			if rest, _, err = r.varint(rest); err != nil {
				return nil, nil, err
			}
			continue
		case protowire.Fixed32Type:
			n = 4
		case protowire.Fixed64Type:
			n = 8
		case protowire.BytesType:
			if rest, n, err = r.varint(rest); err != nil {
				return nil, nil, err
			}
		default: // a group (long obsolete, in no field of this message) or no wire type
			return nil, nil, errLeft
		}
		if n > uint64(r.left()) {
			return nil, nil, io.ErrUnexpectedEOF
		}
		if num == rawInputField && typ == protowire.BytesType {
			rest = rest[:field]
			b := make([]byte, n)
			r.read(b)
			raw = append(raw, b)
			continue
		}
		rest = slices.Grow(rest, int(n))
		m := len(rest)
		rest = rest[:m+int(n)]
		r.read(rest[m:])
	}
	return rest, raw, nil
}

// errLeft is splitRaw's answer to a field it leaves to the protobuf runtime.
var errLeft = errors.New("a field of no wire type splitRaw reads")

// pieces reads a message in the pieces the transport received it in, without
// joining them.
type pieces struct {
	bufs mem.BufferSlice
	cur  []byte // what is left of the piece being read
	next int    // the piece after it
	n    int    // bytes left in all
}

func (r *pieces) left() int { return r.n }

// readByte reads the next byte.
func (r *pieces) readByte() (byte, error) {
	for len(r.cur) == 0 {
		if r.next == len(r.bufs) {
			return 0, io.EOF
		}
		r.cur = r.bufs[r.next].ReadOnlyData()
		r.next++
	}
	c := r.cur[0]
	r.cur = r.cur[1:]
	r.n--
	return c, nil
}

// varint reads a varint that must be there, appending its bytes as they came to dst;
// the protobuf runtime's rules (at most ten bytes, the tenth at most 1).
func (r *pieces) varint(dst []byte) ([]byte, uint64, error) {
	var v uint64
	for i := range 10 {
		c, err := r.readByte()
		if err != nil {
			return dst, 0, io.ErrUnexpectedEOF
		}
		dst = append(dst, c)
		if i == 9 && c > 1 {
			break
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return dst, v, nil
		}
	}
	return dst, 0, errOverflow
}

// errOverflow is the runtime's word for a varint past 64 bits.
var errOverflow = errors.New("variable length integer overflow")

// read fills dst; dst is at most r.left() long.
func (r *pieces) read(dst []byte) {
	for len(dst) > 0 {
		for len(r.cur) == 0 {
			r.cur = r.bufs[r.next].ReadOnlyData()
			r.next++
		}
		k := copy(dst, r.cur)
		dst, r.cur, r.n = dst[k:], r.cur[k:], r.n-k
	}
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

// rawContents is t's raw contents for the answer resp: the memory t holds its
// elements in when they are laid out as on the wire (oip.RawView; nothing writes a
// tensor once made, and grpc-go copies the bytes into its frames), else a copy, for
// a large t in a buffer from rawPool that rawBuffer will find.
func rawContents(resp *pb.ModelInferResponse, t *tensor.Tensor) []byte {
	if b, ok := oip.RawView(t); ok {
		return b
	}
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
