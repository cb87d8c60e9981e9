package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
	middleware "github.com/oapi-codegen/nethttp-middleware"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/httpapi/validator"
	"github.com/inferd/inferd/internal/problem"
)

// authenticate is the validator's AuthenticationFunc: the API-key check, for the scope
// the operations table gives the operation.
func (s *Server) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecuritySchemeName != operation.APIKeyScheme {
		return fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName)
	}
	if info := infoFrom(ctx); info != nil && info.authed {
		return nil // the gate has checked the key for this operation's scope
	}
	var scope auth.Scope
	if route := in.RequestValidationInput.Route; route != nil {
		if op := s.ops.Lookup(route.Method, route.Path); op != nil {
			scope = op.Scope
		}
	}
	p, err := s.authorize(in.RequestValidationInput.Request, scope)
	if info := infoFrom(ctx); info != nil {
		info.scope, info.principal = scope, p
	}
	return err
}

// validationError renders the validator's failures as problems: 401 and 403 from the
// key check, 413 for a body cut off at MAX_REQUEST_BYTES, 400 for the rest.
func (s *Server) validationError(ctx context.Context, err error, w http.ResponseWriter, r *http.Request, opts middleware.ErrorHandlerOpts) {
	var secErr *openapi3filter.SecurityRequirementsError
	causes := []error{err}
	if errors.As(err, &secErr) {
		// The security check may read the body too, so a body cut off at the limit can
		// surface as a failed security requirement.
		causes = secErr.Errors
	}
	for _, e := range causes {
		var tooBig *http.MaxBytesError
		if errors.As(e, &tooBig) {
			writeProblem(w, r, http.StatusRequestEntityTooLarge, problem.CodePayloadTooLarge, s.tooLarge())
			return
		}
	}
	switch {
	case secErr != nil:
		for _, e := range secErr.Errors {
			if errors.Is(e, auth.ErrForbidden) {
				writeProblem(w, r, http.StatusForbidden, problem.CodeForbidden, e.Error()+"; use a key that holds it")
				return
			}
		}
		detail := "send a valid API key in the X-API-Key header"
		for _, e := range secErr.Errors {
			detail = unauthorizedDetail(e, detail)
		}
		writeProblem(w, r, http.StatusUnauthorized, problem.CodeUnauthorized, detail)
	case errors.Is(err, validator.ErrBodyTimeout):
		writeProblem(w, r, http.StatusRequestTimeout, problem.CodeRequestTimeout, validator.Describe(err))
	case opts.MatchedRoute == nil:
		writeProblem(w, r, http.StatusNotFound, problem.CodeNotFound, "no such endpoint; GET /openapi.yaml lists them")
	case opts.StatusCode >= 500:
		s.log.ErrorContext(ctx, "request validation failed unexpectedly", "request_id", requestID(ctx), "error", err)
		writeProblem(w, r, http.StatusInternalServerError, problem.CodeInternalError, internalDetail)
	default:
		writeProblem(w, r, http.StatusBadRequest, problem.CodeInvalidRequest, validator.Describe(err))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
