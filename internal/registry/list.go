package registry

import (
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/serve"
)

// Entry describes one version for listings (serve's, named here too).
type Entry = serve.Entry

// List returns every known version, by name then natural version order.
func (r *Registry) List() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.models))
	for n := range r.models {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Entry
	for _, n := range names {
		m := r.models[n]
		for _, ver := range m.order {
			out = append(out, entryLocked(m, m.versions[ver]))
		}
	}
	return out
}

// Model describes one model: its rule and every version, in natural order.
type Model struct {
	Name     string
	Rule     Rule
	Versions []Entry
}

// Describe returns one model's rule and versions.
func (r *Registry) Describe(name string) (Model, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.models[name]
	if m == nil {
		return Model{}, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
	}
	out := Model{Name: name, Rule: m.rule}
	for _, ver := range m.order {
		out.Versions = append(out.Versions, entryLocked(m, m.versions[ver]))
	}
	return out, nil
}

// Versions returns one model's versions, in natural order: Describe's without the
// rule, for a caller that answers about versions and never routes (oip).
func (r *Registry) Versions(name string) ([]Entry, error) {
	m, err := r.Describe(name)
	return m.Versions, err
}

func entryLocked(m *model, v *version) Entry {
	e := Entry{Name: v.name, Version: v.version, Status: v.status, Err: v.err,
		AtStart: v.atStart && v.cur == nil, LoadErr: v.loadErr, Unloading: m.unloading, Provenance: v.provenance}
	if e.LoadErr == nil && v.cur != nil {
		e.LoadErr = v.refused // the source refused newer content than what serves
	}
	if v.cur != nil {
		e.LoadedAt, e.LoadDuration, e.Memory, e.Info = v.cur.loadedAt, v.cur.loadDur, v.cur.mem, v.cur.p.Info
		e.Pre, e.Post = v.cur.p.Steps()
		if v.cur.batcher != nil {
			e.Batching = v.cur.p.Batching
		}
	}
	return e
}
