package middleware

import (
	"net/http"
	"strings"
)

// What a browser may do from an allowed origin. X-Request-ID is allowed so a client
// can correlate its own ids; X-Model-Version is exposed because clients read it.
const (
	corsAllowMethods  = "GET, HEAD, POST, DELETE"
	corsAllowHeaders  = "X-API-Key, Content-Type, X-Request-ID"
	corsExposeHeaders = "X-Request-ID, Retry-After, X-Model-Version"
	// corsMaxAge (seconds) lets a browser reuse a preflight for ten minutes: long enough
	// to spare a round trip per call, short enough that a changed
	// CORS_ALLOWED_ORIGINS reaches open pages soon.
	corsMaxAge = "600"
)

// corsPolicy answers CORS for the origins of CORS_ALLOWED_ORIGINS.
type corsPolicy struct {
	any     bool
	origins map[string]bool
}

// newCORS returns nil, no CORS at all, for an empty list.
func newCORS(origins []string) *corsPolicy {
	if len(origins) == 0 {
		return nil
	}
	c := &corsPolicy{origins: map[string]bool{}}
	for _, o := range origins {
		if o == "*" {
			c.any = true
		}
		c.origins[strings.ToLower(o)] = true
	}
	return c
}

func (c *corsPolicy) allows(origin string) bool {
	return origin != "" && (c.any || c.origins[strings.ToLower(origin)])
}

// CORS answers CORS for origins (CORS_ALLOWED_ORIGINS: the origins, or just "*");
// an empty list adds no CORS headers at all. It runs before routing and auth: a
// preflight carries no key (browsers never send one), and must be answered for every
// path a browser may call. A request from an origin that is not listed is served as if
// it had none, without CORS headers, so the browser refuses to hand the answer to the
// page.
func CORS(origins []string) func(http.Handler) http.Handler {
	c := newCORS(origins)
	return func(next http.Handler) http.Handler {
		if c == nil {
			return next
		}
		return cors(c, next)
	}
}

func cors(c *corsPolicy, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// Caches must not serve one origin's answer to another, or to a request without
		// an Origin.
		h.Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if !c.allows(origin) {
			next.ServeHTTP(w, r)
			return
		}
		allow := origin
		if c.any {
			allow = "*"
		}
		h.Set("Access-Control-Allow-Origin", allow)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
	})
}
