package problem_test

import (
	"net/http"
	"testing"

	"github.com/inferd/inferd/internal/problem"
)

// TestHTTPStatus pins each kind's HTTP status, written as a plain number in the
// package.
func TestHTTPStatus(t *testing.T) {
	tests := []struct {
		kind problem.Kind
		want int
	}{
		{problem.Internal, http.StatusInternalServerError},
		{problem.Invalid, http.StatusBadRequest},
		{problem.Mismatched, http.StatusUnprocessableEntity},
		{problem.Unauthenticated, http.StatusUnauthorized},
		{problem.Forbidden, http.StatusForbidden},
		{problem.NotFound, http.StatusNotFound},
		{problem.Conflict, http.StatusConflict},
		{problem.TooLarge, http.StatusRequestEntityTooLarge},
		{problem.Limited, http.StatusTooManyRequests},
		{problem.Unavailable, http.StatusServiceUnavailable},
		{problem.Kind(200), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.want), func(t *testing.T) {
			if got := tt.kind.HTTPStatus(); got != tt.want {
				t.Errorf("kind %d: %d, want %d", tt.kind, got, tt.want)
			}
		})
	}
}
