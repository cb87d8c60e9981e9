package reposync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/registry"
)

// Source is the model repository the registry reads: inner (internal/repository over
// the mirror's copy) and, for each version the last poll refused, the refusal as its
// registry.VersionSpec.Refused. A version the copy holds serves what it took before
// and shows the refusal beside it; one it holds nothing of is listed with the refusal
// alone, so that the repository index says why it is not served. Each version the
// copy holds carries what the mirror verified of it (registry.VersionSpec.Provenance).
// It is safe for concurrent use.
type Source struct {
	inner registry.Source

	mu      sync.RWMutex
	refused map[string]map[string]error // model → version → refusal
	// provenance is what the mirror verified of the versions its copy holds.
	provenance map[mirror.Version]mirror.Provenance
}

var _ registry.Source = (*Source)(nil)

// NewSource returns the Source of inner, with no refusal yet.
func NewSource(inner registry.Source) *Source {
	return &Source{inner: inner, refused: map[string]map[string]error{}}
}

// refusal is a mirror's refusal as the registry shows it.
func refusal(re *mirror.RefusedError) error {
	return fmt.Errorf("the store's content of this version is refused: %w", re)
}

// set makes rs the refusals in force and returns the models whose refusals changed
// (a version refused, no longer refused, or refused for another reason), sorted.
func (s *Source) set(rs []mirror.Refusal) []string {
	next := map[string]map[string]error{}
	for _, r := range rs {
		if r.Err == nil {
			continue
		}
		if next[r.Err.Model] == nil {
			next[r.Err.Model] = map[string]error{}
		}
		next[r.Err.Model][r.Err.Version] = refusal(r.Err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := map[string]bool{}
	for model, vs := range next {
		for ver, err := range vs {
			if was := s.refused[model][ver]; was == nil || was.Error() != err.Error() {
				changed[model] = true
			}
		}
	}
	for model, vs := range s.refused {
		for ver := range vs {
			if next[model][ver] == nil {
				changed[model] = true
			}
		}
	}
	s.refused = next
	return slices.Sorted(maps.Keys(changed))
}

// setProvenance makes p what the copy holds, as of the last poll.
func (s *Source) setProvenance(p map[mirror.Version]mirror.Provenance) {
	if p == nil {
		return // a poll that did not get as far as the state: what was, stands
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.provenance = p
}

// Models lists inner's models with the refusals, and the models of which only
// refused versions are in the store.
func (s *Source) Models(ctx context.Context) ([]registry.ModelSpec, error) {
	specs, err := s.inner.Models(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	listed := map[string]bool{}
	for i := range specs {
		listed[specs[i].Name] = true
		specs[i] = s.merge(specs[i])
	}
	for _, model := range slices.Sorted(maps.Keys(s.refused)) {
		if !listed[model] {
			specs = append(specs, s.merge(registry.ModelSpec{Name: model}))
		}
	}
	slices.SortFunc(specs, func(a, b registry.ModelSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs, nil
}

// Model reads one model afresh from inner, with its refusals.
func (s *Source) Model(ctx context.Context, name string) (registry.ModelSpec, error) {
	spec, err := s.inner.Model(ctx, name)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if errors.Is(err, registry.ErrModelNotFound) && len(s.refused[name]) > 0 {
		return s.merge(registry.ModelSpec{Name: name}), nil
	}
	if err != nil {
		return spec, err
	}
	return s.merge(spec), nil
}

// merge is spec with the refusals of its model; call it under s.mu. spec's versions
// are copied, not changed.
func (s *Source) merge(spec registry.ModelSpec) registry.ModelSpec {
	refused := s.refused[spec.Name]
	out := spec
	out.Versions = slices.Clone(spec.Versions)
	held := map[string]bool{}
	for i := range out.Versions {
		vs := &out.Versions[i]
		held[vs.Version] = true
		vs.Refused = refused[vs.Version]
		if p, ok := s.provenance[mirror.Version{Model: spec.Name, Version: vs.Version}]; ok {
			vs.Provenance = registry.Provenance{Digests: p.Sums, Signer: p.Signer}
		}
	}
	for _, ver := range slices.Sorted(maps.Keys(refused)) {
		if !held[ver] {
			out.Versions = append(out.Versions, registry.VersionSpec{Version: ver, Refused: refused[ver]})
		}
	}
	return out
}
