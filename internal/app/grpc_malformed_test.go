package app_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
)

// TestGRPCMalformed sends ModelInfer calls a client can get wrong, each answered with
// a status and a message that says what to send instead; the server must stay up
// (every call after the table still works).
func TestGRPCMalformed(t *testing.T) {
	s := startOIP(t, map[string]string{"MAX_REQUEST_BYTES": "65536"})
	c := grpcClient(t, s)
	ctx := withKey(t, "k-all")
	type in = pb.ModelInferRequest_InferInputTensor
	type contents = pb.InferTensorContents
	iris := func(ins ...*in) *pb.ModelInferRequest {
		return &pb.ModelInferRequest{ModelName: "iris", ModelVersion: "v1", Inputs: ins}
	}
	echo := func(raw [][]byte, ins ...*in) *pb.ModelInferRequest {
		return &pb.ModelInferRequest{ModelName: "echo", Inputs: ins, RawInputContents: raw}
	}
	four := &contents{Fp32Contents: []float32{1, 2, 3, 4}}
	boolParam := func(v bool) *pb.InferParameter {
		return &pb.InferParameter{ParameterChoice: &pb.InferParameter_BoolParam{BoolParam: v}}
	}
	stringParam := &pb.InferParameter{ParameterChoice: &pb.InferParameter_StringParam{StringParam: "yes"}}
	tests := []struct {
		name string
		req  *pb.ModelInferRequest
		code codes.Code
		want string // in the message
	}{
		{"no model name", &pb.ModelInferRequest{Inputs: []*in{{Name: "x", Datatype: "FP32", Shape: []int64{1}, Contents: &contents{Fp32Contents: []float32{1}}}}}, codes.InvalidArgument, "model_name is empty"},
		{"unknown model", &pb.ModelInferRequest{ModelName: "nope", Inputs: []*in{{Name: "x", Datatype: "FP32", Shape: []int64{1}, Contents: &contents{Fp32Contents: []float32{1}}}}}, codes.NotFound, `no model named "nope"`},
		{"unknown version", &pb.ModelInferRequest{ModelName: "iris", ModelVersion: "v9", Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}}, codes.NotFound, "v9"},
		{"no inputs", iris(), codes.InvalidArgument, "inputs is empty"},
		{"input without a name", iris(&in{Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}), codes.InvalidArgument, "inputs[0].name must be a non-empty string"},
		{"no datatype", iris(&in{Name: "input", Shape: []int64{1, 4}, Contents: four}), codes.InvalidArgument, `input "input": datatype must be one of BOOL`},
		{"unknown datatype", iris(&in{Name: "input", Datatype: "FLOAT32", Shape: []int64{1, 4}, Contents: four}), codes.InvalidArgument, `datatype "FLOAT32" is not one of`},
		{"lowercase datatype", iris(&in{Name: "input", Datatype: "fp32", Shape: []int64{1, 4}, Contents: four}), codes.InvalidArgument, `datatype "fp32" is not one of`},
		{"wrong datatype", iris(&in{Name: "input", Datatype: "FP64", Shape: []int64{1, 4}, Contents: &contents{Fp64Contents: []float64{1, 2, 3, 4}}}), codes.InvalidArgument, `input "input" is FP64; the model takes FP32`},
		{"no contents", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}}), codes.InvalidArgument, "has no contents"},
		{"contents in the wrong field", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &contents{Fp64Contents: []float64{1, 2, 3, 4}}}), codes.InvalidArgument, "whose elements go in contents.fp32_contents, but contents.fp64_contents holds 4"},
		{"contents in two fields", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &contents{Fp32Contents: []float32{1, 2, 3, 4}, Int64Contents: []int64{1}}}), codes.InvalidArgument, "contents.int64_contents holds 1"},
		{"too few elements", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &contents{Fp32Contents: []float32{1, 2, 3}}}), codes.InvalidArgument, "contents.fp32_contents holds 3 elements; shape [1,4] takes 4"},
		{"too many elements", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &contents{Fp32Contents: []float32{1, 2, 3, 4, 5}}}), codes.InvalidArgument, "holds 5 elements; shape [1,4] takes 4"},
		{"negative dimension", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{-1, 4}, Contents: four}), codes.InvalidArgument, "shape[0] is -1; dimensions of a request cannot be negative"},
		{"shape overflow", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1 << 32, 1 << 32, 4}, Contents: four}), codes.InvalidArgument, "more elements than any request can carry"},
		{"huge shape, few elements", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1 << 30, 4}, Contents: four}), codes.InvalidArgument, "holds 4 elements; shape [1073741824,4] takes 4294967296"},
		{"too many dimensions", iris(&in{Name: "input", Datatype: "FP32", Shape: make([]int64, 33), Contents: four}), codes.InvalidArgument, "shape has 33 dimensions; at most 32 are allowed"},
		{"wrong shape", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{2, 2}, Contents: four}), codes.InvalidArgument, "has shape [2,2]; the model takes [-1,4]"},
		{"empty batch", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{0, 4}, Contents: &contents{}}), codes.InvalidArgument, "batch dimension must be at least 1"},
		{"unknown input", iris(&in{Name: "features", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}), codes.InvalidArgument, `the model has no input "features"`},
		{"input twice", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}, &in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}), codes.InvalidArgument, `input "input" is sent twice`},
		{"unknown output", &pb.ModelInferRequest{ModelName: "iris", Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}, Outputs: []*pb.ModelInferRequest_InferRequestedOutputTensor{{Name: "probabilities"}}}, codes.InvalidArgument, `the model has no output "probabilities"`},
		{"output twice", &pb.ModelInferRequest{ModelName: "iris", Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}, Outputs: []*pb.ModelInferRequest_InferRequestedOutputTensor{{Name: "logits"}, {Name: "logits"}}}, codes.InvalidArgument, `outputs[1] asks for output "logits", as outputs[0] does`},
		{"output without a name", &pb.ModelInferRequest{ModelName: "iris", Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}, Outputs: []*pb.ModelInferRequest_InferRequestedOutputTensor{{}}}, codes.InvalidArgument, "outputs[0].name must be a non-empty string"},
		{"binary_data_output not a bool", &pb.ModelInferRequest{ModelName: "iris", Parameters: map[string]*pb.InferParameter{"binary_data_output": stringParam}, Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}}, codes.InvalidArgument, "binary_data_output must be a bool_param"},
		{"binary_data not a bool", &pb.ModelInferRequest{ModelName: "iris", Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}, Outputs: []*pb.ModelInferRequest_InferRequestedOutputTensor{{Name: "logits", Parameters: map[string]*pb.InferParameter{"binary_data": stringParam}}}}, codes.InvalidArgument, "binary_data must be a bool_param"},
		{"both contents and raw contents", echo([][]byte{{1, 0, 0, 0}}, &in{Name: "x", Datatype: "INT32", Shape: []int64{1}, Contents: &contents{IntContents: []int32{1}}}), codes.InvalidArgument, `input "x" has both contents and raw_input_contents`},
		{"raw contents for fewer inputs", echo([][]byte{{1, 0, 0, 0}}, &in{Name: "x", Datatype: "INT32", Shape: []int64{1}}, &in{Name: "y", Datatype: "INT32", Shape: []int64{1}}), codes.InvalidArgument, "raw_input_contents has 1 entries for 2 inputs"},
		{"raw contents for more inputs", echo([][]byte{{1, 0, 0, 0}, {2, 0, 0, 0}}, &in{Name: "x", Datatype: "INT32", Shape: []int64{1}}), codes.InvalidArgument, "raw_input_contents has 2 entries for 1 inputs"},
		{"raw contents too short", echo([][]byte{{1, 0, 0}}, &in{Name: "x", Datatype: "INT32", Shape: []int64{1}}), codes.InvalidArgument, "binary_data_size is 3 bytes; shape [1] of INT32 takes 4-byte elements, so 1 values need 4 bytes"},
		{"raw contents too long", echo([][]byte{make([]byte, 12)}, &in{Name: "x", Datatype: "FP32", Shape: []int64{2}}), codes.InvalidArgument, "so 2 values need 8 bytes"},
		{"raw contents of a shape overflow", echo([][]byte{make([]byte, 8)}, &in{Name: "x", Datatype: "FP64", Shape: []int64{1 << 62}}), codes.InvalidArgument, "need more bytes"},
		{"raw BOOL not 0 or 1", echo([][]byte{{0, 2}}, &in{Name: "x", Datatype: "BOOL", Shape: []int64{2}}), codes.InvalidArgument, "element 1 is the byte 2; BOOL elements are 0 or 1"},
		{"raw BYTES length past the end", echo([][]byte{{9, 0, 0, 0, 'a'}}, &in{Name: "x", Datatype: "BYTES", Shape: []int64{1}}), codes.InvalidArgument, "BYTES element 0 is 9 bytes long, but only 1 bytes are left"},
		{"raw BYTES cut in a length", echo([][]byte{{1, 0, 0, 0, 'a', 1, 0}}, &in{Name: "x", Datatype: "BYTES", Shape: []int64{2}}), codes.InvalidArgument, "too few for the 2 elements"},
		{"raw BYTES with bytes left over", echo([][]byte{{1, 0, 0, 0, 'a', 'b'}}, &in{Name: "x", Datatype: "BYTES", Shape: []int64{1}}), codes.InvalidArgument, "1 bytes are left after the 1 BYTES elements"},
		{"INT8 out of range", echo(nil, &in{Name: "x", Datatype: "INT8", Shape: []int64{2}, Contents: &contents{IntContents: []int32{1, 128}}}), codes.InvalidArgument, "contents.int_contents[1] is 128, beyond what INT8 holds"},
		{"UINT16 out of range", echo(nil, &in{Name: "x", Datatype: "UINT16", Shape: []int64{1}, Contents: &contents{UintContents: []uint32{70000}}}), codes.InvalidArgument, "contents.uint_contents[0] is 70000, beyond what UINT16 holds"},
		{"FP16 as typed contents", echo(nil, &in{Name: "x", Datatype: "FP16", Shape: []int64{1}, Contents: &contents{Fp32Contents: []float32{1}}}), codes.InvalidArgument, "FP16 has no contents field; send it in raw_input_contents"},
		{"message past MAX_REQUEST_BYTES", echo([][]byte{make([]byte, 70000)}, &in{Name: "x", Datatype: "UINT8", Shape: []int64{70000}}), codes.ResourceExhausted, "received message larger than max"},
		{"too many rows", iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1025, 4}, Contents: &contents{Fp32Contents: make([]float32, 4100)}}), codes.ResourceExhausted, "at most 1024 are allowed (MAX_BATCH_ITEMS)"},
		{"broken model", &pb.ModelInferRequest{ModelName: "broken", Inputs: []*in{{Name: "x", Datatype: "FP32", Shape: []int64{1}, Contents: &contents{Fp32Contents: []float32{1}}}}}, codes.Unavailable, ""},
		{"model name of 129 characters", &pb.ModelInferRequest{ModelName: strings.Repeat("é", 129), Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}}, codes.InvalidArgument, "model_name is 129 characters long; a model's name has at most 128"},
		{"model name of 128 characters", &pb.ModelInferRequest{ModelName: strings.Repeat("é", 128), Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}}, codes.NotFound, "no model named"},
		{"version of 129 characters", &pb.ModelInferRequest{ModelName: "iris", ModelVersion: strings.Repeat("v", 129), Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}}, codes.InvalidArgument, "model_version is 129 characters long; a version has at most 128"},
		{"binary_data_output false is no fault", &pb.ModelInferRequest{ModelName: "iris", Parameters: map[string]*pb.InferParameter{"binary_data_output": boolParam(false)}, Inputs: []*in{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four}}}, codes.OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ModelInfer(ctx, tt.req)
			if tt.code == codes.OK {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			st := wantStatus(t, err, tt.code, tt.want, "")
			if st.Message() == "" || strings.Contains(st.Message(), "panic") {
				t.Errorf("message %q", st.Message())
			}
		})
	}
	// Still serving, on the same connection.
	if _, err := c.ModelInfer(ctx, iris(&in{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: four})); err != nil {
		t.Fatalf("after the malformed calls: %v", err)
	}
}

// TestGRPCUndecodable: a message that is not the method's protobuf message (bytes of
// no message, an end of a group never started, a string that is not UTF-8, cut short),
// to ModelInfer and to another method, small or past the size from which the codec
// reads raw inputs itself, is INVALID_ARGUMENT, as docs/grpc.md says of a malformed
// call, with the reason invalid_request: grpc-go's own answer is INTERNAL. A name of
// 100,000 characters is INVALID_ARGUMENT too, as REST's 400, and a message that would
// quote as much is cut short: the client here takes 8 KiB of trailers, as C-core's
// (tritonclient.grpc's) and grpc-go's coming default do, and had a status past that
// refused (INTERNAL). The server goes on serving.
func TestGRPCUndecodable(t *testing.T) {
	s := startOIP(t, nil)
	conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithMaxHeaderListSize(8<<10))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx := withKey(t, "k-admin")
	long := []byte(strings.Repeat("m", 100_000))
	field := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	input := func(name string) []byte { // inputs[0] of iris, named name
		t := &pb.ModelInferRequest_InferInputTensor{Name: name, Datatype: "FP32", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2, 3, 4}}}
		b, _ := proto.Marshal(t)
		return append(field(1, []byte("iris")), field(5, b)...)
	}
	big := protowire.AppendTag(nil, 8, protowire.BytesType) // raw_input_contents
	big = protowire.AppendBytes(big, make([]byte, 70<<10))
	tests := []struct {
		name, method string
		body         []byte
		code         codes.Code
		want         string // in the message
		reason       string // ErrorInfo's
	}{
		{"bytes of no message", "ModelInfer", []byte{0xff, 0xff, 0xff}, codes.InvalidArgument, "not an inference.ModelInferRequest", "invalid_request"},
		{"a length past the end", "ModelInfer", []byte{0x0a, 0x7f, 'i'}, codes.InvalidArgument, "not an inference.ModelInferRequest", "invalid_request"},
		{"model_name not UTF-8", "ModelInfer", []byte{0x0a, 0x02, 0xc3, 0x28}, codes.InvalidArgument, "invalid UTF-8", "invalid_request"},
		{"an end of a group never started", "ModelMetadata", []byte{0x0c}, codes.InvalidArgument, "not an inference.ModelMetadataRequest", "invalid_request"},
		{"large, cut short", "ModelInfer", big[:len(big)-1], codes.InvalidArgument, "not an inference.ModelInferRequest", "invalid_request"},
		{"large, bytes of no message after the raw input", "ModelInfer", append(append([]byte{}, big...), 0xff, 0xff), codes.InvalidArgument, "not an inference.ModelInferRequest", "invalid_request"},
		{"an infer of a name of 100000 characters", "ModelInfer", field(1, long), codes.InvalidArgument, "model_name is 100000 characters long; a model's name has at most 128", "invalid_request"},
		{"an infer of a version of 100000 characters", "ModelInfer", append(field(1, []byte("iris")), field(2, long)...), codes.InvalidArgument, "model_version is 100000 characters long; a version has at most 128", "invalid_request"},
		{"metadata of a name of 100000 characters", "ModelMetadata", field(1, long), codes.InvalidArgument, "name is 100000 characters long", "invalid_request"},
		{"readiness of a version of 100000 characters", "ModelReady", append(field(1, []byte("iris")), field(2, long)...), codes.InvalidArgument, "version is 100000 characters long", "invalid_request"},
		{"a load of a name of 100000 characters", "RepositoryModelLoad", field(2, long), codes.InvalidArgument, "model_name is 100000 characters long", "invalid_request"},
		{"an input named with 100000 characters", "ModelInfer", input(string(long)), codes.InvalidArgument, `the model has no input "mmm`, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out []byte
			err := conn.Invoke(ctx, "/inference.GRPCInferenceService/"+tt.method, tt.body, &out, grpc.ForceCodecV2(bytesCodec{}))
			st := wantStatus(t, err, tt.code, tt.want, tt.reason)
			if strings.Contains(st.Message(), "grpc:") || len(st.Message()) > 2048 {
				t.Errorf("message %.200q... (%d bytes) is grpc-go's or too long", st.Message(), len(st.Message()))
			}
		})
	}
	// Still serving, on the same connection.
	if _, err := pb.NewGRPCInferenceServiceClient(conn).ServerMetadata(ctx, &pb.ServerMetadataRequest{}); err != nil {
		t.Fatalf("after the undecodable calls: %v", err)
	}
}

// bytesCodec sends a []byte as the message it is, for calls no generated stub can
// make.
type bytesCodec struct{}

func (bytesCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (bytesCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (bytesCodec) Name() string { return "proto" }

// TestGRPCMetadataTooLarge: metadata past the server's 64 KiB, as headers past HTTP's
// MaxHeaderBytes, is refused with a status, and the server goes on.
func TestGRPCMetadataTooLarge(t *testing.T) {
	s := startOIP(t, nil)
	c := grpcClient(t, s)
	ctx := metadata.AppendToOutgoingContext(withKey(t, "k-all"), "x-padding", strings.Repeat("a", 100<<10))
	_, err := c.ServerMetadata(ctx, &pb.ServerMetadataRequest{})
	if code := status.Code(err); code == codes.OK {
		t.Fatal("100 KiB of metadata was taken")
	}
	t.Logf("refused: %v", err)
	if _, err := c.ServerMetadata(withKey(t, "k-all"), &pb.ServerMetadataRequest{}); err != nil {
		t.Fatalf("after the refused call: %v", err)
	}
}
