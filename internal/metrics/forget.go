package metrics

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// held is what the metrics know of the registry's versions: the ones it holds, each
// with the observer Version gave it, and the ones it dropped, whose series are deleted
// and must not come back with a late event (a request that was in flight on the
// version when it went).
type held struct {
	mu       sync.Mutex // serialises Version, forgetting and the model label's checks
	versions map[string]map[string]*versionMetrics
	// forgotten is read without a lock by the children's make, on a cache miss.
	forgotten atomic.Pointer[map[versionKey]struct{}]
}

// gone reports whether the version was forgotten and not announced since.
func (h *held) gone(k versionKey) bool {
	if f := h.forgotten.Load(); f != nil {
		_, ok := (*f)[k]
		return ok
	}
	return false
}

// setGone records k forgotten, or announced again; h.mu must be held.
func (h *held) setGone(k versionKey, gone bool) {
	old := h.forgotten.Load()
	if old == nil && !gone {
		return
	}
	next := map[versionKey]struct{}{}
	if old != nil {
		if _, was := (*old)[k]; was == gone {
			return
		}
		for ok := range *old {
			next[ok] = struct{}{}
		}
	}
	if gone {
		next[k] = struct{}{}
	} else {
		delete(next, k)
	}
	h.forgotten.Store(&next)
}

// announce records v as the observer of its version now; h.mu must be held.
func (h *held) announce(v *versionMetrics) {
	if h.versions == nil {
		h.versions = map[string]map[string]*versionMetrics{}
	}
	vs := h.versions[v.model]
	if vs == nil {
		vs = map[string]*versionMetrics{}
		h.versions[v.model] = vs
	}
	vs[v.version] = v
	h.setGone(versionKey{v.model, v.version}, false)
}

// holds reports whether the registry holds a version of model; h.mu must be held.
func (h *held) holds(model string) bool { return len(h.versions[model]) > 0 }

// partialDeleter is a vector whose series can be deleted by some of their labels.
type partialDeleter interface {
	DeletePartialMatch(prometheus.Labels) int
}

// forget deletes every series of v's version, and those of its model when it was the
// model's last version, unless another observer of the same version has been
// announced since v (the registry forgot an older entry). Events of the version after
// it count into nothing: the children caches forget it first, and their make declines
// it from then on.
func (m *Metrics) forget(v *versionMetrics) {
	h := &m.held
	h.mu.Lock()
	defer h.mu.Unlock()
	vs := h.versions[v.model]
	if vs[v.version] != v {
		return
	}
	delete(vs, v.version)
	last := len(vs) == 0
	if last {
		delete(h.versions, v.model)
	}
	k := versionKey{v.model, v.version}
	h.setGone(k, true)
	m.predictChildren.deleteFunc(func(p predictKey) bool { return p.versionKey == k })
	m.stageChildren.deleteFunc(func(s stageKey) bool { return s.versionKey == k })
	m.graphChildren.deleteFunc(func(g graphKey) bool { return g.versionKey == k })
	m.batchChildren.deleteFunc(func(b versionKey) bool { return b == k })
	m.queueChildren.deleteFunc(func(q versionKey) bool { return q == k })
	labels := prometheus.Labels{"model": v.model, "version": v.version}
	for _, vec := range []partialDeleter{
		m.predictions, m.predictItems, m.stageDuration, m.graphSteps, m.batchSize, m.batchQueue,
		m.versions.state, m.versions.failures, m.versions.failed, m.versions.fallbacks, m.versions.inflight, m.versions.latency,
	} {
		vec.DeletePartialMatch(labels)
	}
	if last {
		m.rateLimited.DeletePartialMatch(prometheus.Labels{"model": v.model})
	}
}
