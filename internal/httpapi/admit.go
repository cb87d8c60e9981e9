package httpapi

import (
	"context"

	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/problem"
)

// Admission is the server's admission (keys, scopes, the failed-key throttle,
// concurrency and rate limits), for the calls that come by another listener (gRPC) to
// share them.
func (s *Server) Admission() *admission.Admission { return s.admission }

// Admit lets a call that came by another listener (gRPC) through the gate an HTTP
// request passes (admission.Admit).
func (s *Server) Admit(addr, op, model, key string, keyErr error, scope auth.Scope) (release func(), p auth.Principal, err error) {
	t, err := s.admission.Admit(admission.Call{Key: key, KeyErr: keyErr, Scope: scope,
		Addr: func() string { return addr }, Labels: func() (string, string) { return op, model }})
	if err != nil {
		return nil, auth.Principal{}, err
	}
	return t.Release, t.Principal, nil
}

// Problem words err as the HTTP API answers it: the kind of refusal, the problem code
// and the detail. An unexpected error is logged and worded without its text, a load
// error without the server's paths.
func (s *Server) Problem(ctx context.Context, err error) (kind problem.Kind, code, detail string) {
	return s.word(ctx, err)
}

// OIP is the service of the Open Inference Protocol's calls about the server and its
// models that /v2 answers, for gRPC to answer them the same.
func (s *Server) OIP() *oip.Service { return s.oip }

// Operation is the contract's operation of that id (nil when there is none): its
// security and scope are what a gRPC method of the same meaning requires. Handler
// must have been built.
func (s *Server) Operation(id string) *operation.Operation { return s.ops.ByID(id) }
