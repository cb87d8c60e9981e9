package grpcapi

import (
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/inferd/inferd/internal/problem"
)

// TestCodeOf pins the gRPC code of every kind of refusal: the code the kind's HTTP
// status maps to by the usual table (400 and 422 INVALID_ARGUMENT, 409
// FAILED_PRECONDITION, 413 and 429 RESOURCE_EXHAUSTED, ...).
func TestCodeOf(t *testing.T) {
	tests := []struct {
		kind problem.Kind
		want codes.Code
	}{
		{problem.Internal, codes.Internal},
		{problem.Invalid, codes.InvalidArgument},
		{problem.Mismatched, codes.InvalidArgument},
		{problem.Unauthenticated, codes.Unauthenticated},
		{problem.Forbidden, codes.PermissionDenied},
		{problem.NotFound, codes.NotFound},
		{problem.Conflict, codes.FailedPrecondition},
		{problem.TooLarge, codes.ResourceExhausted},
		{problem.Limited, codes.ResourceExhausted},
		{problem.Unavailable, codes.Unavailable},
	}
	for _, tt := range tests {
		t.Run(codeName(tt.want), func(t *testing.T) {
			if got := codeOf(tt.kind); got != tt.want {
				t.Errorf("kind %d (HTTP %d): %v, want %v", tt.kind, tt.kind.HTTPStatus(), got, tt.want)
			}
		})
	}
}
