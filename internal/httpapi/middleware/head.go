package middleware

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// HeadAsGet serves HEAD as the GET of the same path, so that every GET route answers
// HEAD with the same status and headers (RFC 9110 9.3.2) and everything after it (the
// router, the contract's validator, auth, scopes) sees the GET operation the contract
// lists. The body is dropped by net/http itself, which knows the request was a HEAD;
// dropping it here instead would lose the Content-Length net/http computes from it.
// The outer layers (logs, metrics) still see the HEAD.
func HeadAsGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			r = r.WithContext(r.Context()) // a copy: the caller's request stays a HEAD
			r.Method = http.MethodGet
		}
		next.ServeHTTP(w, r)
	})
}

// AllowedMethods lists the methods the router has for the request's path, for the
// Allow header of a 405; HEAD goes with GET.
func AllowedMethods(r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil {
		return ""
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := m
		if m == http.MethodHead {
			probe = http.MethodGet
		}
		if rctx.Routes.Match(chi.NewRouteContext(), probe, path) {
			allow = append(allow, m)
		}
	}
	return strings.Join(allow, ", ")
}
