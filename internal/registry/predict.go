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
	// EachItem makes the items fail alone (on_error: continue): an item whose input
	// the pipeline refuses is left out, its error in Prediction.Failed, and the others
	// are answered. Any other error still fails the whole call.
	EachItem bool
}

// Prediction is the result of one prediction call.
type Prediction struct {
	Model   string
	Version string
	// Results holds a result per item; nil for an item in Failed.
	Results []json.RawMessage
	// Failed are the items refused alone (Request.EachItem), in the order of the
	// items, each InputError's Item its index in Request.Items.
	Failed []*pipeline.InputError
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
	h, err := r.hold(req.Model, req.Version, req.Mode, len(req.Items))
	endRoute(route, h.v, err)
	if err != nil {
		return Prediction{}, err
	}
	defer h.release()
	v, inst := h.v, h.inst
	noteRoute(ctx, req.Model, v.version)
	observe := func(stage pipeline.Stage, d time.Duration) {
		r.obs.Stage(req.Model, v.version, stage, d)
		v.stats.stage(stage, d)
	}
	var results []json.RawMessage
	var failed []*pipeline.InputError
	if req.EachItem {
		results, failed, err = inst.runEach(ctx, req.Items, observe)
	} else {
		results, err = inst.run(ctx, req.Items, observe)
	}
	// A call whose items failed alone was answered: it counts as a success, once.
	r.settle(req.Model, h, req.Mode, len(req.Items), err)
	if err != nil {
		return Prediction{}, err
	}
	return Prediction{Model: req.Model, Version: v.version, Results: results, Failed: failed}, nil
}

// hold routes model and ver to a servable version and holds its current instance for
// one request, counted in flight under the read lock so that a swap cannot miss it;
// settle records the request's outcome and latency, and release gives the instance
// back. A request that finds the version unservable is counted unavailable.
func (r *Registry) hold(model, ver string, mode Mode, n int) (held, error) {
	r.mu.RLock()
	v, err := r.lookupLocked(model, ver, mode == ModeInfer)
	err = r.admitLocked(model, mode == ModeAsync, err)
	var inst *loaded
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
		return held{}, err
	}
	v.obs.Begin()
	return held{v: v, inst: inst, start: time.Now()}, nil
}

// held is a version's instance held for one request: a value rather than a closure,
// so that holding allocates nothing on the hot path.
type held struct {
	v     *version
	inst  *loaded
	start time.Time
}

func (h held) release() { h.inst.inflight.Done() }

// settle counts the outcome and latency of a held request of n items, and logs a panic
// of the version's code with its stack.
func (r *Registry) settle(model string, h held, mode Mode, n int, err error) {
	v := h.v
	end := time.Now()
	d := end.Sub(h.start)
	v.obs.End(d)
	v.stats.request(n, end, d, err)
	outcome := OutcomeSuccess
	switch {
	case errors.Is(err, pipeline.ErrInvalidInput):
		outcome = OutcomeInvalidInput
	case err != nil:
		outcome = OutcomeError
	}
	r.obs.Predicted(model, v.version, mode, outcome, n)
	if err == nil {
		return
	}
	if pe := (*pipeline.PanicError)(nil); errors.As(err, &pe) {
		r.log.Error("pipeline panicked", "model", model, "version", v.version, "mode", string(mode), "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
}
