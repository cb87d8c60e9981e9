package validator

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"
	middleware "github.com/oapi-codegen/nethttp-middleware"
)

// oipRead is the validator of the infer operations. As for decodeOnce, the gate has
// already answered from the headers, before the body was read: the key, its scope,
// its concurrency and its rate limit (401, 403, 429). Here the body is read whole
// (413 past the limit, 400 when there is none), then the parameters and the security
// requirements are checked against the contract as every operation's are (400, 401,
// 403); the body itself is checked by oip.Decode in the handler, which knows tensors.
// A request whose parameters are plain (oipPlain) and whose key the gate checked
// skips kin-openapi, which would find nothing to refuse.
func (v *Validator) oipRead(route *routers.Route, plain oipPlain, hasPlain bool, next http.Handler, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// The parameters stay on the stack on the way of a plain request: only a refusal
	// or kin-openapi takes a copy (heapParams) to keep.
	params := make(map[string]string, 4)
	if rctx := chi.RouteContext(ctx); rctx != nil {
		for i, k := range rctx.URLParams.Keys {
			v := rctx.URLParams.Values[i]
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
			params[k] = v
		}
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+bytes.MinRead))
		_, err := buf.ReadFrom(r.Body)
		body = buf.Bytes()
		if err != nil {
			v.oipFail(ctx, route, heapParams(params), w, r, &openapi3filter.RequestError{RequestBody: route.Operation.RequestBody.Value, Reason: "reading failed", Err: err}, http.StatusBadRequest)
			return
		}
	}
	if len(body) == 0 {
		v.oipFail(ctx, route, heapParams(params), w, r, &openapi3filter.RequestError{RequestBody: route.Operation.RequestBody.Value, Reason: "value is required but missing"}, http.StatusBadRequest)
		return
	}
	if !hasPlain || !plain.passes(r, params, v.cfg.Authed(ctx)) {
		kept := heapParams(params)
		err := openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{
			Request: r, PathParams: kept, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: v.cfg.Authenticate, ExcludeRequestBody: true},
		})
		if err != nil {
			v.oipFail(ctx, route, kept, w, r, err, Status(err))
			return
		}
	}
	v.cfg.OIPRead(ctx, body)
	next.ServeHTTP(w, r)
}

// oipFail answers an infer request the validator refused.
func (v *Validator) oipFail(ctx context.Context, route *routers.Route, params map[string]string, w http.ResponseWriter, r *http.Request, err error, status int) {
	matched := &middleware.ErrorHandlerOptsMatchedRoute{Route: route, PathParams: params}
	v.cfg.Fail(ctx, err, w, r, middleware.ErrorHandlerOpts{StatusCode: status, MatchedRoute: matched})
}

// heapParams copies path parameters for a value that keeps them, so that the map
// read on the way of every request need not outlive it.
func heapParams(params map[string]string) map[string]string {
	kept := make(map[string]string, len(params))
	for k, v := range params {
		kept[k] = v
	}
	return kept
}
