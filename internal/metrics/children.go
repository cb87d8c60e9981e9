package metrics

import (
	"sync"
	"sync/atomic"
)

// children keeps the children of metric vectors by their label values, so that an
// event on the request path costs one map read instead of hashing and comparing its
// label values in each vector it touches (a request touched six). The label sets are
// bounded (operations, status codes, registered models). Reads take no lock: the map
// is replaced, never changed, when a key arrives or goes.
type children[K comparable, V any] struct {
	cur atomic.Pointer[map[K]V]
	mu  sync.Mutex // serialises changes
	// make makes the children of a key; keep false says not to remember them (a
	// forgotten version's, which count into nothing).
	make func(K) (v V, keep bool)
}

func newChildren[K comparable, V any](make func(K) (V, bool)) *children[K, V] {
	return &children[K, V]{make: make}
}

// kept is a make for children that are always remembered.
func kept[K comparable, V any](make func(K) V) func(K) (V, bool) {
	return func(k K) (V, bool) { return make(k), true }
}

func (c *children[K, V]) get(k K) V {
	if m := c.cur.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur.Load()
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
	}
	v, keep := c.make(k)
	if !keep {
		return v
	}
	next := make(map[K]V, 1)
	if old != nil {
		next = make(map[K]V, len(*old)+1)
		for ok, ov := range *old {
			next[ok] = ov
		}
	}
	next[k] = v
	c.cur.Store(&next)
	return v
}

// deleteFunc forgets the children of the keys del reports: the next get of one asks
// make again.
func (c *children[K, V]) deleteFunc(del func(K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur.Load()
	if old == nil {
		return
	}
	next := make(map[K]V, len(*old))
	for k, v := range *old {
		if !del(k) {
			next[k] = v
		}
	}
	c.cur.Store(&next)
}
