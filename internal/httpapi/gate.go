package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/problem"
)

// gate is the first layer after routing. From the headers alone, before any byte of
// the body is read (so a bad key gets no 100 Continue either), it refuses a client
// that failed authentication too often (429), checks the key and the operation's
// scope (401, 403), caps the key's concurrent requests (429) and charges its rate
// limit (429). Only then do the body's limits and validation read the body.
func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := s.ops.Lookup(r.Method, routePattern(r))
		if g == nil || !g.Secured {
			next.ServeHTTP(w, r)
			return
		}
		p, err := s.checkKey(r, r.Header.Get(headerAPIKey), g.Scope)
		switch {
		case errors.Is(err, auth.ErrForbidden):
			writeProblem(w, r, http.StatusForbidden, problem.CodeForbidden, err.Error()+"; use a key that holds it")
			return
		case errors.Is(err, auth.ErrUnauthenticated):
			writeProblem(w, r, http.StatusUnauthorized, problem.CodeUnauthorized, unauthorizedDetail(err, "send a valid API key in the X-API-Key header"))
			return
		case err != nil:
			s.writeLimit(w, r, err)
			return
		}
		n, err := s.admit(r, p, g.Scope)
		if err != nil {
			s.writeLimit(w, r, err)
			return
		}
		if n != nil {
			if sw, ok := w.(*statusWriter); ok {
				sw.held = n // given back before the answer goes out (writeJSON)
				defer sw.giveBack()
			} else {
				defer n.Add(-1)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// LimitError is a refusal for load: a 429 with its code and Retry-After over HTTP,
// RESOURCE_EXHAUSTED with the same detail and a retry delay over gRPC.
type LimitError struct {
	Code   string // the problem code: rate_limited, concurrency_limited, auth_throttled
	Detail string
	Retry  int // seconds
}

func (e *LimitError) Error() string { return e.Detail }

func retrySeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

func (s *Server) writeLimit(w http.ResponseWriter, r *http.Request, err error) {
	var le *LimitError
	if !errors.As(err, &le) {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Retry-After", strconv.Itoa(le.Retry))
	writeProblem(w, r, http.StatusTooManyRequests, le.Code, le.Detail)
}

// checkKey authorizes key for scope on behalf of r's client, and records the outcome
// on the request for the layers after it and the log line.
func (s *Server) checkKey(r *http.Request, key string, scope auth.Scope) (auth.Principal, error) {
	_, err := apiKey(r) // two X-API-Key headers are refused, never resolved to one
	p, err := s.authorizeFrom(func() string { return s.proxies.clientAddr(r) }, s.refusalLabels(r), key, err, scope)
	if info := infoFrom(r.Context()); info != nil {
		info.scope, info.principal, info.authed = scope, p, err == nil
	}
	return p, err
}

// refusalLabels names r's operation and the model its path names ("" when it names
// none: /predict's model is in the body, which no limit waits to read), the labels of
// a refusal in inferd_rate_limited_requests_total, which the metrics keep to the
// models the registry holds.
func (s *Server) refusalLabels(r *http.Request) func() (op, model string) {
	return func() (string, string) {
		model := ""
		if rctx := chi.RouteContext(r.Context()); rctx != nil {
			if model = rctx.URLParam("model_name"); model == "" { // the /v2 routes
				model = rctx.URLParam("name") // /models/{name}/{version}, /admin/models/{name}/...
			}
		}
		return s.operation(r), model
	}
}

// authorizeFrom authorizes key for scope unless keyErr already refused it. A missing
// or unknown key is a failure charged to the client's address and that key; once they
// have failed too often, the answer is a *LimitError (429) instead of 401. A valid key
// is never throttled, whatever other clients at the same address do. addr and labels
// are asked for only when needed: the client's address and a refusal's metric labels.
func (s *Server) authorizeFrom(addr func() string, labels func() (op, model string), key string, keyErr error, scope auth.Scope) (auth.Principal, error) {
	var p auth.Principal
	err := keyErr
	if err == nil {
		p, err = s.keys.Authorize(key, scope)
	}
	if errors.Is(err, auth.ErrUnauthenticated) {
		if d := s.authFails.failed(addr(), key); d > 0 {
			secs := retrySeconds(d)
			op, model := labels()
			s.metrics.RateLimited(op, problem.CodeAuthThrottled, model)
			return auth.Principal{}, &LimitError{Code: problem.CodeAuthThrottled, Retry: secs, Detail: fmt.Sprintf(
				"more than %d failed authentications a minute with this key from this address (AUTH_FAILURES_PER_MINUTE); retry after %d s with a valid key",
				s.authFails.perMinute, secs)}
		}
	}
	return p, err
}

// admit applies the authenticated key's limits: its concurrent requests, then, on
// predict-scope operations, its token bucket. The counter it returns (nil when there
// is no cap) must be given back with Add(-1) when the request is done.
func (s *Server) admit(r *http.Request, p auth.Principal, scope auth.Scope) (*atomic.Int64, error) {
	return s.admitAs(s.refusalLabels(r), p, scope)
}

func (s *Server) admitAs(labels func() (op, model string), p auth.Principal, scope auth.Scope) (*atomic.Int64, error) {
	var n *atomic.Int64
	if s.inflight != nil {
		if n = s.inflight.acquire(p.ID); n == nil {
			op, model := labels()
			s.metrics.RateLimited(op, problem.CodeConcurrencyLimited, model)
			return nil, &LimitError{Code: problem.CodeConcurrencyLimited, Retry: retryAfterSeconds, Detail: fmt.Sprintf(
				"this key already has %d requests in progress (MAX_CONCURRENT_PER_KEY); retry when one has been answered", s.inflight.max)}
		}
	}
	if s.limiter != nil && scope == auth.ScopePredict {
		if ok, wait := s.limiter.allow(p.ID); !ok {
			if n != nil {
				n.Add(-1)
			}
			secs := retrySeconds(wait)
			op, model := labels()
			s.metrics.RateLimited(op, problem.CodeRateLimited, model)
			return nil, &LimitError{Code: problem.CodeRateLimited, Retry: secs, Detail: fmt.Sprintf(
				"rate limit of %g requests/s (burst %d) exceeded for this key; retry after %d s",
				float64(s.limiter.rps), s.limiter.burst, secs)}
		}
	}
	return n, nil
}
