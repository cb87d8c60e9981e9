package validator

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
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/go-chi/chi/v5"
	middleware "github.com/oapi-codegen/nethttp-middleware"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/jsonscan"
)

// Config is what the validator needs of the server around it.
type Config struct {
	// Spec is the validator's own copy of the contract; New makes its AnyValue
	// nullable and clears its servers.
	Spec *openapi3.T
	// Operations is the contract's operations table: it says which request path each
	// operation takes.
	Operations *operation.Table
	// Authenticate is kin-openapi's AuthenticationFunc, the API-key check, so the
	// scheme and the scope come from openapi.yaml.
	Authenticate openapi3filter.AuthenticationFunc
	// Authed reports whether the key of the request has already been checked for its
	// operation's scope (by the gate, from the headers).
	Authed func(ctx context.Context) bool
	// Decoded hands a predict operation's decoded body on to its handler.
	Decoded func(ctx context.Context, in *Input)
	// OIPRead hands an infer operation's body, read whole, on to its handler.
	OIPRead func(ctx context.Context, body []byte)
	// Fail answers a request the validator refused with err; opts carries the status
	// class and the matched route, as nethttp-middleware's error handler gets them.
	Fail func(ctx context.Context, err error, w http.ResponseWriter, r *http.Request, opts middleware.ErrorHandlerOpts)
}

// Validator validates every request against the contract.
type Validator struct {
	cfg     Config
	routes  map[*operation.Operation]*routers.Route
	onePass map[*operation.Operation]*bodyRoute
	// oipPlain holds the infer operations whose plain requests skip kin-openapi.
	oipPlain map[*operation.Operation]oipPlain
	router   routers.Router
	opts     *openapi3filter.Options
}

// New reads cfg.Spec for the validator.
func New(cfg Config) (*Validator, error) {
	spec := cfg.Spec
	if err := inferd.NullableAnyValue(spec); err != nil {
		return nil, err
	}
	spec.Servers = nil // match any host: the server does not know the name it is reached by
	routes, err := contractRoutes(spec, cfg.Operations)
	if err != nil {
		return nil, err
	}
	onePass, err := onePassRoutes(spec, cfg.Operations, routes)
	if err != nil {
		return nil, fmt.Errorf("reading the predict operations from the contract: %w", err)
	}
	router, err := gorillamux.NewRouter(spec)
	if err != nil {
		return nil, fmt.Errorf("routing the contract's operations: %w", err)
	}
	plain := map[*operation.Operation]oipPlain{}
	for _, o := range cfg.Operations.All() {
		if !o.OIP {
			continue
		}
		if p, ok := newOIPPlain(spec, routes[o]); ok {
			plain[o] = p
		}
	}
	return &Validator{cfg: cfg, routes: routes, onePass: onePass, oipPlain: plain, router: router,
		opts: &openapi3filter.Options{AuthenticationFunc: cfg.Authenticate}}, nil
}

// Middleware validates every request before next sees it.
//
// It is nethttp-middleware's validator with two differences that the contract fuzzer
// showed were needed: path parameters are validated as the handlers receive them,
// unescaped (gorillamux matches the escaped path and hands them over as sent, so a
// 100-character name of escaped characters failed maxLength), and a JSON body must
// be one value with nothing after it (encoding/json's decoders stop after the first).
//
// The predict operations take a path of their own (decodeOnce) that decodes the body
// once, and the infer operations one (oipRead) that reads it once; the route chi
// matched names the operation, so gorillamux is not asked.
//
// The strict handlers decode the body again from its bytes: the validated value
// holds numbers as float64, which would round 12345678901234567890. So the validator
// leaves the body's bytes as they came (KeepValidatedValue unset).
func (v *Validator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := v.cfg.Operations.Lookup(r.Method, routePattern(r))
		switch {
		case op != nil && op.FastPath:
			v.decodeOnce(v.onePass[op], next, w, r)
			return
		case op != nil && op.OIP:
			plain, ok := v.oipPlain[op]
			v.oipRead(v.routes[op], plain, ok, next, w, r)
			return
		}
		route, params, err := matchedRoute(v.routes, op, r)
		if route == nil {
			route, params, err = v.router.FindRoute(r)
		}
		if err != nil {
			v.cfg.Fail(r.Context(), err, w, r, middleware.ErrorHandlerOpts{StatusCode: http.StatusNotFound})
			return
		}
		for name, p := range params {
			if u, err := url.PathUnescape(p); err == nil {
				params[name] = u
			}
		}
		matched := &middleware.ErrorHandlerOptsMatchedRoute{Route: route, PathParams: params}
		err = openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
			Request: r, PathParams: params, Route: route, Options: v.opts,
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
			v.cfg.Fail(r.Context(), err, w, r, middleware.ErrorHandlerOpts{StatusCode: Status(err), MatchedRoute: matched})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func routePattern(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		return rctx.RoutePattern()
	}
	return ""
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

// Describe turns kin-openapi's error into one line a person can act on: where in the
// request, and what is wrong.
func Describe(err error) string {
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
	return errors.As(err, &reqErr) && reqErr.RequestBody != nil && !errors.As(err, &tooBig) && !errors.Is(err, ErrBodyTimeout)
}

// Status is the status class of a validator's error: 401 for a failed security
// requirement, 400 for the request's own fault, 500 for anything else.
func Status(err error) int {
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
