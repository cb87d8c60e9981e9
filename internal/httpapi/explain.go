package httpapi

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	api "github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/httpapi/urgency"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// ExplainPrediction runs one prediction as Predict does, watching the steps of the
// version's model graph through the run's context: the tensors between a graph's
// steps, for an operator debugging it, are shown nowhere else.
func (s *Server) ExplainPrediction(ctx context.Context, req api.ExplainPredictionRequestObject) (api.ExplainPredictionResponseObject, error) {
	ctx, cancel, err := urgency.ClientTimeout(ctx, req.Params.RequestTimeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	var mu sync.Mutex
	steps := []api.ExplainedStep{}
	ctx = graph.WithObserver(ctx, func(e graph.Event) {
		st := explainStep(e)
		mu.Lock()
		steps = append(steps, st)
		mu.Unlock()
	})
	pred, err := s.reg.Predict(ctx, registry.Request{Model: req.Name, Version: req.Version, Items: []json.RawMessage{req.Body.Data}})
	if err != nil {
		return nil, urgency.TimedOut(ctx, req.Params.RequestTimeout, namedInPath(inputIn(err, false)))
	}
	mu.Lock()
	defer mu.Unlock()
	return api.ExplainPrediction200JSONResponse{Model: pred.Model, Version: pred.Version, Result: pred.Results[0], Steps: steps}, nil
}

func explainStep(e graph.Event) api.ExplainedStep {
	st := api.ExplainedStep{Step: e.Step, Model: e.Model, Outcome: api.ExplainedStepOutcome(e.Outcome),
		DurationMs: float64(e.Took.Microseconds()) / 1000, Inputs: explainTensors(e.Inputs), Outputs: explainTensors(e.Outputs)}
	if e.Version != "" {
		st.Version = &e.Version
	}
	if e.Err != nil {
		msg := e.Err.Error()
		st.Error = &msg
	}
	return st
}

// explainTensors lists ts by name, each tensor's values nested by its shape.
func explainTensors(ts []tensor.Named) []api.ExplainedTensor {
	out := make([]api.ExplainedTensor, 0, len(ts))
	for _, t := range ts {
		data, err := t.Tensor.MarshalJSON()
		if err != nil {
			data = json.RawMessage("null") // a value JSON cannot spell: never a member's declared answer
		}
		out = append(out, api.ExplainedTensor{Name: t.Name, Datatype: oip.Datatype(t.Tensor.DType), Shape: t.Tensor.Shape, Data: data})
	}
	slices.SortFunc(out, func(a, b api.ExplainedTensor) int { return strings.Compare(a.Name, b.Name) })
	return out
}
