package admission

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/problem"
)

// Options configure an Admission.
type Options struct {
	// Keys are the keys in force, which a reload of API_KEYS_FILE may replace.
	Keys *auth.Keys
	// Metrics count the refusals (inferd_rate_limited_requests_total) and the calls the
	// local buckets decided while the shared limit could not.
	Metrics *metrics.Metrics
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// RateLimitRPS and RateLimitBurst set each key's token bucket on the predict-scope
	// operations; RateLimitRPS 0 disables it.
	RateLimitRPS   float64
	RateLimitBurst int
	// SharedRateLimit, when set, keeps that limit in a store shared with other servers;
	// while it cannot be reached, each server's own buckets apply it.
	SharedRateLimit SharedLimiter
	// MaxConcurrentPerKey caps the calls one key has in progress at once; 0: no cap.
	MaxConcurrentPerKey int
	// AuthFailuresPerMinute is how many failed authentications one key (or none) may
	// make a minute from one client address before they are refused as a limit
	// instead; 0: no throttle.
	AuthFailuresPerMinute int
}

// Admission admits calls: one for a process, whichever listener the calls came by.
type Admission struct {
	keys      *auth.Keys
	metrics   *metrics.Metrics
	limiter   *limiter
	inflight  *inflight
	authFails *authThrottle
}

// New returns the admission opts describe; Keys and Metrics are required.
func New(opts Options) (*Admission, error) {
	if opts.Keys == nil || opts.Metrics == nil {
		return nil, errors.New("admission: Keys and Metrics are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	lim := newLimiter(opts.RateLimitRPS, opts.RateLimitBurst)
	if lim != nil && opts.SharedRateLimit != nil {
		lim.shared = newShared(opts.SharedRateLimit, opts.Metrics.RateLimitFallback, opts.Logger)
	}
	return &Admission{keys: opts.Keys, metrics: opts.Metrics, limiter: lim,
		inflight: newInflight(opts.MaxConcurrentPerKey), authFails: newAuthThrottle(opts.AuthFailuresPerMinute)}, nil
}

// RateLimits reports whether the predict-scope operations have a token bucket.
func (a *Admission) RateLimits() bool { return a.limiter != nil }

// LimitError is a refusal for load: a 429 with its code and Retry-After over HTTP,
// RESOURCE_EXHAUSTED with the same detail and a retry delay over gRPC.
type LimitError struct {
	Code   string // the problem code: rate_limited, concurrency_limited, auth_throttled
	Detail string
	Retry  int // seconds
}

func (e *LimitError) Error() string { return e.Detail }

// RetrySeconds is d as a Retry-After: whole seconds, rounded up, at least 1.
func RetrySeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

// Call is what admission asks of a call only when it needs it, as it may cost
// something to tell: the client's address when its key failed, and the labels of a
// refusal in inferd_rate_limited_requests_total (the call's operation, and the model
// it names, "" for none). Admission only calls them, so a caller's closures stay on
// its stack.
type Call struct {
	Addr   func() string
	Labels func() (op, model string)
}

// Ticket is what Admit tells of a call: who it is, and its place under the key's cap
// on calls in progress.
type Ticket struct {
	Principal auth.Principal
	// Authorized is set once the key holds the scope, whether or not a limit then
	// refused the call.
	Authorized bool
	// Held counts the call among the key's in progress until Release (nil: no cap, or
	// the call was refused).
	Held *atomic.Int64
}

// Release gives the call's place under the key's cap back, once.
func (t *Ticket) Release() {
	if t.Held != nil {
		t.Held.Add(-1)
		t.Held = nil
	}
}

// Admit authorizes key for scope and applies the key's limits (Authorize, then
// Limit). keyErr, when set, refuses the call instead of key: the caller could not tell
// one key (it sent several); it wraps auth.ErrUnauthenticated. Errors wrap
// auth.ErrUnauthenticated or auth.ErrForbidden, or are a *LimitError. When err is nil
// the ticket must be released once the call is done.
func (a *Admission) Admit(key string, keyErr error, scope auth.Scope, c Call) (Ticket, error) {
	p, err := a.Authorize(key, keyErr, scope, c)
	if err != nil {
		return Ticket{Principal: p}, err
	}
	n, err := a.Limit(c.Labels, p, scope)
	return Ticket{Principal: p, Authorized: true, Held: n}, err
}

// Authorize authorizes key for scope unless keyErr already refused it (see Admit). A
// missing or unknown key is a failure charged to the client's address and that key; once they have failed too
// often, the answer is a *LimitError (429) instead of ErrUnauthenticated. A valid key
// is never throttled, whatever other clients at the same address do. A key that
// lacks the scope is refused with its principal.
func (a *Admission) Authorize(key string, keyErr error, scope auth.Scope, c Call) (auth.Principal, error) {
	var p auth.Principal
	err := keyErr
	if err == nil {
		p, err = a.keys.Authorize(key, scope)
	}
	if errors.Is(err, auth.ErrUnauthenticated) {
		if d := a.authFails.failed(c.Addr(), key); d > 0 {
			secs := RetrySeconds(d)
			op, model := c.Labels()
			a.metrics.RateLimited(op, problem.CodeAuthThrottled, model)
			return auth.Principal{}, &LimitError{Code: problem.CodeAuthThrottled, Retry: secs, Detail: fmt.Sprintf(
				"more than %d failed authentications a minute with this key from this address (AUTH_FAILURES_PER_MINUTE); retry after %d s with a valid key",
				a.authFails.perMinute, secs)}
		}
	}
	return p, err
}

// Limit applies an authorized key's limits: its concurrent calls, then, on
// predict-scope operations, its token bucket. The counter it returns (nil when there
// is no cap) must be given back with Add(-1) when the call is done.
func (a *Admission) Limit(labels func() (op, model string), p auth.Principal, scope auth.Scope) (*atomic.Int64, error) {
	var n *atomic.Int64
	if a.inflight != nil {
		if n = a.inflight.acquire(p.ID); n == nil {
			op, model := labels()
			a.metrics.RateLimited(op, problem.CodeConcurrencyLimited, model)
			return nil, &LimitError{Code: problem.CodeConcurrencyLimited, Retry: problem.RetryAfterSeconds, Detail: fmt.Sprintf(
				"this key already has %d requests in progress (MAX_CONCURRENT_PER_KEY); retry when one has been answered", a.inflight.max)}
		}
	}
	if a.limiter != nil && scope == auth.ScopePredict {
		if ok, wait := a.limiter.allow(p.ID); !ok {
			if n != nil {
				n.Add(-1)
			}
			secs := RetrySeconds(wait)
			op, model := labels()
			a.metrics.RateLimited(op, problem.CodeRateLimited, model)
			return nil, &LimitError{Code: problem.CodeRateLimited, Retry: secs, Detail: fmt.Sprintf(
				"rate limit of %g requests/s (burst %d) exceeded for this key; retry after %d s",
				float64(a.limiter.rps), a.limiter.burst, secs)}
		}
	}
	return n, nil
}
