package app_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/testkit"
)

// The Open Inference Protocol over gRPC (api/inference.proto), called with the client
// generated from it over a real socket, next to the same calls over REST.

// grpcClient dials the server's gRPC listener.
func grpcClient(t *testing.T, s *started) pb.GRPCInferenceServiceClient {
	t.Helper()
	return pb.NewGRPCInferenceServiceClient(grpcConn(t, s))
}

func grpcConn(t *testing.T, s *started) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// withKey is a call context carrying key as tritonclient.grpc and KServe's client send
// headers: gRPC metadata.
func withKey(t *testing.T, key string) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	if key == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "x-api-key", key)
}

// wantStatus checks a call's error: its code, a message containing msg, and the
// problem code REST answers with in its ErrorInfo.
func wantStatus(t *testing.T, err error, code codes.Code, msg, reason string) *status.Status {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.Contains(st.Message(), msg) {
		t.Fatalf("status %s %q, want %s with %q", st.Code(), st.Message(), code, msg)
	}
	if reason != "" {
		var got string
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok {
				got = info.Reason
			}
		}
		if got != reason {
			t.Errorf("ErrorInfo reason %q, want %q", got, reason)
		}
	}
	return st
}

// retryDelay is the RetryInfo of a status; 0 without one.
func retryDelay(st *status.Status) time.Duration {
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.RetryDelay.AsDuration()
		}
	}
	return 0
}

func fp32Raw(vs []float32) []byte {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func fp64FromRaw(t *testing.T, b []byte) []float64 {
	t.Helper()
	if len(b)%8 != 0 {
		t.Fatalf("%d raw bytes are not FP64 elements", len(b))
	}
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// restInfer runs a JSON infer call over REST and returns its outputs' data.
func restInfer(t *testing.T, s *started, path, body string) map[string][]float64 {
	t.Helper()
	resp := oipPost(s, path, "k-all", body)
	if resp.Status != http.StatusOK {
		t.Fatalf("REST %s: %d %s", path, resp.Status, resp.Body)
	}
	var r oipResponse
	resp.JSON(t, &r)
	out := map[string][]float64{}
	for _, o := range r.Outputs {
		out[o.Name] = floats(t, o.Data)
	}
	return out
}

// closeTo compares outputs: the same version on the same tensors, in a batch of
// another size when the dynamic batcher coalesced calls, which may round differently.
func closeTo(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-5*max(1, math.Abs(a[i])) {
			return false
		}
	}
	return true
}

func TestGRPC(t *testing.T) {
	s := startOIP(t, nil)
	c := grpcClient(t, s)
	t.Run("every call", func(t *testing.T) { grpcCalls(t, s, c) })
	t.Run("answers equal REST's", func(t *testing.T) { grpcEqualsREST(t, s, c) })
	t.Run("datatypes", func(t *testing.T) { grpcDatatypes(t, c) })
	t.Run("keys and scopes", func(t *testing.T) { grpcKeys(t, c) })
	t.Run("error statuses", func(t *testing.T) { grpcStatuses(t, s, c) })
	t.Run("messages equal REST's", func(t *testing.T) { grpcMessages(t, s, c) })
	t.Run("health and reflection", func(t *testing.T) { grpcHealth(t, s) })
	t.Run("metrics by method", func(t *testing.T) { grpcMetrics(t, s) })
}

func grpcCalls(t *testing.T, s *started, c pb.GRPCInferenceServiceClient) {
	ctx := withKey(t, "k-admin")
	live, err := c.ServerLive(withKey(t, ""), &pb.ServerLiveRequest{})
	if err != nil || !live.Live {
		t.Fatalf("ServerLive: %v %v", live, err)
	}
	ready, err := c.ServerReady(withKey(t, ""), &pb.ServerReadyRequest{})
	if err != nil || !ready.Ready {
		t.Fatalf("ServerReady: %v %v", ready, err)
	}
	md, err := c.ServerMetadata(ctx, &pb.ServerMetadataRequest{})
	var rest struct {
		Name       string   `json:"name"`
		Version    string   `json:"version"`
		Extensions []string `json:"extensions"`
	}
	s.c.Get("/v2", "k-all").JSON(t, &rest)
	if err != nil || md.Name != rest.Name || md.Version != rest.Version || !slices.Equal(md.Extensions, rest.Extensions) {
		t.Errorf("ServerMetadata %v %v; REST %+v", md, err, rest)
	}
	mr, err := c.ModelReady(ctx, &pb.ModelReadyRequest{Name: "iris", Version: "v1"})
	if err != nil || !mr.Ready {
		t.Errorf("ModelReady iris v1: %v %v", mr, err)
	}
	if mr, err := c.ModelReady(ctx, &pb.ModelReadyRequest{Name: "broken"}); err != nil || mr.Ready {
		t.Errorf("ModelReady broken: %v %v, want not ready", mr, err)
	}
	meta, err := c.ModelMetadata(ctx, &pb.ModelMetadataRequest{Name: "iris", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	var restMeta struct {
		Name     string   `json:"name"`
		Versions []string `json:"versions"`
		Platform string   `json:"platform"`
		Inputs   []struct {
			Name     string  `json:"name"`
			Datatype string  `json:"datatype"`
			Shape    []int64 `json:"shape"`
		} `json:"inputs"`
	}
	s.c.Get("/v2/models/iris/versions/v1", "k-all").JSON(t, &restMeta)
	if meta.Name != "iris" || !slices.Equal(meta.Versions, restMeta.Versions) || meta.Platform != restMeta.Platform ||
		len(meta.Inputs) != 1 || meta.Inputs[0].Name != restMeta.Inputs[0].Name || meta.Inputs[0].Datatype != "FP32" ||
		!slices.Equal(meta.Inputs[0].Shape, restMeta.Inputs[0].Shape) || len(meta.Outputs) != 1 || meta.Outputs[0].Name != "logits" {
		t.Errorf("ModelMetadata %v; REST %+v", meta, restMeta)
	}
	cfg, err := c.ModelConfig(ctx, &pb.ModelConfigRequest{Name: "digits"})
	if err != nil {
		t.Fatal(err)
	}
	if cc := cfg.Config; cc.Name != "digits" || cc.Platform != "onnxruntime_onnx" || cc.Backend != "onnxruntime" || cc.MaxBatchSize != 128 ||
		len(cc.Input) != 1 || cc.Input[0].DataType != pb.DataType_TYPE_FP32 || !slices.Equal(cc.Input[0].Dims, []int64{64}) ||
		cc.DynamicBatching == nil || cc.DynamicBatching.MaxQueueDelayMicroseconds != 2000 {
		t.Errorf("ModelConfig digits: %v", cfg)
	}
	if _, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "iris", ModelVersion: "v1", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{5.1, 3.5, 1.4, 0.2}}}}}); err != nil {
		t.Fatal(err)
	}
	st, err := c.ModelStatistics(ctx, &pb.ModelStatisticsRequest{Name: "iris", Version: "v1"})
	if err != nil || len(st.ModelStats) != 1 || st.ModelStats[0].InferenceCount < 1 || st.ModelStats[0].InferenceStats.Success.Count < 1 || st.ModelStats[0].LastInference == 0 {
		t.Errorf("ModelStatistics iris v1: %v %v", st, err)
	}
	all, err := c.ModelStatistics(ctx, &pb.ModelStatisticsRequest{})
	if err != nil || len(all.ModelStats) < 4 {
		t.Errorf("ModelStatistics of every model: %v %v", all, err)
	}
	idx, err := c.RepositoryIndex(ctx, &pb.RepositoryIndexRequest{})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, m := range idx.Models {
		states[m.Name+" "+m.Version] = m.State
	}
	if states["iris v1"] != "READY" || states["broken v1"] != "UNAVAILABLE" {
		t.Errorf("RepositoryIndex: %v", idx)
	}
	readyOnly, err := c.RepositoryIndex(ctx, &pb.RepositoryIndexRequest{Ready: true})
	if err != nil || len(readyOnly.Models) != len(idx.Models)-1 {
		t.Errorf("RepositoryIndex ready: %v %v", readyOnly, err)
	}
	if _, err := c.RepositoryModelUnload(ctx, &pb.RepositoryModelUnloadRequest{ModelName: "diabetes"}); err != nil {
		t.Fatalf("RepositoryModelUnload: %v", err)
	}
	// Not ready, rather than NOT_FOUND: the repository holds it (tritonclient.grpc's
	// is_model_ready raises on an error).
	if mr, err := c.ModelReady(ctx, &pb.ModelReadyRequest{Name: "diabetes"}); err != nil || mr.Ready {
		t.Errorf("ModelReady after the unload: %v %v, want not ready", mr, err)
	}
	if _, err := c.RepositoryModelLoad(ctx, &pb.RepositoryModelLoadRequest{ModelName: "diabetes"}); err != nil {
		t.Fatalf("RepositoryModelLoad: %v", err)
	}
	if mr, err := c.ModelReady(ctx, &pb.ModelReadyRequest{Name: "diabetes"}); err != nil || !mr.Ready {
		t.Errorf("diabetes not ready after the load: %v %v", mr, err)
	}
}

// grpcEqualsREST sends iris and digits the same tensors over REST's /v2 and over gRPC,
// as typed contents and as raw contents: their answers are the probabilities the
// versions' softmax and round steps leave, FP64 (TestOneAnswerPerVersion, in
// internal/e2etest, compares every protocol with /predict).
func grpcEqualsREST(t *testing.T, s *started, c pb.GRPCInferenceServiceClient) {
	ctx := withKey(t, "k-all")
	tests := []struct {
		model string
		input string
		rows  [][]float32
	}{
		{"iris", "input", [][]float32{{5.1, 3.5, 1.4, 0.2}, {6.7, 3.0, 5.2, 2.3}}},
		{"digits", "", [][]float32{digit(0), digit(7)}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			meta, err := c.ModelMetadata(ctx, &pb.ModelMetadataRequest{Name: tt.model, Version: "v1"})
			if err != nil {
				t.Fatal(err)
			}
			input, output := meta.Inputs[0].Name, meta.Outputs[0].Name
			if meta.Outputs[0].Datatype != "FP64" {
				t.Fatalf("metadata %v: want FP64, what softmax and round leave", meta)
			}
			flat := slices.Concat(tt.rows...)
			shape := []int64{int64(len(tt.rows)), int64(len(tt.rows[0]))}
			data, _ := json.Marshal(flat)
			body := `{"inputs":[{"name":"` + input + `","shape":[` + itoa(shape[0]) + `,` + itoa(shape[1]) + `],"datatype":"FP32","data":` + string(data) + `}]}`
			want := restInfer(t, s, "/v2/models/"+tt.model+"/versions/v1/infer", body)[output]

			typed, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: tt.model, ModelVersion: "v1", Id: "typed",
				Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: input, Datatype: "FP32", Shape: shape, Contents: &pb.InferTensorContents{Fp32Contents: flat}}}})
			if err != nil {
				t.Fatal(err)
			}
			if typed.Id != "typed" || typed.ModelVersion != "v1" || len(typed.RawOutputContents) != 0 || len(typed.Outputs) != 1 ||
				typed.Outputs[0].Datatype != "FP64" || typed.Outputs[0].Shape[0] != shape[0] || !closeTo(typed.Outputs[0].Contents.Fp64Contents, want) {
				t.Errorf("typed: %v; REST %v", typed, want)
			}
			raw, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: tt.model, ModelVersion: "v1",
				Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: input, Datatype: "FP32", Shape: shape}}, RawInputContents: [][]byte{fp32Raw(flat)}})
			if err != nil {
				t.Fatal(err)
			}
			if len(raw.RawOutputContents) != 1 || raw.Outputs[0].Contents != nil || !closeTo(fp64FromRaw(t, raw.RawOutputContents[0]), want) {
				t.Errorf("raw: %v; REST %v", raw, want)
			}
		})
	}
}

// digit is an 8x8 image of pixel intensities, a different one for each n.
func digit(n int) []float32 {
	px := make([]float32, 64)
	for i := range px {
		px[i] = float32((i*7 + n*13) % 17)
	}
	return px
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// grpcDatatypes sends the echo model, which answers with what it is given, each
// datatype as typed contents and as raw contents.
func grpcDatatypes(t *testing.T, c pb.GRPCInferenceServiceClient) {
	ctx := withKey(t, "k-predict")
	bytesRaw := func(es ...string) []byte {
		var b []byte
		for _, e := range es {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(e)))
			b = append(b, e...)
		}
		return b
	}
	large := make([]float32, 1<<17)
	for i := range large {
		large[i] = float32(i) / 3
	}
	largeInts := make([]int64, 1<<16)
	for i := range largeInts {
		largeInts[i] = int64(i)*-0x61c8864680b583eb - 1
	}
	int64Raw := func(vs []int64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return b
	}
	tests := []struct {
		datatype string
		shape    []int64
		contents *pb.InferTensorContents
		raw      []byte
	}{
		{"FP32", []int64{2, 2}, &pb.InferTensorContents{Fp32Contents: []float32{1.5, -2, 3.25, 1e-7}}, fp32Raw([]float32{1.5, -2, 3.25, 1e-7})},
		{"INT64", []int64{3}, &pb.InferTensorContents{Int64Contents: []int64{math.MinInt64, 0, math.MaxInt64}},
			binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1<<63), 0), math.MaxInt64)},
		{"BOOL", []int64{1, 3}, &pb.InferTensorContents{BoolContents: []bool{true, false, true}}, []byte{1, 0, 1}},
		{"BYTES", []int64{2}, &pb.InferTensorContents{BytesContents: [][]byte{[]byte("héllo"), {0, 0xff, 0xfe}}}, bytesRaw("héllo", "\x00\xff\xfe")},
		{"INT8", []int64{2}, &pb.InferTensorContents{IntContents: []int32{-128, 127}}, []byte{0x80, 0x7f}},
		{"UINT64", []int64{1}, &pb.InferTensorContents{Uint64Contents: []uint64{math.MaxUint64}}, bytes.Repeat([]byte{0xff}, 8)},
		{"FP64", []int64{1}, &pb.InferTensorContents{Fp64Contents: []float64{math.Pi}}, binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.Pi))},
		// Half a megabyte: past the size from which grpcapi.Codec copies raw inputs out
		// of the frames once, into slices the tensors keep (and echo answers from).
		{"FP32", []int64{1, int64(len(large))}, &pb.InferTensorContents{Fp32Contents: large}, fp32Raw(large)},
		{"INT64", []int64{int64(len(largeInts))}, &pb.InferTensorContents{Int64Contents: largeInts}, int64Raw(largeInts)},
	}
	for _, tt := range tests {
		t.Run(tt.datatype, func(t *testing.T) {
			typed, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "echo",
				Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: tt.datatype, Shape: tt.shape, Contents: tt.contents}}})
			if err != nil {
				t.Fatal(err)
			}
			o := typed.Outputs[0]
			if o.Name != "x" || o.Datatype != tt.datatype || !slices.Equal(o.Shape, tt.shape) || o.Contents.String() != tt.contents.String() {
				t.Errorf("typed: %v, want %v", o, tt.contents)
			}
			raw, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "echo",
				Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: tt.datatype, Shape: tt.shape}}, RawInputContents: [][]byte{tt.raw}})
			if err != nil {
				t.Fatal(err)
			}
			if len(raw.RawOutputContents) != 1 || !bytes.Equal(raw.RawOutputContents[0], tt.raw) || raw.Outputs[0].Datatype != tt.datatype {
				t.Errorf("raw: %v, want %x", raw, tt.raw)
			}
			// Typed in, raw out when asked, as REST's binary_data_output.
			asked, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "echo",
				Parameters: map[string]*pb.InferParameter{"binary_data_output": {ParameterChoice: &pb.InferParameter_BoolParam{BoolParam: true}}},
				Inputs:     []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: tt.datatype, Shape: tt.shape, Contents: tt.contents}}})
			if err != nil || len(asked.RawOutputContents) != 1 || !bytes.Equal(asked.RawOutputContents[0], tt.raw) {
				t.Errorf("binary_data_output: %v %v", asked, err)
			}
		})
	}
	t.Run("FP16 answers raw", func(t *testing.T) {
		resp, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "echo",
			Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "h", Datatype: "FP16", Shape: []int64{1}}}, RawInputContents: [][]byte{{0x00, 0x3c}}})
		if err != nil || !bytes.Equal(resp.RawOutputContents[0], []byte{0x00, 0x3c}) {
			t.Errorf("%v %v", resp, err)
		}
	})
}

func grpcKeys(t *testing.T, c pb.GRPCInferenceServiceClient) {
	iris := &pb.ModelInferRequest{ModelName: "iris", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{5.1, 3.5, 1.4, 0.2}}}}}
	infer := func(ctx context.Context) error { _, err := c.ModelInfer(ctx, iris); return err }
	metadataCall := func(ctx context.Context) error {
		_, err := c.ModelMetadata(ctx, &pb.ModelMetadataRequest{Name: "iris"})
		return err
	}
	load := func(ctx context.Context) error {
		_, err := c.RepositoryModelLoad(ctx, &pb.RepositoryModelLoadRequest{ModelName: "iris"})
		return err
	}
	twice := metadata.AppendToOutgoingContext(withKey(t, "k-all"), "x-api-key", "k-all")
	tests := []struct {
		name   string
		call   func(context.Context) error
		ctx    context.Context
		code   codes.Code
		reason string
	}{
		{"infer with a predict key", infer, withKey(t, "k-predict"), codes.OK, ""},
		{"infer without a key", infer, withKey(t, ""), codes.Unauthenticated, "unauthorized"},
		{"infer with an unknown key", infer, withKey(t, "nope"), codes.Unauthenticated, "unauthorized"},
		{"infer with the key twice", infer, twice, codes.Unauthenticated, "unauthorized"},
		{"infer with a read key", infer, withKey(t, "k-read"), codes.PermissionDenied, "forbidden"},
		{"metadata with a read key", metadataCall, withKey(t, "k-read"), codes.OK, ""},
		{"metadata with a predict key", metadataCall, withKey(t, "k-predict"), codes.PermissionDenied, "forbidden"},
		{"load with an admin key", load, withKey(t, "k-admin"), codes.OK, ""},
		{"load with a predict key", load, withKey(t, "k-all"), codes.PermissionDenied, "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(tt.ctx)
			if tt.code == codes.OK {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantStatus(t, err, tt.code, "", tt.reason)
		})
	}
}

func grpcStatuses(t *testing.T, s *started, c pb.GRPCInferenceServiceClient) {
	ctx := withKey(t, "k-admin")
	one := func(model, version string) *pb.ModelInferRequest {
		return &pb.ModelInferRequest{ModelName: model, ModelVersion: version, Inputs: []*pb.ModelInferRequest_InferInputTensor{
			{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{5.1, 3.5, 1.4, 0.2}}}}}
	}
	t.Run("NOT_FOUND", func(t *testing.T) {
		_, err := c.ModelInfer(ctx, one("nope", ""))
		wantStatus(t, err, codes.NotFound, `no model named "nope"`, "model_not_found")
		_, err = c.ModelMetadata(ctx, &pb.ModelMetadataRequest{Name: "iris", Version: "v9"})
		wantStatus(t, err, codes.NotFound, "v9", "version_not_found")
		_, err = c.ModelReady(ctx, &pb.ModelReadyRequest{Name: "nope"})
		wantStatus(t, err, codes.NotFound, "nope", "model_not_found")
	})
	t.Run("UNAVAILABLE", func(t *testing.T) {
		_, err := c.ModelInfer(ctx, one("broken", ""))
		st := wantStatus(t, err, codes.Unavailable, "", "model_unavailable")
		if retryDelay(st) < time.Second {
			t.Errorf("no RetryInfo: %v", st.Details())
		}
	})
	t.Run("INVALID_ARGUMENT", func(t *testing.T) {
		_, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "iris"})
		wantStatus(t, err, codes.InvalidArgument, "inputs is empty", "invalid_input")
	})
	t.Run("UNIMPLEMENTED", func(t *testing.T) {
		// Triton's shared-memory calls, which inferd does not serve.
		err := grpcConn(t, s).Invoke(ctx, "/inference.GRPCInferenceService/SystemSharedMemoryStatus", &pb.ServerLiveRequest{}, &pb.ServerLiveResponse{})
		wantStatus(t, err, codes.Unimplemented, "", "")
	})
	t.Run("RESOURCE_EXHAUSTED past MAX_REQUEST_BYTES", func(t *testing.T) {
		big := make([]byte, 2<<20)
		_, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "echo",
			Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "UINT8", Shape: []int64{int64(len(big))}}}, RawInputContents: [][]byte{big}})
		wantStatus(t, err, codes.ResourceExhausted, "larger than max", "")
	})
	t.Run("RESOURCE_EXHAUSTED past MAX_BATCH_ITEMS", func(t *testing.T) {
		rows := 2000
		_, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "iris", Inputs: []*pb.ModelInferRequest_InferInputTensor{
			{Name: "input", Datatype: "FP32", Shape: []int64{int64(rows), 4}, Contents: &pb.InferTensorContents{Fp32Contents: make([]float32, 4*rows)}}}})
		wantStatus(t, err, codes.ResourceExhausted, "MAX_BATCH_ITEMS", "payload_too_large")
	})
}

// grpcMessages sends the same faulty tensors over REST and gRPC: the message of the
// INVALID_ARGUMENT is the error REST's 400 says.
func grpcMessages(t *testing.T, s *started, c pb.GRPCInferenceServiceClient) {
	ctx := withKey(t, "k-all")
	tests := []struct {
		name string
		rest string
		in   *pb.ModelInferRequest_InferInputTensor
	}{
		{"wrong shape", `{"name":"input","shape":[1,3],"datatype":"FP32","data":[1,2,3]}`,
			&pb.ModelInferRequest_InferInputTensor{Name: "input", Datatype: "FP32", Shape: []int64{1, 3}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2, 3}}}},
		{"wrong datatype", `{"name":"input","shape":[1,4],"datatype":"FP64","data":[1,2,3,4]}`,
			&pb.ModelInferRequest_InferInputTensor{Name: "input", Datatype: "FP64", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp64Contents: []float64{1, 2, 3, 4}}}},
		{"unknown input", `{"name":"features","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}`,
			&pb.ModelInferRequest_InferInputTensor{Name: "features", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2, 3, 4}}}},
		{"unknown datatype", `{"name":"input","shape":[1,4],"datatype":"FLOAT","data":[1,2,3,4]}`,
			&pb.ModelInferRequest_InferInputTensor{Name: "input", Datatype: "FLOAT", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2, 3, 4}}}},
		{"negative dimension", `{"name":"input","shape":[-1,4],"datatype":"FP32","data":[1,2,3,4]}`,
			&pb.ModelInferRequest_InferInputTensor{Name: "input", Datatype: "FP32", Shape: []int64{-1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2, 3, 4}}}},
		{"empty batch", `{"name":"input","shape":[0,4],"datatype":"FP32","data":[]}`,
			&pb.ModelInferRequest_InferInputTensor{Name: "input", Datatype: "FP32", Shape: []int64{0, 4}, Contents: &pb.InferTensorContents{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := oipPost(s, "/v2/models/iris/versions/v1/infer", "k-all", `{"inputs":[`+tt.rest+`]}`)
			var e oipError
			resp.JSON(t, &e)
			if resp.Status != http.StatusBadRequest {
				t.Fatalf("REST: %d %s", resp.Status, resp.Body)
			}
			_, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "iris", ModelVersion: "v1", Inputs: []*pb.ModelInferRequest_InferInputTensor{tt.in}})
			wantStatus(t, err, codes.InvalidArgument, e.Error, e.Code)
		})
	}
}

func grpcHealth(t *testing.T, s *started) {
	conn := grpcConn(t, s)
	h := healthpb.NewHealthClient(conn)
	// The status follows readiness within half a second (the unload of "every call"
	// made the server unready for a moment).
	for _, service := range []string{"", "inference.GRPCInferenceService"} {
		var resp *healthpb.HealthCheckResponse
		var err error
		testkit.Eventually(t, 5*time.Second, func() bool {
			resp, err = h.Check(withKey(t, ""), &healthpb.HealthCheckRequest{Service: service})
			return err == nil && resp.Status == healthpb.HealthCheckResponse_SERVING
		}, "health of %q serving: %s", service, func() string { return fmt.Sprint(resp, " ", err) })
	}
	_, err := h.Check(withKey(t, ""), &healthpb.HealthCheckRequest{Service: "nope"})
	wantStatus(t, err, codes.NotFound, "", "")
}

func grpcMetrics(t *testing.T, s *started) {
	body := string(s.c.Get("/metrics", "").Body)
	for _, want := range []string{
		`inferd_grpc_requests_total{code="OK",method="ModelInfer"}`,
		`inferd_grpc_requests_total{code="INVALID_ARGUMENT",method="ModelInfer"}`,
		`inferd_grpc_requests_total{code="UNAUTHENTICATED",method="ModelInfer"}`,
		`inferd_grpc_request_duration_seconds_count{code="OK",method="ModelMetadata"}`,
		`inferd_predictions_total{mode="infer",model="iris",outcome="success",version="v1"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	// The test's own client holds a connection open.
	if !regexp.MustCompile(`(?m)^inferd_grpc_connections_open [1-9]`).MatchString(body) {
		t.Error("inferd_grpc_connections_open counts no connection, or is missing")
	}
}

func TestGRPCRateLimit(t *testing.T) {
	s := startOIP(t, map[string]string{"RATE_LIMIT_RPS": "0.01", "RATE_LIMIT_BURST": "1"})
	c := grpcClient(t, s)
	req := &pb.ModelInferRequest{ModelName: "echo", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "x", Datatype: "INT32", Shape: []int64{1}, Contents: &pb.InferTensorContents{IntContents: []int32{7}}}}}
	if _, err := c.ModelInfer(withKey(t, "k-all"), req); err != nil {
		t.Fatal(err)
	}
	_, err := c.ModelInfer(withKey(t, "k-all"), req)
	st := wantStatus(t, err, codes.ResourceExhausted, "rate limit", "rate_limited")
	if retryDelay(st) < time.Second {
		t.Errorf("no RetryInfo: %v", st.Details())
	}
	// The same bucket serves both protocols: REST is refused now too.
	if resp := oipPost(s, "/v2/models/echo/infer", "k-all", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT32","data":[7]}]}`); resp.Status != http.StatusTooManyRequests {
		t.Errorf("REST after gRPC took the burst: %d", resp.Status)
	}
	// Each refusal is counted under its operation (the gRPC method) and the model its
	// message or path names.
	body := string(s.c.Get("/metrics", "").Body)
	for _, want := range []string{
		`inferd_rate_limited_requests_total{code="rate_limited",model="echo",operation="ModelInfer"} 1`,
		`inferd_rate_limited_requests_total{code="rate_limited",model="echo",operation="oipInfer"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

// TestGRPCBatching: concurrent ModelInfer calls to digits share model calls, and REST
// and gRPC calls to one version coalesce in the same batches.
func TestGRPCBatching(t *testing.T) {
	s := startOIP(t, nil)
	c := grpcClient(t, s)
	ctx := withKey(t, "k-all")
	meta, err := c.ModelMetadata(ctx, &pb.ModelMetadataRequest{Name: "digits"})
	if err != nil {
		t.Fatal(err)
	}
	input := meta.Inputs[0].Name
	call := func(i int) error {
		_, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "digits", Inputs: []*pb.ModelInferRequest_InferInputTensor{
			{Name: input, Datatype: "FP32", Shape: []int64{1, 64}}}, RawInputContents: [][]byte{fp32Raw(digit(i))}})
		return err
	}
	count0, ones0, _ := histogram(t, s, "inferd_batch_size", "digits", "1")
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() { errs <- call(i) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	count, ones, _ := histogram(t, s, "inferd_batch_size", "digits", "1")
	calls, single := count-count0, ones-ones0
	t.Logf("100 gRPC calls: %d model calls, %d of one item", calls, single)
	if calls >= 100 || single == calls {
		t.Errorf("100 concurrent calls made %d model calls, %d of them of one item: no batch above 1", calls, single)
	}
}

// TestGRPCAndRESTBatchedTogether: 32 REST and 32 gRPC calls sent at once to a model
// whose calls take a second, one at a time: the first call runs alone and the others
// queue behind it, then go together. A call of more than 32 items can only be a mix of
// the two protocols.
func TestGRPCAndRESTBatchedTogether(t *testing.T) {
	s := startWithSlow(t, "backend: echo\ndelay: 1s\nmax_batch_size: 128\ndynamic_batching: {max_queue_delay: 1ms}\n")
	c := grpcClient(t, s)
	ctx := withKey(t, "k-predict")
	count0, upTo32, _ := histogram(t, s, "inferd_batch_size", "slow", "32")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Go(func() {
			resp, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "slow", Inputs: []*pb.ModelInferRequest_InferInputTensor{
				{Name: "x", Datatype: "INT32", Shape: []int64{1}, Contents: &pb.InferTensorContents{IntContents: []int32{int32(i)}}}}})
			if err == nil && resp.Outputs[0].Contents.IntContents[0] != int32(i) {
				err = status.Errorf(codes.Internal, "gRPC call %d answered %v", i, resp)
			}
			errs <- err
		})
		wg.Go(func() {
			resp := oipPost(s, "/v2/models/slow/infer", "k-predict", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT32","data":[`+itoa(int64(1000+i))+`]}]}`)
			if resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"data":[`+itoa(int64(1000+i))+`]`) {
				errs <- status.Errorf(codes.Internal, "REST call %d: %d %s", i, resp.Status, resp.Body)
				return
			}
			errs <- nil
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	count, upTo32b, _ := histogram(t, s, "inferd_batch_size", "slow", "32")
	calls, small := count-count0, upTo32b-upTo32
	t.Logf("32 REST and 32 gRPC calls: %d model calls, %d of them of more than 32 items", calls, calls-small)
	if calls-small == 0 {
		t.Errorf("no call of more than 32 items in %d model calls: REST and gRPC calls were not batched together", calls)
	}
}

// TestGRPCTracing: a call joins the caller's trace from its traceparent metadata, and
// the registry's spans (routing, the model call) hang under the call's server span.
func TestGRPCTracing(t *testing.T) {
	a := startTraced(t, map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"})
	c := grpcClient(t, a.started)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ctx := metadata.AppendToOutgoingContext(withKey(t, "dev-key"), "traceparent", "00-"+traceID+"-"+parentID+"-01")
	if _, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "iris", ModelVersion: "v1", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{5.1, 3.5, 1.4, 0.2}}}}}); err != nil {
		t.Fatal(err)
	}
	var names []string
	testkit.Eventually(t, 10*time.Second, func() bool {
		var server, child bool
		names = nil
		for _, s := range a.spans.GetSpans() {
			if s.SpanContext.TraceID().String() != traceID {
				continue
			}
			names = append(names, s.Name)
			if s.Name == "inference.GRPCInferenceService/ModelInfer" && s.Parent.SpanID().String() == parentID {
				server = true
				for _, o := range a.spans.GetSpans() {
					child = child || o.Parent.SpanID() == s.SpanContext.SpanID()
				}
			}
		}
		return server && child
	}, "a server span of the call under the caller's span with a child: spans of the trace %s", func() string { return fmt.Sprint(names) })
}

// TestGRPCDeadline: a call whose deadline passes while its model runs ends with
// DEADLINE_EXCEEDED, counted so in the metrics, and the server goes on.
func TestGRPCDeadline(t *testing.T) {
	s := startWithSlow(t, "backend: echo\ndelay: 5s\n")
	c := grpcClient(t, s)
	ctx, cancel := context.WithTimeout(withKey(t, "k-predict"), 300*time.Millisecond)
	defer cancel()
	_, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "slow", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "x", Datatype: "INT32", Shape: []int64{1}, Contents: &pb.InferTensorContents{IntContents: []int32{1}}}}})
	wantStatus(t, err, codes.DeadlineExceeded, "", "")
	testkit.Eventually(t, 10*time.Second, func() bool {
		return strings.Contains(string(s.c.Get("/metrics", "").Body), `inferd_grpc_requests_total{code="DEADLINE_EXCEEDED",method="ModelInfer"} 1`)
	}, "the server counting a DEADLINE_EXCEEDED call: %s", func() string { return grpcSeries(s) })
	if _, err := c.ServerLive(withKey(t, ""), &pb.ServerLiveRequest{}); err != nil {
		t.Fatal(err)
	}
}

func grpcSeries(s *started) string {
	var out []string
	for _, l := range strings.Split(string(s.c.Get("/metrics", "").Body), "\n") {
		if strings.HasPrefix(l, "inferd_grpc_requests_total") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// startWithSlow serves oipRepo plus the model "slow" of model.yaml text yml.
func startWithSlow(t *testing.T, yml string) *started {
	t.Helper()
	dir := oipRepo(t)
	if err := os.MkdirAll(dir+"/slow/v1", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/slow/v1/model.yaml", []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys, "READY_ALLOW_FAILED": "true"}, true)
}
