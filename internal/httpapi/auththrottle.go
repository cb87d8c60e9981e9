package httpapi

import (
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// maxThrottledClients bounds the client addresses the throttle remembers, so that a
// flood of failures from many addresses cannot grow it without end. Past it, buckets
// that have refilled are forgotten first; a new address that still finds no room is
// not tracked (its failures go unthrottled rather than the server running out of
// memory).
const maxThrottledClients = 10000

// authThrottle limits failed authentications per client address: each address has a
// bucket of perMinute tokens, refilled at perMinute a minute, and a failure takes one.
// An address whose bucket is empty is refused before its key is even looked at, so
// that guessing keys costs the guesser time and the server no hashing.
type authThrottle struct {
	perMinute int
	every     rate.Limit
	// tracked counts the addresses held, so that the common case (no failures lately)
	// costs one atomic load instead of a lock.
	tracked atomic.Int64
	mu      sync.RWMutex
	clients map[string]*rate.Limiter
	swept   time.Time // under mu
}

// newAuthThrottle returns nil, no throttle, for perMinute <= 0.
func newAuthThrottle(perMinute int) *authThrottle {
	if perMinute <= 0 {
		return nil
	}
	return &authThrottle{perMinute: perMinute, every: rate.Limit(float64(perMinute) / 60), clients: map[string]*rate.Limiter{}}
}

// clientAddr is the address the throttle keys on: the peer's IP. Headers such as
// X-Forwarded-For are not trusted, since any client can send them.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// wait says how long the client at addr must wait before its key is checked again; 0
// when it may be checked now.
func (t *authThrottle) wait(addr string) time.Duration {
	if t == nil || t.tracked.Load() == 0 {
		return 0
	}
	t.mu.RLock()
	b := t.clients[addr]
	t.mu.RUnlock()
	if b == nil {
		return 0
	}
	tokens := b.Tokens()
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) / float64(t.every) * float64(time.Second)))
}

// fail charges a failed authentication to the client at addr.
func (t *authThrottle) fail(addr string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.clients[addr]
	if b == nil {
		if len(t.clients) >= maxThrottledClients || time.Since(t.swept) > time.Minute {
			t.sweep()
		}
		if len(t.clients) >= maxThrottledClients {
			return
		}
		b = rate.NewLimiter(t.every, t.perMinute)
		t.clients[addr] = b
		t.tracked.Store(int64(len(t.clients)))
	}
	b.Allow()
}

// sweep forgets the addresses whose buckets have refilled: they are throttled no more.
// It runs under mu.
func (t *authThrottle) sweep() {
	t.swept = time.Now()
	for addr, b := range t.clients {
		if b.Tokens() >= float64(t.perMinute) {
			delete(t.clients, addr)
		}
	}
	t.tracked.Store(int64(len(t.clients)))
}
