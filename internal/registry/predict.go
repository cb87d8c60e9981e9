package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// Mode says how a prediction was asked for, for metrics.
type Mode string

// The modes of a prediction.
const (
	ModeSync  Mode = "sync"
	ModeAsync Mode = "async"
)

// Request is one prediction call.
type Request struct {
	// Model names the model; Version the version, or "" for the model's rule to choose.
	Model, Version string
	// Items run through the pipeline together; results come back in their order. An
	// input error names the item at fault by its index here (pipeline.InputError), for
	// the caller to word in its client's terms.
	Items []json.RawMessage
	// Mode labels the call in metrics; "" means sync.
	Mode Mode
}

// Prediction is the result of one prediction call.
type Prediction struct {
	Model   string
	Version string
	Results []json.RawMessage
}

// Predict routes the request to a version and runs its items through that version's
// pipeline, sharing the model call with concurrent requests when the version batches
// dynamically. Errors wrap ErrModelNotFound, ErrVersionNotFound, ErrLoading,
// ErrUnavailable, pipeline.ErrInvalidInput or pipeline.ErrExecution.
func (r *Registry) Predict(ctx context.Context, req Request) (Prediction, error) {
	if req.Mode == "" {
		req.Mode = ModeSync
	}
	route := r.traceRoute(ctx, req.Model, req.Version)
	v, inst, done, err := r.hold(req.Model, req.Version, req.Mode, len(req.Items))
	endRoute(route, v, err)
	if err != nil {
		return Prediction{}, err
	}
	defer done()
	observe := func(stage pipeline.Stage, d time.Duration) { r.obs.Stage(req.Model, v.version, stage, d) }
	results, err := inst.run(ctx, req.Items, observe)
	r.settle(req.Model, v, req.Mode, len(req.Items), err)
	if err != nil {
		return Prediction{}, err
	}
	return Prediction{Model: req.Model, Version: v.version, Results: results}, nil
}

// hold routes model and ver to a servable version and holds its current instance for
// one request, counted in flight under the read lock so that a swap cannot miss it;
// done gives the instance back and records the request's latency. A request that
// finds the version unservable is counted unavailable.
func (r *Registry) hold(model, ver string, mode Mode, n int) (v *version, inst *loaded, done func(), err error) {
	r.mu.RLock()
	v, err = r.lookupLocked(model, ver)
	if err == nil {
		if err = v.servable(); err == nil {
			inst = v.cur
			inst.inflight.Add(1)
		}
	}
	r.mu.RUnlock()
	if err != nil {
		if v != nil {
			r.obs.Predicted(model, v.version, mode, OutcomeUnavailable, n)
		}
		return nil, nil, nil, err
	}
	start := time.Now()
	v.obs.Begin()
	return v, inst, func() {
		v.obs.End(time.Since(start))
		inst.inflight.Done()
	}, nil
}

// settle counts the outcome of a held request of n items, and logs a panic of the
// version's code with its stack.
func (r *Registry) settle(model string, v *version, mode Mode, n int, err error) {
	outcome := OutcomeSuccess
	switch {
	case errors.Is(err, pipeline.ErrInvalidInput):
		outcome = OutcomeInvalidInput
	case err != nil:
		outcome = OutcomeError
	}
	r.obs.Predicted(model, v.version, mode, outcome, n)
	if pe := (*pipeline.PanicError)(nil); errors.As(err, &pe) {
		r.log.Error("pipeline panicked", "model", model, "version", v.version, "mode", string(mode), "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
}
