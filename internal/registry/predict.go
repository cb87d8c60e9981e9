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
	r.mu.RLock()
	v, err := r.lookupLocked(req.Model, req.Version)
	var inst *loaded
	if err == nil {
		if err = v.servable(); err == nil {
			inst = v.cur
			inst.inflight.Add(1) // under the read lock, so a swap cannot miss it
		}
	}
	r.mu.RUnlock()
	if err != nil {
		if v != nil {
			r.obs.Predicted(req.Model, v.version, req.Mode, OutcomeUnavailable, len(req.Items))
		}
		return Prediction{}, err
	}
	defer inst.inflight.Done()
	start := time.Now()
	v.obs.Begin()
	defer func() { v.obs.End(time.Since(start)) }()

	observe := func(stage pipeline.Stage, d time.Duration) { r.obs.Stage(req.Model, v.version, stage, d) }
	results, err := inst.run(ctx, req.Items, observe)
	outcome := OutcomeSuccess
	switch {
	case errors.Is(err, pipeline.ErrInvalidInput):
		outcome = OutcomeInvalidInput
	case err != nil:
		outcome = OutcomeError
	}
	r.obs.Predicted(req.Model, v.version, req.Mode, outcome, len(req.Items))
	if pe := (*pipeline.PanicError)(nil); errors.As(err, &pe) {
		r.log.Error("pipeline panicked", "model", req.Model, "version", v.version, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
	if err != nil {
		return Prediction{}, err
	}
	return Prediction{Model: req.Model, Version: v.version, Results: results}, nil
}
