package echo

import (
	"context"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// Versions are the built-in versions of the echo model.
var Versions = []string{"v1", "v2"}

// Model returns each item as it came, so raw JSON passes through byte for byte.
type Model struct {
	// Delay is how long each call takes: a simulated latency, so load and queue tests
	// can hold a job in the running state without a real model.
	Delay time.Duration
}

// Predict waits out the delay, or until ctx ends, then returns batch unchanged.
func (m Model) Predict(ctx context.Context, batch []any) ([]any, error) {
	if m.Delay > 0 {
		t := time.NewTimer(m.Delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			// Both may be ready at once when the caller's goroutine ran late: a
			// deadline that has passed wins, as it would for a real model.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	return batch, nil
}

// Close does nothing: echo holds no resources.
func (Model) Close() error { return nil }

// Size is 0: echo reads no artifact.
func (Model) Size() int64 { return 0 }

// Inputs, Outputs, ItemInputs and ItemOutputs are empty: echo takes and returns raw
// JSON, not tensors.
func (Model) Inputs() []pipeline.Tensor      { return nil }
func (Model) Outputs() []pipeline.Tensor     { return nil }
func (Model) ItemInputs() []pipeline.Tensor  { return nil }
func (Model) ItemOutputs() []pipeline.Tensor { return nil }

// New returns the pipeline of one built-in echo version.
func New(version string) *pipeline.Pipeline {
	return &pipeline.Pipeline{
		Model: Model{},
		Info: pipeline.Info{
			Description: "Built-in echo model " + version + ": returns its input unchanged.",
		},
	}
}
