package admission

import (
	"crypto/sha256"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxThrottledClients bounds the (address, key) pairs the throttle remembers, so that a
// flood of failures with many keys or from many addresses cannot grow it without end.
// Past it, buckets that have refilled are forgotten first; a new pair that still finds
// no room is not tracked (its failures go unthrottled rather than the server running
// out of memory).
const maxThrottledClients = 10000

// failer is what the throttle keys on: a client address and the key it presented (its
// SHA-256, so that no rejected key is held in memory as sent; a missing key is the
// empty one's).
type failer struct {
	addr string
	key  [sha256.Size]byte
}

// authThrottle limits failed authentications per client address and presented key:
// each pair has a bucket of perMinute tokens, refilled at perMinute a minute, and a
// failure takes one. A pair whose bucket is empty is answered 429 instead of 401, with
// the time its next attempt is worth making.
//
// A key that is valid is never throttled: it is looked up before the throttle is
// asked. Keying on the address alone, as inferd once did, let one client with a wrong
// key lock out every valid key behind the same NAT or ingress.
type authThrottle struct {
	perMinute int
	every     rate.Limit
	mu        sync.Mutex
	clients   map[failer]*rate.Limiter
	swept     time.Time // under mu
}

// newAuthThrottle returns nil, no throttle, for perMinute <= 0.
func newAuthThrottle(perMinute int) *authThrottle {
	if perMinute <= 0 {
		return nil
	}
	return &authThrottle{perMinute: perMinute, every: rate.Limit(float64(perMinute) / 60), clients: map[failer]*rate.Limiter{}}
}

// failed charges a failed authentication of key from addr. It returns how long the pair
// must wait before its attempts are worth making again: 0 while its bucket had a token
// for this failure (answer 401), above 0 when it had none (answer 429).
func (t *authThrottle) failed(addr, key string) time.Duration {
	if t == nil {
		return 0
	}
	f := failer{addr: addr, key: sha256.Sum256([]byte(key))}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.clients[f]
	if b == nil {
		if len(t.clients) >= maxThrottledClients || time.Since(t.swept) > time.Minute {
			t.sweep()
		}
		if len(t.clients) >= maxThrottledClients {
			return 0
		}
		b = rate.NewLimiter(t.every, t.perMinute)
		t.clients[f] = b
	}
	if b.Allow() {
		return 0
	}
	return time.Duration(math.Ceil((1 - b.Tokens()) / float64(t.every) * float64(time.Second)))
}

// sweep forgets the pairs whose buckets have refilled: they are throttled no more. It
// runs under mu.
func (t *authThrottle) sweep() {
	t.swept = time.Now()
	for f, b := range t.clients {
		if b.Tokens() >= float64(t.perMinute) {
			delete(t.clients, f)
		}
	}
}
