package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"
	middleware "github.com/oapi-codegen/nethttp-middleware"

	"github.com/inferd/inferd/gen/api"
)

// oipBodyKey carries an infer body from the validator to the handler.
type oipBodyKey struct{}

// isOIPInfer reports whether r was routed to an infer operation (the table's OIP),
// whose body is read once by oipRead and decoded by internal/oip.
func (s *Server) isOIPInfer(r *http.Request) bool {
	op := s.ops.Lookup(http.MethodPost, routePattern(r))
	return op != nil && op.OIP
}

// oipRead is the validator of the infer operations, in the order decodeOnce keeps:
// the body is read first (413 past the limit), then the parameters and the key are
// checked against the contract as every operation's are (400, 401, 403); the body
// itself is checked by oip.Decode in the handler, which knows tensors.
func (s *Server) oipRead(route *routers.Route, next http.Handler, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	params := map[string]string{}
	if rctx := chi.RouteContext(ctx); rctx != nil {
		for i, k := range rctx.URLParams.Keys {
			v := rctx.URLParams.Values[i]
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
			params[k] = v
		}
	}
	matched := &middleware.ErrorHandlerOptsMatchedRoute{Route: route, PathParams: params}
	fail := func(err error, status int) {
		s.validationError(ctx, err, w, r, middleware.ErrorHandlerOpts{StatusCode: status, MatchedRoute: matched})
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+bytes.MinRead))
		_, err := buf.ReadFrom(r.Body)
		body = buf.Bytes()
		if err != nil {
			fail(&openapi3filter.RequestError{RequestBody: route.Operation.RequestBody.Value, Reason: "reading failed", Err: err}, http.StatusBadRequest)
			return
		}
	}
	if len(body) == 0 {
		fail(&openapi3filter.RequestError{RequestBody: route.Operation.RequestBody.Value, Reason: "value is required but missing"}, http.StatusBadRequest)
		return
	}
	err := openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: s.authenticate, ExcludeRequestBody: true},
	})
	if err != nil {
		fail(err, validationStatus(err))
		return
	}
	next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, oipBodyKey{}, body)))
}

// OipInfer serves an infer call with the body oipRead read.
func (h onePassHandlers) OipInfer(w http.ResponseWriter, r *http.Request, model api.OIPModelName, params api.OipInferParams) {
	if _, ok := r.Context().Value(oipBodyKey{}).([]byte); !ok {
		h.ServerInterface.OipInfer(w, r, model, params)
		return
	}
	h.s.oipServe(w, r, model, "", params.InferenceHeaderContentLength)
}

// OipInferVersion is OipInfer with the version in the path.
func (h onePassHandlers) OipInferVersion(w http.ResponseWriter, r *http.Request, model api.OIPModelName, version api.OIPModelVersion, params api.OipInferVersionParams) {
	if _, ok := r.Context().Value(oipBodyKey{}).([]byte); !ok {
		h.ServerInterface.OipInferVersion(w, r, model, version, params)
		return
	}
	h.s.oipServe(w, r, model, version, params.InferenceHeaderContentLength)
}

func (s *Server) oipServe(w http.ResponseWriter, r *http.Request, model, version string, headerLen *int) {
	body, _ := r.Context().Value(oipBodyKey{}).([]byte)
	res, err := s.infer(r.Context(), model, version, headerLen, body)
	if err == nil {
		err = res.write(w)
	}
	if err != nil {
		s.writeError(w, r, err)
	}
}
