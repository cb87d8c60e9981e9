package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/auth"
)

type ctxKey struct{}

// Header names in their canonical form: net/http canonicalises any other spelling
// anew on every Get and Set, which allocates on every request.
const (
	headerRequestID = "X-Request-Id"
	headerAPIKey    = "X-Api-Key"
)

// reqInfo is what the layers of one request learn about it. Later layers fill it in
// (the validator sets the scope and principal), earlier ones read it when the request
// is done, so it travels as a pointer.
type reqInfo struct {
	id        string
	path      string
	scope     auth.Scope
	principal auth.Principal
	// authed is set once the key has been checked for the operation's scope, from the
	// headers, before the body is read.
	authed bool
	// body is a predict operation's body, decoded once by the validator.
	body *predictInput
}

func infoFrom(ctx context.Context) *reqInfo {
	info, _ := ctx.Value(ctxKey{}).(*reqInfo)
	return info
}

func requestID(ctx context.Context) string {
	if info := infoFrom(ctx); info != nil {
		return info.id
	}
	return ""
}

// saneRequestID accepts a client's X-Request-ID only when it is short and plain, so it
// cannot forge log lines or bloat them.
func saneRequestID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':'
		if !ok {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe is the outermost layer: it gives the request its id, recovers panics, and
// when the request is done writes one log line and records the HTTP metrics under the
// operation id of the route chi matched.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(headerRequestID)
		if !saneRequestID(id) {
			id = newRequestID()
		}
		info := &reqInfo{id: id, path: r.URL.Path}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, info))
		w.Header()[headerRequestID] = []string{id}
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panicked", "request_id", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeProblem(sw, r, http.StatusInternalServerError, codeInternalError, internalDetail)
				}
			}
			op := s.operation(r)
			d := time.Since(start)
			s.metrics.HTTP(op, sw.status, d)
			level := slog.LevelInfo
			if sw.status >= 500 {
				level = slog.LevelError
			}
			if !s.log.Enabled(r.Context(), level) {
				return
			}
			attrs := []slog.Attr{
				slog.String("request_id", id), slog.String("method", r.Method), slog.String("operation", op),
				slog.String("route", chi.RouteContext(r.Context()).RoutePattern()), slog.Int("status", sw.status),
				slog.Duration("duration", d),
			}
			if info.principal.ID != "" {
				attrs = append(attrs, slog.String("key_id", info.principal.ID))
			}
			s.log.LogAttrs(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// operation names the request's route by the contract's operationId, or "unmatched".
func (s *Server) operation(r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return "unmatched"
	}
	method := r.Method
	if method == http.MethodHead { // served as its GET
		method = http.MethodGet
	}
	if op, ok := s.operations[method+" "+rctx.RoutePattern()]; ok {
		return op
	}
	return "unmatched"
}
