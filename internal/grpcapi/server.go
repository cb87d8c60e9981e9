package grpcapi

import (
	"context"
	"errors"
	"log/slog"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
)

// Options configure a Server.
type Options struct {
	// Admission admits every call of the service, as the REST API's requests: the same
	// keys, scopes and limits.
	Admission *admission.Admission
	// Wording words the calls' errors as REST words its problems.
	Wording *problem.Wording
	// OIP answers the calls about the server and its models and Triton's extensions,
	// as under /v2.
	OIP      *oip.Service
	Registry *registry.Registry
	Metrics  *metrics.Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// MaxBatchItems caps the rows of a ModelInfer call, as /v2's (MAX_BATCH_ITEMS);
	// MaxResponseBytes the bytes of its answer (MAX_RESPONSE_BYTES). Zero: no cap.
	MaxBatchItems    int
	MaxResponseBytes int64
}

// Server implements the protocol's service.
type Server struct {
	pb.UnimplementedGRPCInferenceServiceServer
	opts  Options
	oip   *oip.Service
	adm   *admission.Admission
	words *problem.Wording
	reg   *registry.Registry
	log   *slog.Logger
}

var _ pb.GRPCInferenceServiceServer = (*Server)(nil)

// New returns the service over opts.
func New(opts Options) (*Server, error) {
	if opts.Admission == nil || opts.Wording == nil || opts.OIP == nil || opts.Registry == nil || opts.Metrics == nil {
		return nil, errors.New("grpcapi: Admission, Wording, OIP, Registry and Metrics are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Server{opts: opts, oip: opts.OIP, adm: opts.Admission, words: opts.Wording, reg: opts.Registry, log: opts.Logger}, nil
}

// ServerLive answers while the process serves, as GET /v2/health/live does.
func (s *Server) ServerLive(context.Context, *pb.ServerLiveRequest) (*pb.ServerLiveResponse, error) {
	return &pb.ServerLiveResponse{Live: true}, nil
}

// ServerReady answers as GET /ready does: false while loading, draining or degraded.
func (s *Server) ServerReady(ctx context.Context, _ *pb.ServerReadyRequest) (*pb.ServerReadyResponse, error) {
	ready, err := s.Ready(ctx)
	if err != nil {
		return nil, err
	}
	return &pb.ServerReadyResponse{Ready: ready}, nil
}

// Ready is the server's readiness, which ServerReady and the health service report.
func (s *Server) Ready(ctx context.Context) (bool, error) {
	return s.oip.ServerReady(ctx)
}

// ServerMetadata names the server, its version and its extensions.
func (s *Server) ServerMetadata(context.Context, *pb.ServerMetadataRequest) (*pb.ServerMetadataResponse, error) {
	md := s.oip.ServerMetadata()
	return &pb.ServerMetadataResponse{Name: md.Name, Version: md.Version, Extensions: md.Extensions}, nil
}

// ModelReady says whether the version (or the one the model's rule chooses) can serve.
// A model the repository holds but that is unloaded is not ready, as Triton answers
// (tritonclient.grpc's is_model_ready raises on an error); a name the repository
// lacks is NOT_FOUND, as over REST.
func (s *Server) ModelReady(ctx context.Context, req *pb.ModelReadyRequest) (*pb.ModelReadyResponse, error) {
	if err := named(req.Name, "name"); err != nil {
		return nil, err
	}
	r, err := s.oip.ModelReady(req.Name, req.Version)
	if errors.Is(err, registry.ErrModelNotFound) || errors.Is(err, registry.ErrVersionNotFound) {
		entries, ierr := s.reg.Index(ctx)
		if ierr != nil {
			return nil, ierr
		}
		for _, e := range entries {
			if e.Name == req.Name && (req.Version == "" || e.Version == req.Version) {
				return &pb.ModelReadyResponse{Ready: false}, nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return &pb.ModelReadyResponse{Ready: r.Ready}, nil
}

// ModelMetadata describes a loaded version's tensors.
func (s *Server) ModelMetadata(_ context.Context, req *pb.ModelMetadataRequest) (*pb.ModelMetadataResponse, error) {
	if err := named(req.Name, "name"); err != nil {
		return nil, err
	}
	md, err := s.oip.ModelMetadata(req.Name, req.Version)
	if err != nil {
		return nil, err
	}
	out := &pb.ModelMetadataResponse{Name: md.Name, Versions: md.Versions, Platform: md.Platform}
	for _, t := range md.Inputs {
		out.Inputs = append(out.Inputs, &pb.ModelMetadataResponse_TensorMetadata{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape})
	}
	for _, t := range md.Outputs {
		out.Outputs = append(out.Outputs, &pb.ModelMetadataResponse_TensorMetadata{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape})
	}
	return out, nil
}
