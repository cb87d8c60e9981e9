package page

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/inferd/inferd/internal/problem"
)

// problemErrors makes the error answers of a handler outside the contract (the queue
// dashboard) problems like the API's: a 4xx or 5xx it writes as anything but JSON is
// replaced by a problem whose detail is its text, cut short.
func (p Pages) problemErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pw := &problemWriter{ResponseWriter: w}
		next.ServeHTTP(pw, r)
		if pw.status == 0 {
			return
		}
		h := w.Header()
		h.Del("Content-Type")
		h.Del("X-Content-Type-Options")
		h.Del("Content-Length")
		first, _, _ := strings.Cut(pw.text.String(), "\n")
		text := strings.TrimSpace(first)
		if lower := strings.ToLower(text); pw.status == http.StatusInternalServerError && (strings.Contains(lower, "not found") || strings.Contains(lower, "does not exist")) {
			pw.status = http.StatusNotFound // asynqmon answers 500 for a queue or task it cannot find
		}
		code := codeForStatus(pw.status)
		if code == problem.CodeInternalError {
			p.log().ErrorContext(r.Context(), "queue dashboard failed", "request_id", p.requestID(r.Context()), "status", pw.status, "error", text)
			text = problem.InternalDetail
		}
		if text == "" {
			text = http.StatusText(pw.status)
		}
		p.problem(w, r, pw.status, code, text)
	})
}

// problemWriter holds back an error answer that is not JSON, for problemErrors.
type problemWriter struct {
	http.ResponseWriter
	wrote  bool
	status int // set when the answer is held back
	text   bytes.Buffer
}

func (w *problemWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if code >= 400 && !strings.Contains(w.Header().Get("Content-Type"), "json") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *problemWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.status != 0 {
		if room := 512 - w.text.Len(); room > 0 {
			w.text.Write(b[:min(room, len(b))])
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *problemWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// codeForStatus is the problem code of a status a handler outside the contract chose.
func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return problem.CodeInvalidRequest
	case http.StatusUnauthorized:
		return problem.CodeUnauthorized
	case http.StatusForbidden:
		return problem.CodeForbidden
	case http.StatusNotFound:
		return problem.CodeNotFound
	case http.StatusMethodNotAllowed:
		return problem.CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return problem.CodePayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return problem.CodeUnsupportedMediaType
	case http.StatusServiceUnavailable:
		return problem.CodeQueueUnavailable
	}
	if status < 500 {
		return problem.CodeInvalidRequest
	}
	return problem.CodeInternalError
}
