package httpapi

import (
	"context"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/problem"
)

// Admit lets a call that came by another listener (gRPC) through the gate an HTTP
// request passes, so both protocols share one set of keys, scopes and limits: key (or
// keyErr, when the caller could not tell one key) is authorized for scope on behalf of
// the client at addr, a failed key is charged to the failed-key throttle, and the
// key's concurrency and rate limits are applied. op and model (the model the call
// names, "" for none) label the refusals in inferd_rate_limited_requests_total. Errors wrap auth.ErrUnauthenticated or
// auth.ErrForbidden, or are a *LimitError; release must be called once the call is
// done when err is nil.
func (s *Server) Admit(addr, op, model, key string, keyErr error, scope auth.Scope) (release func(), p auth.Principal, err error) {
	label := func() (string, string) { return op, model }
	p, err = s.authorizeFrom(func() string { return addr }, label, key, keyErr, scope)
	if err != nil {
		return nil, auth.Principal{}, err
	}
	n, err := s.admitAs(label, p, scope)
	if err != nil {
		return nil, auth.Principal{}, err
	}
	if n == nil {
		return func() {}, p, nil
	}
	return func() { n.Add(-1) }, p, nil
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
