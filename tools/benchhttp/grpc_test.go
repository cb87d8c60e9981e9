package main

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/testkit"
)

// echoInference is a GRPCInferenceService over a real loopback socket that answers
// ModelInfer with its input, raw to raw and typed to typed, as inferd's echo model
// does, and notes what each call carried.
type echoInference struct {
	pb.UnimplementedGRPCInferenceServiceServer
	answerTyped bool          // answer typed even to raw inputs: a wrong answer
	hang        chan struct{} // when set, calls wait for it or their end

	mu     sync.Mutex
	peers  map[string]int // calls by client address: one per connection
	keys   []string       // x-api-key of each call
	raw    []bool         // whether each call sent raw_input_contents
	timed  int            // calls that carried a deadline
	values int            // FP32 values received, over every call
}

func (s *echoInference) ModelInfer(ctx context.Context, req *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
	p, _ := peer.FromContext(ctx)
	md, _ := metadata.FromIncomingContext(ctx)
	_, deadline := ctx.Deadline()
	raw := len(req.RawInputContents) > 0
	n := 0
	if raw {
		n = len(req.RawInputContents[0]) / 4
	} else if c := req.Inputs[0].Contents; c != nil {
		n = len(c.Fp32Contents)
	}
	s.mu.Lock()
	s.peers[p.Addr.String()]++
	s.keys = append(s.keys, strings.Join(md.Get("x-api-key"), ","))
	s.raw = append(s.raw, raw)
	s.values += n
	if deadline {
		s.timed++
	}
	s.mu.Unlock()
	if s.hang != nil {
		select {
		case <-s.hang:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	in := req.Inputs[0]
	out := &pb.ModelInferResponse_InferOutputTensor{Name: in.Name, Datatype: in.Datatype, Shape: in.Shape}
	resp := &pb.ModelInferResponse{ModelName: req.ModelName, Outputs: []*pb.ModelInferResponse_InferOutputTensor{out}}
	switch {
	case raw && !s.answerTyped:
		resp.RawOutputContents = req.RawInputContents
	case raw:
		out.Contents = &pb.InferTensorContents{Fp32Contents: make([]float32, n)}
	default:
		out.Contents = in.Contents
	}
	return resp, nil
}

func serveInference(t *testing.T, s *echoInference, opts ...grpc.ServerOption) string {
	t.Helper()
	s.peers = map[string]int{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(grpcMaxMessage)}, opts...)...)
	pb.RegisterGRPCInferenceServiceServer(srv, s)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// TestGRPCSession drives the gRPC load generator against a real gRPC server: each of
// a load's connections is a GRPCConn of its own (a client address of its own), with
// the key in metadata, no deadline sent, the tensor raw or typed as the case says, and
// an answer of the wrong kind counted as an error with its reason.
func TestGRPCSession(t *testing.T) {
	values := oipValues(4096)
	tests := []struct {
		name        string
		raw         bool
		answerTyped bool
		wantErr     string
	}{
		{"raw", true, false, ""},
		{"typed", false, false, ""},
		{"a typed answer to raw inputs is an error", true, true, "want raw=true and 1024 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &echoInference{answerTyped: tt.answerTyped}
			addr := serveInference(t, s)
			const conns, calls = 3, 30
			l := &Load{Conns: conns, Samples: true, Session: grpcSession(addr, grpcInfer("echo", "v1", "x", values, tt.raw), 1, answered(tt.raw, len(values)))}
			// Until every connection has called too: one slow to open may have made none
			// by the time the others made 30 calls.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			r := l.Run(ctx, func(done int64) bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return done >= calls && (tt.wantErr != "" || len(s.peers) >= conns)
			})

			s.mu.Lock()
			defer s.mu.Unlock()
			if tt.wantErr != "" {
				if r.Errors == 0 || !strings.Contains(r.FirstError, tt.wantErr) {
					t.Fatalf("%d errors, the first %q; want errors saying %q", r.Errors, r.FirstError, tt.wantErr)
				}
				return
			}
			if r.Errors != 0 || r.Requests < calls || r.Items != r.Requests || r.P50 <= 0 {
				t.Fatalf("%+v: want %d or more requests, as many items, no errors", r, calls)
			}
			if len(s.peers) != conns {
				t.Errorf("calls came from %d client addresses, want one per connection, %d: %v", len(s.peers), conns, s.peers)
			}
			if s.timed != 0 {
				t.Errorf("%d calls carried a deadline; REST's requests carry none", s.timed)
			}
			if slices.ContainsFunc(s.keys, func(k string) bool { return k != devKey }) || slices.Contains(s.raw, !tt.raw) {
				t.Errorf("keys %q, raw %v: want %q on every call, every call raw=%v", s.keys, s.raw, devKey, tt.raw)
			}
			if s.values != len(values)*len(s.raw) {
				t.Errorf("%d values received over %d calls, want %d each", s.values, len(s.raw), len(values))
			}
		})
	}

	t.Run("the end of the run cuts a call in flight off", func(t *testing.T) {
		s := &echoInference{hang: make(chan struct{})}
		defer close(s.hang)
		addr := serveInference(t, s)
		ctx, cancel := context.WithCancel(t.Context())
		l := &Load{Conns: 2, Session: grpcSession(addr, grpcInfer("echo", "v1", "x", values, true), 1, answered(true, len(values)))}
		done := make(chan Result)
		go func() { done <- l.Run(ctx, func(int64) bool { return false }) }()
		// Cancelled once both calls are in the server's hands.
		testkit.Eventually(t, 30*time.Second, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return len(s.raw) == 2
		}, "both calls in the server's hands")
		cancel()
		if r := <-done; r.Requests != 0 || r.Errors != 0 {
			t.Errorf("%d requests, %d errors; calls cut off by the end of the run are neither", r.Requests, r.Errors)
		}
	})
}

// TestDigitsPixels: the /v2 and gRPC digits cases send the image /predict does.
func TestDigitsPixels(t *testing.T) {
	var body struct{ Data []float32 }
	if err := json.Unmarshal(digitsBody, &body); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(body.Data, digitsPixels) {
		t.Errorf("digitsPixels %v, digitsBody's data %v", digitsPixels, body.Data)
	}
}
