package registry

import (
	"fmt"
	"slices"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// Entry describes one version for listings.
type Entry struct {
	Name, Version string
	Status        Status
	Err           error
	LoadedAt      time.Time
	LoadDuration  time.Duration
	Memory        Memory
	Info          pipeline.Info
	// Batching is how the loaded pipeline coalesces requests: zero when it does not
	// (its config asks for none, or DYNAMIC_BATCHING=false).
	Batching pipeline.Batching
	// Pre and Post describe the steps of the loaded pipeline.
	Pre, Post []pipeline.StepInfo

	// AtStart: the version's load at start failed (Status failed) and nothing has
	// loaded it since; strict readiness waits for it.
	AtStart bool
	// LoadErr is why the version's last load failed while a pipeline loaded before
	// still serves it (Status ready), or why its source refused newer content of it
	// (VersionSpec.Refused).
	LoadErr error
	// Unloading: an unload of the model is waiting for the jobs accepted for it.
	Unloading bool
	// Provenance is what the source verified of the version's files, as it last
	// described them (VersionSpec.Provenance).
	Provenance Provenance
}

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
