package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/problem"
)

// gate is the first layer after routing. From the headers alone, before any byte of
// the body is read (so a bad key gets no 100 Continue either), it has the admission
// refuse a client that failed authentication too often (429), check the key and the
// operation's scope (401, 403), cap the key's concurrent requests (429) and charge its
// rate limit (429). Only then do the body's limits and validation read the body.
func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := s.ops.Lookup(r.Method, routePattern(r))
		if g == nil || !g.Secured {
			next.ServeHTTP(w, r)
			return
		}
		_, keyErr := apiKey(r) // two X-API-Key headers are refused, never resolved to one
		t, err := s.admission.Admit(r.Header.Get(headerAPIKey), keyErr, g.Scope, admission.Call{
			Addr:   func() string { return s.proxies.clientAddr(r) },
			Labels: func() (string, string) { return s.refusalLabels(r) },
		})
		s.noteKey(r, g.Scope, t.Principal, t.Authorized)
		if err != nil {
			s.writeRefusal(w, r, err)
			return
		}
		if t.Held != nil {
			if sw, ok := w.(*statusWriter); ok {
				sw.held = t.Held // given back before the answer goes out (writeJSON)
				defer sw.giveBack()
			} else {
				defer t.Release()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// writeRefusal answers a request the admission refused: 403, 401, or a limit's 429.
func (s *Server) writeRefusal(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, auth.ErrForbidden):
		writeProblem(w, r, http.StatusForbidden, problem.CodeForbidden, err.Error()+"; use a key that holds it")
	case errors.Is(err, auth.ErrUnauthenticated):
		writeProblem(w, r, http.StatusUnauthorized, problem.CodeUnauthorized, unauthorizedDetail(err, "send a valid API key in the X-API-Key header"))
	default:
		s.writeLimit(w, r, err)
	}
}

func retrySeconds(d time.Duration) int { return admission.RetrySeconds(d) }

// writeLimit answers a *admission.LimitError with 429 and its Retry-After.
func (s *Server) writeLimit(w http.ResponseWriter, r *http.Request, err error) {
	var le *admission.LimitError
	if !errors.As(err, &le) {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Retry-After", strconv.Itoa(le.Retry))
	writeProblem(w, r, http.StatusTooManyRequests, le.Code, le.Detail)
}

// noteKey records the outcome of r's authorization on the request for the layers after
// it and the log line.
func (s *Server) noteKey(r *http.Request, scope auth.Scope, p auth.Principal, authed bool) {
	if info := infoFrom(r.Context()); info != nil {
		info.scope, info.principal, info.authed = scope, p, authed
	}
}

// checkKey authorizes key for scope on behalf of r's client (admission.Authorize),
// and records the outcome on the request.
func (s *Server) checkKey(r *http.Request, key string, scope auth.Scope) (auth.Principal, error) {
	_, keyErr := apiKey(r) // two X-API-Key headers are refused, never resolved to one
	p, err := s.admission.Authorize(key, keyErr, scope, admission.Call{
		Addr:   func() string { return s.proxies.clientAddr(r) },
		Labels: func() (string, string) { return s.refusalLabels(r) },
	})
	s.noteKey(r, scope, p, err == nil)
	return p, err
}

// admit applies the authenticated key's limits (admission.Limit) to r.
func (s *Server) admit(r *http.Request, p auth.Principal, scope auth.Scope) (*atomic.Int64, error) {
	return s.admission.Limit(func() (string, string) { return s.refusalLabels(r) }, p, scope)
}

// refusalLabels names r's operation and the model its path names ("" when it names
// none: /predict's model is in the body, which no limit waits to read), the labels of
// a refusal in inferd_rate_limited_requests_total, which the metrics keep to the
// models the registry holds.
func (s *Server) refusalLabels(r *http.Request) (op, model string) {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		if model = rctx.URLParam("model_name"); model == "" { // the /v2 routes
			model = rctx.URLParam("name") // /models/{name}/{version}, /admin/models/{name}/...
		}
	}
	return s.operation(r), model
}
