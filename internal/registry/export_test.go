package registry

// QueuedItems is how many items wait in the batcher of the version serving name and
// ver; -1 when it has none. Tests use it to queue requests behind a call in flight.
func QueuedItems(r *Registry, name, ver string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.models[name]
	if m == nil || m.versions[ver] == nil || m.versions[ver].cur == nil || m.versions[ver].cur.batcher == nil {
		return -1
	}
	return m.versions[ver].cur.batcher.Queued()
}
