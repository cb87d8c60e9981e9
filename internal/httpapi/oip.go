package httpapi

import (
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/middleware"
	"github.com/inferd/inferd/internal/problem"
)

// oipPrefix starts every path of the Open Inference Protocol: their errors take the
// protocol's shape, {"error": ...}, which its clients read.
const oipPrefix = "/v2"

// oipPath reports whether path lies under the Open Inference Protocol's prefix. Every
// answer there takes the protocol's error shape, an unknown path or method included:
// an OIP client reads `error` whatever went wrong.
func oipPath(path string) bool {
	return strings.HasPrefix(path, oipPrefix) && (len(path) == len(oipPrefix) || path[len(oipPrefix)] == '/')
}

// sendError writes p in the shape r's path answers errors in.
func sendError(w http.ResponseWriter, r *http.Request, p api.Problem) {
	middleware.TraceProblem(r.Context(), p)
	if oipPath(r.URL.Path) {
		sendOIPError(w, p)
		return
	}
	sendProblem(w, p)
}

// sendOIPError writes a problem in the protocol's error shape, keeping inferd's code
// and request id beside the message.
func sendOIPError(w http.ResponseWriter, p api.Problem) {
	if (p.Status == http.StatusServiceUnavailable || p.Status == http.StatusTooManyRequests) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(api.OIPError{Error: p.Detail, Code: p.Code, RequestId: p.RequestId})
}

// oipBody applies Triton's rules to a /v2 body, which Triton's and KServe's clients
// count on: Triton never reads a request's Content-Type, so tritonclient sends none
// (and its asyncio flavour application/octet-stream on every POST, JSON included).
// An infer body without one is told JSON or binary by Inference-Header-Content-Length
// alone (see infer); the other POSTs take JSON whatever their (lack of) type says,
// and the validator is told so. Any other declared type is refused 415, as a type the
// protocol does not send. A body compressed with gzip or deflate, as tritonclient
// sends when asked, is decompressed, and MAX_REQUEST_BYTES caps what it decompresses
// to. It answers the request and returns false when the body is refused.
func (s *Server) oipBody(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	mt := ""
	if ct != "" {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			mt = ct
		}
	}
	switch mt {
	case "", "application/octet-stream":
		if !s.isOIPInfer(r) {
			r.Header.Set("Content-Type", "application/json")
		}
	case "application/json":
	default:
		writeProblem(w, r, http.StatusUnsupportedMediaType, problem.CodeUnsupportedMediaType,
			fmt.Sprintf("send the body as Content-Type: application/json or application/octet-stream (or none), not %.60s", ct))
		return false
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	var body io.ReadCloser
	switch enc {
	case "", "identity":
		return true
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			writeProblem(w, r, http.StatusBadRequest, problem.CodeInvalidRequest, "the body is sent with Content-Encoding: gzip, but is not gzip data: "+err.Error())
			return false
		}
		body = zr
	case "deflate":
		// HTTP's deflate is the zlib format (RFC 9110 8.4.1.2), which tritonclient sends.
		zr, err := zlib.NewReader(r.Body)
		if err != nil {
			writeProblem(w, r, http.StatusBadRequest, problem.CodeInvalidRequest, "the body is sent with Content-Encoding: deflate, but is not zlib data: "+err.Error())
			return false
		}
		body = zr
	default:
		writeProblem(w, r, http.StatusUnsupportedMediaType, problem.CodeUnsupportedMediaType,
			fmt.Sprintf("the body is sent with Content-Encoding: %.40s, which the server does not decode; send it uncompressed, or with gzip or deflate", enc))
		return false
	}
	r.Body = body
	r.ContentLength = -1
	r.Header.Del("Content-Encoding")
	r.Header.Del("Content-Length")
	return true
}
