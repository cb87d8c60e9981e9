package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/testkit"
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
		var resp *healthpb.HealthCheckResponse
		var err error
		testkit.Eventually(t, 10*time.Second, func() bool {
			resp, err = health.Check(t.Context(), &healthpb.HealthCheckRequest{})
			return err == nil && resp.Status == want
		}, "health %s, want %v\n%s", func() string { return fmt.Sprint(resp, " ", err) }, want, func() string { return p.Logs() })
	}
	waitHealth(healthpb.HealthCheckResponse_SERVING)

	done := make(chan error, 1)
	go func() {
		_, err := pb.NewGRPCInferenceServiceClient(conn).ModelInfer(withKey(t, "k"), &pb.ModelInferRequest{ModelName: "slow",
			Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "INT32", Shape: []int64{1}, Contents: &pb.InferTensorContents{IntContents: []int32{1}}}}})
		done <- err
	}()
	// The call must be in flight (it takes 2 s) before the signal: the model's gauge
	// says so.
	c := apitest.New(t, p.URL)
	testkit.Eventually(t, 10*time.Second, func() bool {
		return strings.Contains(string(c.Get("/metrics", "").Body), `inferd_model_requests_in_flight{model="slow",version="v1"} 1`)
	}, "the call in the model")
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
