package daemon

import (
	"context"
	"encoding/json"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// Predictor runs jobs through the registry, counted as async predictions.
type Predictor struct{ Registry *registry.Registry }

func (p Predictor) Predict(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, error) {
	pred, err := p.Registry.Predict(ctx, registry.Request{Model: model, Version: version, Items: items, Mode: registry.ModeAsync})
	return pred.Results, err
}

var _ job.EachPredictor = Predictor{}

// PredictEach runs a batch job whose items fail alone (on_error: continue).
func (p Predictor) PredictEach(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, []*pipeline.InputError, error) {
	pred, err := p.Registry.Predict(ctx, registry.Request{Model: model, Version: version, Items: items, Mode: registry.ModeAsync, EachItem: true})
	return pred.Results, pred.Failed, err
}
