package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/batch"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/telemetry"
	"github.com/inferd/inferd/internal/tensor"
)

// loaded is one loaded pipeline of a version: it owns the pipeline, the batcher in front
// of its model, the requests in flight on it, and its retirement when a reload replaces
// it or the registry closes.
type loaded struct {
	name, version string
	p             *pipeline.Pipeline
	batcher       *batch.Batcher // nil: every request is its own model call
	// whole: a tensor call goes to the model as it came (pipeline.RunWhole), which it
	// may when the pipeline has no tensor steps and no batcher shares its calls by
	// rows.
	whole    bool
	inflight sync.WaitGroup
	loadedAt time.Time
	loadDur  time.Duration
	mem      Memory
	obs      Observer
	tracing  *pipeline.Tracing // nil: tracing off
	stats    *versionStats     // its version's
	// inNames and outNames name the tensors of the pipeline's tensor calls (p.Info's
	// TensorInputs and TensorOutputs), once rather than on every call; shared, they
	// are only read.
	inNames, outNames []string
}

// build loads one pipeline, measuring the memory the load took, and starts its batcher.
func (r *Registry) build(ctx context.Context, v *version, l Loader) (inst *loaded, err error) {
	name, ver, stats := v.name, v.version, &v.stats
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("loading %s %s panicked: %v", name, ver, v)
		}
	}()
	seq := r.loadSeq.Add(1)
	alone := r.activeLoads.Add(1) == 1
	defer r.activeLoads.Add(-1)
	before := takeSnapshot()
	start := time.Now()
	p, err := r.loadPipeline(ctx, name, ver, l)
	if err != nil {
		return nil, err
	}
	if p == nil || p.Model == nil {
		return nil, fmt.Errorf("loading %s %s: the loader returned no model", name, ver)
	}
	dur := time.Since(start)
	after := takeSnapshot()
	alone = alone && r.loadSeq.Load() == seq
	inst = &loaded{name: name, version: ver, p: p, loadedAt: time.Now(), loadDur: dur, mem: measure(before, after, p.Info.ArtifactBytes, alone), obs: r.obs, tracing: r.tracing(name, ver), stats: stats,
		inNames: tensorNames(p.Info.TensorInputs), outNames: tensorNames(p.Info.TensorOutputs)}
	if b := p.Batching; b.Enabled && !r.opts.NoDynamicBatching {
		opts := batch.Options{
			MaxSize:       b.MaxSize,
			MaxQueueDelay: b.MaxQueueDelay,
			MaxCalls:      b.MaxCalls,
			Called: func(n int, d time.Duration) {
				r.obs.Batched(name, ver, n)
				stats.called(n, d)
			},
			Queued: func(d time.Duration) {
				r.obs.Queued(name, ver, d)
				stats.queue.add(d)
			},
		}
		if inst.tracing != nil {
			opts.Call = inst.tracedCall
		}
		inst.batcher = batch.New(p.Model.Predict, opts)
	}
	inst.whole = inst.batcher == nil && p.Whole()
	return inst, nil
}

// loadPipeline runs l.Load within LoadTimeout. A load that overruns it is abandoned,
// so that the version's reloads (one at a time) are not held up behind it for ever: its
// error says so, and the pipeline it builds if it ever finishes is closed unused.
func (r *Registry) loadPipeline(ctx context.Context, name, ver string, l Loader) (*pipeline.Pipeline, error) {
	if r.opts.LoadTimeout <= 0 {
		return l.Load(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.LoadTimeout)
	type result struct {
		p   *pipeline.Pipeline
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if v := recover(); v != nil {
				res = result{err: fmt.Errorf("loading %s %s panicked: %v", name, ver, v)}
			}
			done <- res
		}()
		res.p, res.err = l.Load(ctx)
	}()
	select {
	case res := <-done:
		cancel()
		return res.p, res.err
	case <-ctx.Done():
		cancel()
		go func() {
			if res := <-done; res.p != nil {
				r.log.Warn("a load abandoned for its time finished at last; its pipeline is closed unused", "model", name, "version", ver)
				_ = res.p.Close()
			}
		}()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("loading %s %s took longer than %s (MODEL_LOAD_TIMEOUT); a model file that is slow to read, or a runtime that hangs, is the usual cause", name, ver, r.opts.LoadTimeout)
		}
		return nil, ctx.Err()
	}
}

// run sends items through the pipeline, through the batcher when there is one. An
// unbatched model call is reported as a batch of its own items, so inferd_batch_size
// compares batching on and off.
func (l *loaded) run(ctx context.Context, items []json.RawMessage, observe pipeline.Observer) ([]json.RawMessage, error) {
	if l.batcher == nil {
		return l.p.RunWith(ctx, items, observe, l.call, l.tracing)
	}
	// A closed batcher cannot be met while in-flight tracking holds (it closes after
	// its last request); if it were, RunWith reports its ErrClosed as an execution error.
	return l.p.RunWith(ctx, items, observe, l.batcher.Do, l.tracing)
}

// runEach is run with items that fail alone (pipeline.RunEachWith).
func (l *loaded) runEach(ctx context.Context, items []json.RawMessage, observe pipeline.Observer) ([]json.RawMessage, []*pipeline.InputError, error) {
	if l.batcher == nil {
		return l.p.RunEachWith(ctx, items, observe, l.call, l.tracing)
	}
	return l.p.RunEachWith(ctx, items, observe, l.batcher.Do, l.tracing)
}

// call is an unshared backend call: a batch of this request's items alone.
func (l *loaded) call(ctx context.Context, batch []any) (out []any, err error) {
	span, start := l.calling(ctx, len(batch))
	defer l.called(span, len(batch), start, &err)
	return l.p.Model.Predict(ctx, batch)
}

// callWhole is call for a tensor call the model takes whole (whole).
func (l *loaded) callWhole(ctx context.Context, in *tensor.Tensor) (out []tensor.Named, err error) {
	rows := int(in.Shape[0])
	span, start := l.calling(ctx, rows)
	defer l.called(span, rows, start, &err)
	return l.p.Model.(pipeline.TensorModel).Infer(ctx, in)
}

// calling and called frame an unshared backend call of n items: its batch size, its
// runtime span, its time in the version's statistics. called is deferred, so that a
// backend's panic, which the pipeline turns into the request's error, still ends the
// span.
func (l *loaded) calling(ctx context.Context, n int) (trace.Span, time.Time) {
	l.obs.Batched(l.name, l.version, n)
	return l.runtimeSpan(ctx, n), time.Now()
}

func (l *loaded) called(span trace.Span, n int, start time.Time, err *error) {
	l.stats.called(n, time.Since(start))
	if span != nil {
		telemetry.End(span, *err)
	}
}

// close waits for the requests in flight, drains the batcher and closes the pipeline.
func (l *loaded) close() error {
	l.inflight.Wait()
	if l.batcher != nil {
		l.batcher.Close()
	}
	return l.p.Close()
}

// put loads v with l and puts the new pipeline in place of the one serving v, which
// retires once its requests have finished. It is the one locking sequence of Load and
// Reload: v.reload keeps one load of a version at a time; r.mu guards only the swap.
// first is Load's call during warm-up: it counts the version out of loading and does
// nothing (nil, nil) when a reload got there before it. onSwap runs under r.mu after a
// swap.
func (r *Registry) put(ctx context.Context, v *version, l Loader, first bool, onSwap func()) (*loaded, error) {
	v.reload.Lock()
	defer v.reload.Unlock()
	if first {
		r.mu.Lock()
		if v.cur != nil || v.gone { // a reload during warm-up loaded or dropped it; building again would leak its pipeline
			r.loading--
			r.mu.Unlock()
			return nil, nil
		}
		r.mu.Unlock()
	}
	inst, err := r.build(ctx, v, l)
	r.mu.Lock()
	if first {
		r.loading--
	}
	var old *loaded
	if err == nil && v.gone {
		old, err = inst, fmt.Errorf("%w: %s %s was dropped while it loaded", ErrVersionNotFound, v.name, v.version)
		inst = nil
	}
	if err != nil {
		v.obs.LoadFailed()
		if v.cur == nil { // nothing serves it: keep the reason visible
			v.status, v.err = StatusFailed, err
			v.atStart = v.atStart || first
			v.obs.State(StatusFailed)
		} else {
			v.loadErr = err
		}
	} else {
		old = v.cur
		v.cur, v.loader, v.status, v.err, v.loadErr, v.atStart = inst, l, StatusReady, nil, nil, false
		v.obs.State(StatusReady)
		if onSwap != nil {
			onSwap()
		}
	}
	n := r.loadedLocked()
	r.mu.Unlock()
	r.obs.Loaded(n)
	if old != nil {
		r.retire(old)
	}
	if err == nil {
		r.changed(ctx, v.name, v)
	}
	return inst, err
}

func (r *Registry) loadedLocked() int {
	n := 0
	for _, m := range r.models {
		for _, v := range m.versions {
			if v.cur != nil {
				n++
			}
		}
	}
	return n
}

// retire closes a replaced version once its in-flight requests have finished and its
// batcher has drained; the channel closes then.
func (r *Registry) retire(old *loaded) <-chan struct{} {
	done := make(chan struct{})
	r.drains.Add(1)
	go func() {
		defer r.drains.Done()
		defer close(done)
		if err := old.close(); err != nil {
			r.log.Warn("closing a replaced pipeline", "model", old.name, "version", old.version, "error", err)
		}
	}()
	return done
}
