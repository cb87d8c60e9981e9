package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	middleware "github.com/oapi-codegen/nethttp-middleware"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/jsonscan"
)

// validator validates every request against the contract. Its AuthenticationFunc is
// the API-key check, so the scheme and the scope come from openapi.yaml.
//
// It is nethttp-middleware's validator with two differences that the contract fuzzer
// showed were needed: path parameters are validated as the handlers receive them,
// unescaped (gorillamux matches the escaped path and hands them over as sent, so a
// 100-character name of escaped characters failed maxLength), and a JSON body must
// be one value with nothing after it (encoding/json's decoders stop after the first).
//
// The predict operations take a path of their own (decodeOnce) that decodes the body
// once; the route chi matched names the operation, so gorillamux is not asked.
func (s *Server) validator(spec *openapi3.T) (func(http.Handler) http.Handler, error) {
	if err := inferd.NullableAnyValue(spec); err != nil {
		return nil, err
	}
	spec.Servers = nil // match any host: the server does not know the name it is reached by
	routes, err := contractRoutes(spec, s.ops)
	if err != nil {
		return nil, err
	}
	onePass, err := onePassRoutes(spec, s.ops, routes)
	if err != nil {
		return nil, fmt.Errorf("reading the predict operations from the contract: %w", err)
	}
	router, err := gorillamux.NewRouter(spec)
	if err != nil {
		return nil, fmt.Errorf("routing the contract's operations: %w", err)
	}
	opts := &openapi3filter.Options{AuthenticationFunc: s.authenticate}
	// The strict handlers decode the body again from its bytes: the validated value
	// holds numbers as float64, which would round 12345678901234567890. So the
	// validator leaves the body's bytes as they came (KeepValidatedValue unset).
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			op := s.ops.Lookup(r.Method, routePattern(r))
			switch {
			case op != nil && op.FastPath:
				s.decodeOnce(onePass[op], next, w, r)
				return
			case op != nil && op.OIP:
				s.oipRead(routes[op], next, w, r)
				return
			}
			route, params, err := matchedRoute(routes, op, r)
			if route == nil {
				route, params, err = router.FindRoute(r)
			}
			if err != nil {
				s.validationError(r.Context(), err, w, r, middleware.ErrorHandlerOpts{StatusCode: http.StatusNotFound})
				return
			}
			for name, v := range params {
				if u, err := url.PathUnescape(v); err == nil {
					params[name] = u
				}
			}
			matched := &middleware.ErrorHandlerOptsMatchedRoute{Route: route, PathParams: params}
			err = openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
				Request: r, PathParams: params, Route: route, Options: opts,
			})
			if body := route.Operation.RequestBody; body != nil && (err == nil || bodyFault(err)) {
				// A member named twice is the fault to report even when the schema
				// refused the value kin-openapi kept (the last): the client sees why.
				var dup *jsonscan.DuplicateError
				if e := oneJSONValue(r, body.Value); e != nil && (err == nil || errors.As(e, &dup)) {
					err = e
				}
			}
			if err != nil {
				s.validationError(r.Context(), err, w, r, middleware.ErrorHandlerOpts{StatusCode: validationStatus(err), MatchedRoute: matched})
				return
			}
			next.ServeHTTP(w, r)
		})
	}, nil
}

// oneJSONValue refuses a body with data after its JSON value. The validator has read
// the body and put its bytes back, so reading it again costs a copy, not the network.
func oneJSONValue(r *http.Request, body *openapi3.RequestBody) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+bytes.MinRead))
	if _, err := buf.ReadFrom(r.Body); err != nil {
		return &openapi3filter.RequestError{RequestBody: body, Reason: "reading the body", Err: err}
	}
	b := buf.Bytes()
	r.Body = io.NopCloser(bytes.NewReader(b))
	if err := notUTF8(body, b); err != nil {
		return err
	}
	if len(b) > 0 {
		checked := jsonscan.Check(b)
		if err := duplicateMember(body, checked); err != nil {
			return err
		}
		if checked != nil {
			return &openapi3filter.RequestError{RequestBody: body, Reason: "the body must be one JSON value with nothing after it"}
		}
	}
	if n := jsonscan.HugeNumber(b); n != "" {
		return tooHuge(body, n)
	}
	return nil
}

// apiKeyScheme is the contract's one security scheme, the X-API-Key header.
const apiKeyScheme = "ApiKeyAuth"

func (s *Server) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecuritySchemeName != apiKeyScheme {
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
			writeProblem(w, r, http.StatusRequestEntityTooLarge, codePayloadTooLarge, s.tooLarge())
			return
		}
	}
	switch {
	case secErr != nil:
		for _, e := range secErr.Errors {
			if errors.Is(e, auth.ErrForbidden) {
				writeProblem(w, r, http.StatusForbidden, codeForbidden, e.Error()+"; use a key that holds it")
				return
			}
		}
		detail := "send a valid API key in the X-API-Key header"
		for _, e := range secErr.Errors {
			detail = unauthorizedDetail(e, detail)
		}
		writeProblem(w, r, http.StatusUnauthorized, codeUnauthorized, detail)
	case errors.Is(err, errBodyTimeout):
		writeProblem(w, r, http.StatusRequestTimeout, codeRequestTimeout, describeRequestError(err))
	case opts.MatchedRoute == nil:
		writeProblem(w, r, http.StatusNotFound, codeNotFound, "no such endpoint; GET /openapi.yaml lists them")
	case opts.StatusCode >= 500:
		s.log.ErrorContext(ctx, "request validation failed unexpectedly", "request_id", requestID(ctx), "error", err)
		writeProblem(w, r, http.StatusInternalServerError, codeInternalError, internalDetail)
	default:
		writeProblem(w, r, http.StatusBadRequest, codeInvalidRequest, describeRequestError(err))
	}
}

// describeRequestError turns kin-openapi's error into one line a person can act on:
// where in the request, and what is wrong.
func describeRequestError(err error) string {
	var reqErr *openapi3filter.RequestError
	if !errors.As(err, &reqErr) {
		return firstLine(err.Error())
	}
	var where string
	switch {
	case reqErr.Parameter != nil:
		where = fmt.Sprintf("%s parameter %q", reqErr.Parameter.In, reqErr.Parameter.Name)
	case reqErr.RequestBody != nil:
		where = "body"
	}
	var schemaErr *openapi3.SchemaError
	if errors.As(reqErr.Err, &schemaErr) {
		field := strings.Join(schemaErr.JSONPointer(), ".")
		if field != "" {
			where += " field " + field
		}
		return fmt.Sprintf("%s: %s", where, schemaErr.Reason)
	}
	if reqErr.RequestBody != nil && errors.Is(reqErr.Err, openapi3filter.ErrInvalidRequired) {
		return "body: the request has no body; send the JSON object this operation takes (GET /openapi.yaml has its schema)"
	}
	if num, ok := notANumber(reqErr.Err); ok && reqErr.Parameter != nil {
		return where + ": " + num
	}
	msg := reqErr.Reason
	if reqErr.Err != nil {
		msg = firstLine(reqErr.Err.Error())
	}
	if where == "" {
		return msg
	}
	return where + ": " + msg
}

// notANumber words kin-openapi's error for a parameter that is no number, or out of
// range, if err is one.
func notANumber(err error) (string, bool) {
	var parse *openapi3filter.ParseError
	if !errors.As(err, &parse) || parse.Kind != openapi3filter.KindInvalidFormat || !strings.HasPrefix(parse.Reason, "an invalid ") {
		return "", false
	}
	value, _ := parse.Value.(string)
	switch {
	case errors.Is(parse.Cause, strconv.ErrRange):
		return fmt.Sprintf("%q is out of range", value), true
	case parse.Reason == "an invalid integer":
		return fmt.Sprintf("%q is not a whole number", value), true
	}
	return fmt.Sprintf("%q is not a number", value), true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// bodyFault reports whether the validator refused the body itself (its value, not
// its reading, which a body cut off at MAX_REQUEST_BYTES fails).
func bodyFault(err error) bool {
	var reqErr *openapi3filter.RequestError
	var tooBig *http.MaxBytesError
	return errors.As(err, &reqErr) && reqErr.RequestBody != nil && !errors.As(err, &tooBig) && !errors.Is(err, errBodyTimeout)
}

// validationStatus is the status class of a validator's error: 401 for a failed
// security requirement, 400 for the request's own fault, 500 for anything else.
func validationStatus(err error) int {
	var secErr *openapi3filter.SecurityRequirementsError
	var reqErr *openapi3filter.RequestError
	switch {
	case errors.As(err, &secErr):
		return http.StatusUnauthorized
	case !errors.As(err, &reqErr):
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}
