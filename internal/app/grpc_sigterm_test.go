package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/proctest"
)

// TestGRPCSIGTERM: told to stop, the real binary reports NOT_SERVING to gRPC health
// checks at once (as /ready answers 503), finishes the call in flight, and exits 0.
func TestGRPCSIGTERM(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "slow", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "slow", "v1", "model.yaml"), []byte("backend: echo\ndelay: 2s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(proctest.FreePort(t))
	p := proctest.StartListening(t, proctest.Build(t, "inferd"), "/ready", "MODELS_DIR="+dir, "LISTEN_ADDR=127.0.0.1:0",
		"GRPC_LISTEN_ADDR="+addr, "SHUTDOWN_DRAIN=1s", "API_KEYS=k:predict+read_models")
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	waitHealth := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
			if err == nil && resp.Status == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("health %v %v, want %v\n%s", resp, err, want, p.Logs())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitHealth(healthpb.HealthCheckResponse_SERVING)

	done := make(chan error, 1)
	go func() {
		_, err := pb.NewGRPCInferenceServiceClient(conn).ModelInfer(withKey(t, "k"), &pb.ModelInferRequest{ModelName: "slow",
			Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "INT32", Shape: []int64{1}, Contents: &pb.InferTensorContents{IntContents: []int32{1}}}}})
		done <- err
	}()
	// The call must be in flight (it takes 2 s) before the signal; this only orders them.
	time.Sleep(300 * time.Millisecond)
	p.Signal(syscall.SIGTERM)
	waitHealth(healthpb.HealthCheckResponse_NOT_SERVING)
	if err := <-done; err != nil {
		t.Errorf("the call in flight at SIGTERM: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Errorf("exit %d %v\n%s", code, err, p.Logs())
	}
}
