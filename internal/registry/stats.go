package registry

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/serve"
)

// Stat counts events and the time they took in all (serve's, named here too).
type Stat = serve.Stat

// BatchStat is the model calls of one batch size.
type BatchStat = serve.BatchStat

// Stats are one version's inference statistics (serve's, named here too).
type Stats = serve.Stats

// stat is a Stat kept with atomics, on the request path.
type stat struct{ count, ns atomic.Uint64 }

func (s *stat) add(d time.Duration) {
	s.count.Add(1)
	s.ns.Add(uint64(max(d, 0)))
}

func (s *stat) get() Stat { return Stat{Count: s.count.Load(), Total: time.Duration(s.ns.Load())} }

// versionStats are one version's counters. They outlive its pipelines, as Triton's do
// its reloads.
type versionStats struct {
	last                 atomic.Int64 // unix nanoseconds of the last success; 0: none
	inferences           atomic.Uint64
	executions           atomic.Uint64
	success, fail, queue stat
	input, infer, output stat
	batches              sync.Map // batch size (int) -> *stat; read-mostly, so lock-free
}

// request records a request of n items that ended at end, d after it started.
func (s *versionStats) request(n int, end time.Time, d time.Duration, err error) {
	if err != nil {
		s.fail.add(d)
		return
	}
	s.success.add(d)
	s.inferences.Add(uint64(n))
	s.last.Store(end.UnixNano())
}

// stage records one pipeline stage of a request.
func (s *versionStats) stage(st pipeline.Stage, d time.Duration) {
	switch st {
	case pipeline.StagePreprocess:
		s.input.add(d)
	case pipeline.StageModel:
		s.infer.add(d)
	case pipeline.StagePostprocess:
		s.output.add(d)
	}
}

// called records one model call of n items that took d.
func (s *versionStats) called(n int, d time.Duration) {
	s.executions.Add(1)
	b, ok := s.batches.Load(n)
	if !ok {
		b, _ = s.batches.LoadOrStore(n, &stat{})
	}
	b.(*stat).add(d)
}

func (s *versionStats) snapshot(name, ver string) Stats {
	out := Stats{
		Name: name, Version: ver,
		Inferences: s.inferences.Load(), Executions: s.executions.Load(),
		Success: s.success.get(), Fail: s.fail.get(), Queue: s.queue.get(),
		Input: s.input.get(), Infer: s.infer.get(), Output: s.output.get(),
	}
	if ns := s.last.Load(); ns != 0 {
		out.LastInference = time.Unix(0, ns)
	}
	s.batches.Range(func(k, v any) bool {
		out.Batches = append(out.Batches, BatchStat{Size: k.(int), Calls: v.(*stat).get()})
		return true
	})
	slices.SortFunc(out.Batches, func(a, b BatchStat) int { return a.Size - b.Size })
	return out
}

// Stats returns the statistics of every version of every model (name ""), of every
// version of one model (version ""), or of one version, by name then natural version
// order.
func (r *Registry) Stats(name, version string) ([]Stats, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := []string{name}
	if name == "" {
		names = names[:0]
		for n := range r.models {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	var out []Stats
	for _, n := range names {
		m := r.models[n]
		if m == nil {
			return nil, fmt.Errorf("%w: no model named %q", ErrModelNotFound, n)
		}
		for _, ver := range m.order {
			if version == "" || ver == version {
				out = append(out, m.versions[ver].stats.snapshot(n, ver))
			}
		}
		if version != "" && len(out) == 0 {
			return nil, fmt.Errorf("%w: model %q has no version %q (it has %v)", ErrVersionNotFound, n, version, m.order)
		}
	}
	return out, nil
}
