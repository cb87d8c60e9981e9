package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/auth"
)

// MetadataAPIKey is the metadata key of the API key, as REST's X-API-Key header
// (gRPC metadata keys are lowercase).
const MetadataAPIKey = "x-api-key"

// errDuplicateKey marks a call that carries the key more than once: as over REST,
// none of the values is picked.
var errDuplicateKey = errors.New("more than one x-api-key metadata value")

// rule is what a method of the service requires: the security and scope of the
// REST operation it shares its meaning with (op, its operationId), which
// TestMethodsMatchTheContract holds to openapi.yaml's.
type rule struct {
	op      string
	secured bool
	scope   auth.Scope
}

// methods are the service's methods, by name.
var methods = map[string]rule{
	"ServerLive":            {op: "oipServerLive"},
	"ServerReady":           {op: "oipServerReady"},
	"ServerMetadata":        {op: "oipServerMetadata", secured: true, scope: auth.ScopeReadModels},
	"ModelReady":            {op: "oipModelReady", secured: true, scope: auth.ScopeReadModels},
	"ModelMetadata":         {op: "oipModelMetadata", secured: true, scope: auth.ScopeReadModels},
	"ModelInfer":            {op: "oipInfer", secured: true, scope: auth.ScopePredict},
	"ModelConfig":           {op: "oipModelConfig", secured: true, scope: auth.ScopeReadModels},
	"ModelStatistics":       {op: "oipStatistics", secured: true, scope: auth.ScopeReadModels},
	"RepositoryIndex":       {op: "oipRepositoryIndex", secured: true, scope: auth.ScopeReadModels},
	"RepositoryModelLoad":   {op: "oipRepositoryLoad", secured: true, scope: auth.ScopeAdmin},
	"RepositoryModelUnload": {op: "oipRepositoryUnload", secured: true, scope: auth.ScopeAdmin},
}

// servicePrefix starts the full name of the service's methods.
var servicePrefix = "/" + pb.GRPCInferenceService_ServiceDesc.ServiceName + "/"

// Unary is the interceptor of every unary call: it admits the service's calls as REST
// admits its requests (key, scope, failed-key throttle, concurrency and rate limits),
// refuses a message that did not parse (Undecodable) or names a model or version
// longer than any (checkNames), turns errors and panics into statuses, and records
// the call's metrics. Other services (health, reflection) take no key, as REST's
// probes and contract take none.
func (s *Server) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	start := time.Now()
	method := strings.TrimPrefix(info.FullMethod, servicePrefix)
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(ctx, "panic serving a gRPC call", "method", info.FullMethod, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp, err = nil, status.Error(codes.Internal, "the server failed unexpectedly")
		}
		s.opts.Metrics.GRPC(method, codeName(status.Code(err)), time.Since(start))
	}()
	undecodable := Undecodable(req) // taken whatever the admission says, so none is kept
	t, err := s.admit(ctx, method, req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	defer t.Release()
	if undecodable != nil {
		return nil, s.toStatus(ctx, undecodable)
	}
	if err := checkNames(req); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	resp, err = handler(ctx, req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return resp, nil
}

// admit passes a call of the service through the admission its REST operation has.
// The message is decoded by then, so a refusal is counted under the model it names.
func (s *Server) admit(ctx context.Context, name string, req any) (admission.Ticket, error) {
	m, ok := methods[name]
	if !ok || !m.secured {
		return admission.Ticket{}, nil
	}
	var key string
	var keyErr error
	// The key's values alone: FromIncomingContext would copy every metadata entry.
	switch vals := metadata.ValueFromIncomingContext(ctx, MetadataAPIKey); len(vals) {
	case 0:
	case 1:
		key = vals[0]
	default:
		keyErr = fmt.Errorf("%w: %w (%d)", auth.ErrUnauthenticated, errDuplicateKey, len(vals))
	}
	return s.adm.Admit(key, keyErr, m.scope, admission.Call{
		Addr:   func() string { return peerIP(ctx) },
		Labels: func() (string, string) { return name, modelOf(req) },
	})
}

// modelOf is the model a call's message names: ModelInfer's and the repository's
// model_name, the model calls' name; "" for the server's calls.
func modelOf(req any) string {
	switch m := req.(type) {
	case interface{ GetModelName() string }:
		return m.GetModelName()
	case interface{ GetName() string }:
		return m.GetName()
	}
	return ""
}

// peerIP is the caller's IP address, which the failed-key throttle counts by.
func peerIP(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(p.Addr.String())
	if err != nil {
		return p.Addr.String()
	}
	return host
}
