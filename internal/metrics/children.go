package metrics

import (
	"sync"
	"sync/atomic"
)

// children keeps the children of metric vectors by their label values, so that an
// event on the request path costs one map read instead of hashing and comparing its
// label values in each vector it touches (a request touched six). The label sets are
// bounded (operations, status codes, registered models), and no child is ever
// deleted, so entries never go stale. Reads take no lock: the map is replaced, never
// changed, when a new key arrives.
type children[K comparable, V any] struct {
	cur  atomic.Pointer[map[K]V]
	mu   sync.Mutex // serialises additions
	make func(K) V
}

func newChildren[K comparable, V any](make func(K) V) *children[K, V] {
	return &children[K, V]{make: make}
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
	next := make(map[K]V, 1)
	if old != nil {
		next = make(map[K]V, len(*old)+1)
		for ok, ov := range *old {
			next[ok] = ov
		}
	}
	v := c.make(k)
	next[k] = v
	c.cur.Store(&next)
	return v
}
