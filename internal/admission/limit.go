package admission

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per key. Buckets are never evicted: there is one per
// configured key, and unknown keys never reach it (auth runs first).
type limiter struct {
	rps   rate.Limit
	burst int
	mu    sync.RWMutex
	keys  map[string]*rate.Limiter
	// shared, when set, decides first; the buckets above decide only while it cannot.
	shared *shared
}

func newLimiter(rps float64, burst int) *limiter {
	if rps <= 0 {
		return nil
	}
	return &limiter{rps: rate.Limit(rps), burst: max(burst, 1), keys: map[string]*rate.Limiter{}}
}

// allow takes a token from key's bucket, or says how long until one is there.
func (l *limiter) allow(key string) (bool, time.Duration) {
	if l.shared != nil {
		if ok, wait, decided := l.shared.allow(key); decided {
			return ok, wait
		}
	}
	l.mu.RLock()
	b := l.keys[key]
	l.mu.RUnlock()
	if b == nil {
		l.mu.Lock()
		if b = l.keys[key]; b == nil {
			b = rate.NewLimiter(l.rps, l.burst)
			l.keys[key] = b
		}
		l.mu.Unlock()
	}
	res := b.Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel()
		return false, d
	}
	return true, 0
}
