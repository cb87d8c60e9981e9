package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/problem"
)

// hasBody reports whether a request carries a body, chunked ones (no Content-Length)
// included.
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// refuseBody answers 413 to a request with a body on a method whose operations take
// none (GET, HEAD, DELETE): such a body is either a client's mistake or an attempt to
// make the server read what it never needs.
func refuseBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodPost || !hasBody(r) {
		return false
	}
	writeProblem(w, r, http.StatusRequestEntityTooLarge, problem.CodePayloadTooLarge, fmt.Sprintf("%s %s takes no request body", r.Method, r.URL.Path))
	return true
}

// refuseBodyless is refuseBody for the POST operations the contract gives no request
// body (reload), which ignored one until the contract fuzzer sent it.
func (s *Server) refuseBodyless(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || !hasBody(r) {
		return false
	}
	if op := s.ops.Lookup(r.Method, routePattern(r)); op == nil || !op.Bodyless {
		return false
	}
	writeProblem(w, r, http.StatusRequestEntityTooLarge, problem.CodePayloadTooLarge, fmt.Sprintf("%s %s takes no request body", r.Method, r.URL.Path))
	return true
}

func routePattern(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		return rctx.RoutePattern()
	}
	return ""
}

// limitBody answers 415 to a body that is not JSON and caps every body at
// MaxRequestBytes. The cap is a reader, not a Content-Length check, so a chunked body
// is cut off as soon as it passes the limit; the validator reports the cut as 413.
// Under /v2 the rules are Triton's, which its clients count on (see oipBody).
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuseBody(w, r) || s.refuseBodyless(w, r) {
			return
		}
		if r.Method != http.MethodPost || !hasBody(r) {
			next.ServeHTTP(w, r)
			return
		}
		oip := oipPath(r.URL.Path)
		if oip {
			if !s.oipBody(w, r) {
				return
			}
		} else if refuseEncoding(w, r) || !jsonBody(w, r) {
			return
		}
		if r.ContentLength > s.opts.MaxRequestBytes {
			writeProblem(w, r, http.StatusRequestEntityTooLarge, problem.CodePayloadTooLarge, s.tooLarge())
			return
		}
		if r.ContentLength < 0 {
			// A body of a declared length (checked above) cannot pass it: net/http reads no
			// further. Only a chunked (or decompressed) one needs counting.
			r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes)
		}
		next.ServeHTTP(w, r)
	})
}

// jsonBody answers 415 to a body not sent as application/json.
func jsonBody(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "application/json" { // the common spelling needs no parsing
		return true
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return true
	}
	if ct == "" {
		ct = "none"
	}
	writeProblem(w, r, http.StatusUnsupportedMediaType, problem.CodeUnsupportedMediaType,
		fmt.Sprintf("send the body as Content-Type: application/json, not %s", ct))
	return false
}

func (s *Server) tooLarge() string {
	return fmt.Sprintf("the request body exceeds %d bytes (MAX_REQUEST_BYTES); split the batch or send less data", s.opts.MaxRequestBytes)
}

// refuseEncoding answers 415 to a body sent with a Content-Encoding (gzip, say): the
// server decodes none, and reading compressed bytes as JSON gave a 400 that blamed
// the JSON instead of the encoding.
func refuseEncoding(w http.ResponseWriter, r *http.Request) bool {
	enc := r.Header.Get("Content-Encoding")
	if !hasBody(r) || enc == "" || strings.EqualFold(strings.TrimSpace(enc), "identity") {
		return false
	}
	writeProblem(w, r, http.StatusUnsupportedMediaType, problem.CodeUnsupportedMediaType,
		fmt.Sprintf("the body is sent with Content-Encoding: %.40s, which the server does not decode; send it uncompressed", enc))
	return true
}
