package httpapi

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/middleware"
	"github.com/inferd/inferd/internal/httpapi/validator"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
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
	body *validator.Input
	// oipBody is an infer operation's body, read once by the validator; nil: none.
	oipBody []byte
	// route is the model and version routing chose for the request, for its log line:
	// filled in by the registry (registry.RouteNoteKey) or by a submission.
	route registry.RouteNote
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

// newRequestID makes 32 random hex digits. An id must be unique, not secret, so it
// comes from the runtime's per-thread generator (ChaCha8, seeded by the system) rather
// than crypto/rand, which asked the kernel on every request.
func newRequestID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	var out [32]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}

// reqState is what observe allocates for a request, in one piece: the status writer,
// the request's info and context, and the slice of its X-Request-Id header.
type reqState struct {
	sw   statusWriter
	info reqInfo
	ctx  reqContext
	hdr  [1]string
}

// reqContext is a request's context: its parent, plus the request's info and chi's
// routing context in one value, so that neither takes a context.WithValue and a copy
// of the request of its own (chi makes both when it finds no routing context).
type reqContext struct {
	context.Context
	info  *reqInfo
	route *chi.Context
}

func (c *reqContext) Value(key any) any {
	switch key {
	case ctxKey{}:
		return c.info
	case chi.RouteCtxKey:
		return c.route
	case registry.RouteNoteKey:
		return &c.info.route
	}
	return c.Context.Value(key)
}

// routeContexts are chi's routing contexts, reused as chi reuses its own: one lives
// as long as its request.
var routeContexts = sync.Pool{New: func() any { return chi.NewRouteContext() }}

// statusWriter remembers the status a handler wrote, and holds the request's place
// under MAX_CONCURRENT_PER_KEY until it is given back.
type statusWriter struct {
	http.ResponseWriter
	status int
	held   *atomic.Int64 // the key's count of requests in progress; nil: none held
	// early says the answer may be sent as soon as it is written (writeJSON): no
	// more than quietConns connections were open when the request came.
	early bool
}

// quietConns is how many open connections still count as a nearly idle server, whose
// answers are sent as soon as they are written (one client and, say, a metrics
// scraper): an early answer cuts a lone client's latency but costs CPU under load,
// and open connections, not requests in handlers, tell the two apart (see
// docs/design.md#quiet-connections).
const quietConns = 2

// ConnState is for http.Server.ConnState: it counts the open connections that tell
// a quiet server (quietConns). A server without it counts as quiet.
func (s *Server) ConnState(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.conns.Add(-1)
	}
}

// giveBack gives the request's place under MAX_CONCURRENT_PER_KEY back, once: when
// the request is done, or earlier, just before its answer is sent (writeJSON).
func (w *statusWriter) giveBack() {
	if w.held != nil {
		w.held.Add(-1)
		w.held = nil
	}
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

// observe is the outermost layer, around the router: it gives the request its id,
// recovers panics, and when the request is done writes one log line and records the
// HTTP metrics under the operation id of the route chi matched.
func (s *Server) observe(router chi.Router) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(headerRequestID)
		if !saneRequestID(id) {
			id = newRequestID()
		}
		rctx := routeContexts.Get().(*chi.Context)
		rctx.Reset()
		rctx.Routes = router
		st := &reqState{info: reqInfo{id: id, path: r.URL.Path}, hdr: [1]string{id}}
		info, sw := &st.info, &st.sw
		sw.ResponseWriter = w
		sw.early = s.conns.Load() <= quietConns
		st.ctx = reqContext{Context: r.Context(), info: info, route: rctx}
		r = r.WithContext(&st.ctx)
		w.Header()[headerRequestID] = st.hdr[:]
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panicked", "request_id", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeProblem(sw, r, http.StatusInternalServerError, problem.CodeInternalError, internalDetail)
				}
			}
			op := s.operation(r)
			end := time.Now()
			d := end.Sub(start)
			if s.opts.Tracer != nil {
				middleware.NameSpan(r, rctx.RoutePattern(), op)
			}
			s.metrics.HTTP(op, sw.status, d)
			middleware.AccessLog{Log: s.log, TraceIDs: s.opts.Tracer != nil}.Write(r, middleware.Line{
				ID: id, Operation: op, Status: sw.status, End: end, Duration: d,
				KeyID: info.principal.ID, Model: info.route.Model, Version: info.route.Version,
			})
			routeContexts.Put(rctx)
		}()
		router.ServeHTTP(sw, r)
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
	if id, ok := s.ops.ID(method, rctx.RoutePattern()); ok {
		return id
	}
	return "unmatched"
}
