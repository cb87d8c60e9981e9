package httpapi

import (
	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/problem"
)

// Admission is the server's admission (keys, scopes, the failed-key throttle,
// concurrency and rate limits), for the calls that come by another listener (gRPC) to
// share them.
func (s *Server) Admission() *admission.Admission { return s.admission }

// Wording words the domain's errors as the HTTP API answers them, for gRPC to answer
// them the same.
func (s *Server) Wording() *problem.Wording { return s.wording }

// OIP is the service of the Open Inference Protocol's calls about the server and its
// models and Triton's extensions that /v2 answers, for gRPC to answer them the same.
func (s *Server) OIP() *oip.Service { return s.oip }
