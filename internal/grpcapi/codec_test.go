package grpcapi

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	protov2 "google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/tensor"
)

// chunks splits b as the transport hands a message over: in frames.
func chunks(b []byte, size int) mem.BufferSlice {
	var out mem.BufferSlice
	for len(b) > 0 {
		n := min(size, len(b))
		out = append(out, mem.SliceBuffer(b[:n]))
		b = b[n:]
	}
	return out
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func TestCodecMarshal(t *testing.T) {
	params := map[string]*pb.InferParameter{"p": {ParameterChoice: &pb.InferParameter_StringParam{StringParam: "v"}}}
	outputs := []*pb.ModelInferResponse_InferOutputTensor{
		{Name: "a", Datatype: "FP32", Shape: []int64{1, 75000}, Parameters: params},
		{Name: "b", Datatype: "UINT8", Shape: []int64{1, 3}},
	}
	tests := []struct {
		name    string
		resp    *pb.ModelInferResponse
		aliased bool // the raw outputs go out as they are
	}{
		{"large raw outputs", &pb.ModelInferResponse{ModelName: "echo", ModelVersion: "v1", Id: "r1", Parameters: params, Outputs: outputs,
			RawOutputContents: [][]byte{pattern(300000, 1), pattern(3, 2)}}, true},
		{"small raw outputs", &pb.ModelInferResponse{ModelName: "echo", Outputs: outputs[1:], RawOutputContents: [][]byte{pattern(3, 2)}}, false},
		{"typed outputs", &pb.ModelInferResponse{ModelName: "echo", Outputs: []*pb.ModelInferResponse_InferOutputTensor{
			{Name: "a", Datatype: "FP32", Shape: []int64{1, 2}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2}}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Codec{}.Marshal(tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			var got pb.ModelInferResponse
			if err := protov2.Unmarshal(data.Materialize(), &got); err != nil {
				t.Fatal(err)
			}
			if !protov2.Equal(&got, tt.resp) {
				t.Errorf("decoded %v\nwant %v", &got, tt.resp)
			}
			var aliased int
			for _, b := range data {
				for _, raw := range tt.resp.RawOutputContents {
					if d := b.ReadOnlyData(); len(d) > 0 && len(raw) > 0 && &d[0] == &raw[0] {
						aliased++
					}
				}
			}
			if want := map[bool]int{true: len(tt.resp.RawOutputContents)}[tt.aliased]; aliased != want {
				t.Errorf("%d raw outputs sent from the answer's own bytes, want %d", aliased, want)
			}
		})
	}
}

func TestCodecUnmarshal(t *testing.T) {
	req := &pb.ModelInferRequest{ModelName: "echo", ModelVersion: "v1", Id: "q1",
		Inputs:           []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, 50000}}, {Name: "y", Datatype: "UINT8", Shape: []int64{1, 5}}},
		Outputs:          []*pb.ModelInferRequest_InferRequestedOutputTensor{{Name: "x"}},
		RawInputContents: [][]byte{pattern(200000, 3), pattern(5, 4)}}
	wire, err := protov2.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		into any
		data []byte
		want any
		own  bool // each raw input is in an allocation of its own
	}{
		{"a large request, in frames", &pb.ModelInferRequest{}, wire, req, true},
		{"a small request", &pb.ModelInferRequest{}, mustMarshal(t, &pb.ModelInferRequest{ModelName: "echo", RawInputContents: [][]byte{{1, 2}}}),
			&pb.ModelInferRequest{ModelName: "echo", RawInputContents: [][]byte{{1, 2}}}, false},
		{"another message", &pb.ModelReadyRequest{}, mustMarshal(t, &pb.ModelReadyRequest{Name: "iris"}), &pb.ModelReadyRequest{Name: "iris"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frames := bytes.Clone(tt.data)
			if err := (Codec{}).Unmarshal(chunks(frames, 16<<10), tt.into); err != nil {
				t.Fatal(err)
			}
			// The transport reuses its buffers once Unmarshal has returned: the message
			// must not hold them.
			for i := range frames {
				frames[i] = 0xff
			}
			if !protov2.Equal(tt.into.(protov2.Message), tt.want.(protov2.Message)) {
				t.Errorf("decoded %v\nwant %v", tt.into, tt.want)
			}
			if tt.own {
				// Aligned for its elements, so that a tensor can keep it (oip.DecodeRawOwned);
				// no room to grow into another's bytes.
				for i, raw := range tt.into.(*pb.ModelInferRequest).RawInputContents {
					if p := uintptr(unsafe.Pointer(&raw[0])); len(raw)%8 == 0 && p%8 != 0 || cap(raw) != len(raw) {
						t.Errorf("raw input %d at %#x with capacity %d for %d bytes: not a slice of its own", i, p, cap(raw), len(raw))
					}
				}
			}
		})
	}
	t.Run("a malformed large request is an error", func(t *testing.T) {
		into := &pb.ModelInferRequest{}
		if err := (Codec{}).Unmarshal(chunks(wire[:len(wire)-1000], 16<<10), into); err != nil {
			t.Fatalf("the error of a message of the service is for Undecodable, not grpc-go: %v", err)
		}
		if err := Undecodable(into); err == nil || !strings.Contains(err.Error(), "not an inference.ModelInferRequest") {
			t.Errorf("Undecodable: %v", err)
		}
		if err := Undecodable(into); err != nil {
			t.Errorf("asked twice: %v", err)
		}
	})
	t.Run("another service's malformed message is an error", func(t *testing.T) {
		if err := (Codec{}).Unmarshal(chunks([]byte{0xff, 0xff}, 16), &healthpb.HealthCheckRequest{}); err == nil {
			t.Error("no error for a health check that does not parse")
		}
	})
	t.Run("what was in the message before is reset", func(t *testing.T) {
		into := &pb.ModelInferRequest{ModelName: "old", RawInputContents: [][]byte{{9}}}
		if err := (Codec{}).Unmarshal(chunks(bytes.Clone(wire), 16<<10), into); err != nil {
			t.Fatal(err)
		}
		if !protov2.Equal(into, req) {
			t.Errorf("decoded %v\nwant %v", into, req)
		}
	})
}

func mustMarshal(t testing.TB, m protov2.Message) []byte {
	t.Helper()
	b, err := protov2.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCodecPooledRaw: a large raw output is written into a buffer of rawPool, which
// Marshal hands to grpc-go with its pool (freed once written, not before), the bytes
// those AppendRaw writes; a small one is a slice of its own.
func TestCodecPooledRaw(t *testing.T) {
	tests := []struct {
		name   string
		values int
		pooled bool
	}{
		{"large", rawCodecMin, true},
		{"small", 16, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn := &tensor.Tensor{DType: tensor.Float32, Shape: []int64{1, int64(tt.values)}, Float: make([]float64, tt.values)}
			for i := range tn.Float {
				tn.Float[i] = float64(i) / 3
			}
			resp := &pb.ModelInferResponse{ModelName: "echo", Outputs: []*pb.ModelInferResponse_InferOutputTensor{{Name: "y", Datatype: "FP32", Shape: tn.Shape}}}
			resp.RawOutputContents = [][]byte{rawContents(resp, tn)}
			want := oip.AppendRaw(nil, tn)
			if !bytes.Equal(resp.RawOutputContents[0], want) {
				t.Fatal("the raw output's bytes differ from AppendRaw's")
			}
			_, inPool := pooled.Load(&resp.RawOutputContents[0][0])
			if inPool != tt.pooled {
				t.Fatalf("pooled %v, want %v", inPool, tt.pooled)
			}
			data, err := Codec{}.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			var got pb.ModelInferResponse
			if err := protov2.Unmarshal(data.Materialize(), &got); err != nil {
				t.Fatal(err)
			}
			if !protov2.Equal(&got, resp) {
				t.Error("the marshalled answer differs from the answer")
			}
			if _, still := pooled.Load(&resp.RawOutputContents[0][0]); still {
				t.Error("Marshal left the buffer's entry behind")
			}
			data.Free() // as grpc-go does once the frames are written
		})
	}
}

// FuzzCodecUnmarshal: Codec reads a large ModelInferRequest as the protobuf runtime
// reads it whole, whatever the bytes and however they are cut into frames: the same
// message, unknown fields byte for byte, or an error for both.
func FuzzCodecUnmarshal(f *testing.F) {
	valid := mustMarshal(f, &pb.ModelInferRequest{ModelName: "echo", Id: "q",
		Inputs:           []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, 3}}},
		Parameters:       map[string]*pb.InferParameter{"p": {ParameterChoice: &pb.InferParameter_Int64Param{Int64Param: -1}}},
		RawInputContents: [][]byte{pattern(12, 1), {}, pattern(300, 2)}})
	unknown := []byte{0x98, 0x06, 0x05, 0xa5, 0x06, 1, 2, 3, 4, 0xa9, 0x06, 1, 2, 3, 4, 5, 6, 7, 8, 0x3a, 0x02, 7, 7} // fields 99 as varint, fixed32, fixed64; a raw input
	for _, seed := range [][]byte{
		valid,
		append(bytes.Clone(valid), unknown...),
		{0x3a, 0x80, 0x80, 0x00}, // a raw input's length in a non-minimal varint
		{0x3a, 0x05, 1, 2},       // a raw input past the end
		{0xa3, 0x06, 0xa4, 0x06}, // a group, field 100
		{0x3e, 0x00},             // wire type 6
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, // a varint past 64 bits
		{0x38, 0x01},             // raw_input_contents as a varint: an unknown field
		{0x0a, 0x02, 0xff, 0xfe}, // model_name not UTF-8
	} {
		f.Add(seed, uint16(7))
	}
	f.Fuzz(func(t *testing.T, wire []byte, piece uint16) {
		var want pb.ModelInferRequest
		wantErr := protov2.Unmarshal(wire, &want)
		frames := bytes.Clone(wire)
		var got pb.ModelInferRequest
		err := unmarshalRequest(chunks(frames, int(piece%64)+1), &got)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, the runtime's %v", err, wantErr)
		}
		if err != nil {
			return
		}
		for i := range frames {
			frames[i] ^= 0xff // the transport reuses its buffers
		}
		if !protov2.Equal(&got, &want) {
			t.Fatalf("decoded %v\nthe runtime's %v", &got, &want)
		}
	})
}
