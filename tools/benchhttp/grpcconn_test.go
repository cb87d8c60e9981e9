package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
)

// TestGRPCConnInferd calls the real inferd's gRPC listener with GRPCConn and with
// grpc-go's client, the same requests on each, and wants the same answers: messages
// equal, or the same status and message. One GRPCConn carries every call in turn, so
// that an error status leaves it usable and the 1 MB calls go past the windows.
func TestGRPCConnInferd(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/inferd")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building inferd: %v\n%s", err, out)
	}
	h := &harness{cfg: Config{Root: root, BinDir: bin, ModelsDir: filepath.Join(root, "models")}}
	defer h.stopAll()
	env, addr, err := withGRPC([]string{"MAX_REQUEST_BYTES=" + itoa(oipMaxRequestBytes)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.inferd("inferd", env...); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "models", "digits", "v1", "model.yaml")); err != nil {
		t.Fatalf("the digits model: %v", err)
	}

	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(grpcMaxMessage), grpc.MaxCallSendMsgSize(grpcMaxMessage)))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ref := pb.NewGRPCInferenceServiceClient(cc)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c := NewGRPCConn(ctx, addr, pb.GRPCInferenceService_ModelInfer_FullMethodName, Header{"x-api-key", devKey})
	defer c.Close()
	other := NewGRPCConn(ctx, addr, pb.GRPCInferenceService_ModelInfer_FullMethodName, Header{"x-api-key", "not-a-key"})
	defer other.Close()

	tensor := oipValues(oipTensorBytes)
	both := grpcInfer("echo", "v1", "x", tensor[:4], true)
	both.Inputs[0].Contents = &pb.InferTensorContents{Fp32Contents: tensor[:4]}
	tests := []struct {
		name    string
		conn    *GRPCConn
		key     string
		req     *pb.ModelInferRequest
		wantErr string // a status error saying this, from both clients
	}{
		{"1 MB raw", c, devKey, grpcInfer("echo", "v1", "x", tensor, true), ""},
		{"1 MB typed", c, devKey, grpcInfer("echo", "v1", "x", tensor, false), ""},
		{"digits raw", c, devKey, grpcInfer("digits", "v1", "input", digitsPixels, true), ""},
		{"digits typed", c, devKey, grpcInfer("digits", "v1", "input", digitsPixels, false), ""},
		{"an unknown model", c, devKey, grpcInfer("nope", "v1", "x", tensor[:4], true), "NotFound"},
		{"contents and raw contents", c, devKey, both, "InvalidArgument"},
		{"over MAX_REQUEST_BYTES", c, devKey, grpcInfer("echo", "v1", "x", make([]float32, oipMaxRequestBytes/4+1), true), "ResourceExhausted"},
		{"after errors, 1 MB raw again", c, devKey, grpcInfer("echo", "v1", "x", tensor, true), ""},
		{"a wrong key", other, "not-a-key", grpcInfer("echo", "v1", "x", tensor[:4], true), "Unauthenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := ref.ModelInfer(metadata.AppendToOutgoingContext(ctx, "x-api-key", tt.key), tt.req)
			msg, err := proto.Marshal(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			// Several calls: the connection windows are used up and opened again.
			for range 3 {
				answer, err := tt.conn.Invoke(msg)
				if tt.wantErr != "" {
					if err == nil || wantErr == nil || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("GRPCConn: %v; grpc-go: %v; want both %s, equal", err, wantErr, tt.wantErr)
					}
					if _, ok := status.FromError(err); !ok {
						t.Fatalf("%v is not a status error", err)
					}
					continue
				}
				if err != nil || wantErr != nil {
					t.Fatalf("GRPCConn: %v; grpc-go: %v", err, wantErr)
				}
				got := &pb.ModelInferResponse{}
				if err := proto.Unmarshal(answer, got); err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(got, want) {
					t.Fatalf("GRPCConn's answer differs from grpc-go's: %d outputs, %d raw", len(got.Outputs), len(got.RawOutputContents))
				}
			}
		})
	}
}

// TestGRPCConnWindows: against a grpc-go server with fixed 64 KiB windows (no BDP
// estimate opening them), a 1 MB request waits for the server's WINDOW_UPDATEs rather
// than overrunning them, which the server would answer with a connection error.
func TestGRPCConnWindows(t *testing.T) {
	s := &echoInference{}
	addr := serveInference(t, s, grpc.InitialWindowSize(65535), grpc.InitialConnWindowSize(65535))
	values := oipValues(oipTensorBytes)
	l := &Load{Conns: 2, Session: grpcSession(addr, grpcInfer("echo", "v1", "x", values, true), 1, answered(true, len(values)))}
	r := l.Run(t.Context(), func(done int64) bool { return done >= 10 })
	if r.Errors != 0 || r.Requests < 10 {
		t.Fatalf("%d requests, %d errors, the first %q; want 10 or more, none", r.Requests, r.Errors, r.FirstError)
	}
}
