package admission

import (
	"sync"
	"sync/atomic"
)

// inflight caps each key's concurrent requests. The counters are never evicted: there
// is one per configured key, and only authenticated requests reach it.
type inflight struct {
	max  int64
	mu   sync.RWMutex
	keys map[string]*atomic.Int64
}

// newInflight returns nil, no cap, for max <= 0.
func newInflight(max int) *inflight {
	if max <= 0 {
		return nil
	}
	return &inflight{max: int64(max), keys: map[string]*atomic.Int64{}}
}

// acquire counts a request of key in, or returns nil when key already has max in
// flight. The caller gives the counter back with Add(-1) when the request is done.
func (f *inflight) acquire(key string) *atomic.Int64 {
	f.mu.RLock()
	n := f.keys[key]
	f.mu.RUnlock()
	if n == nil {
		f.mu.Lock()
		if n = f.keys[key]; n == nil {
			n = new(atomic.Int64)
			f.keys[key] = n
		}
		f.mu.Unlock()
	}
	if n.Add(1) > f.max {
		n.Add(-1)
		return nil
	}
	return n
}
