package echo

import (
	"context"

	"github.com/inferd/inferd/internal/pipeline"
)

// Versions are the built-in versions of the echo model.
var Versions = []string{"v1", "v2"}

// Model returns each item as it came, so raw JSON passes through byte for byte.
type Model struct{}

// Predict returns batch unchanged.
func (Model) Predict(_ context.Context, batch []any) ([]any, error) { return batch, nil }

// Close does nothing: echo holds no resources.
func (Model) Close() error { return nil }

// New returns the pipeline of one echo version.
func New(version string) *pipeline.Pipeline {
	return &pipeline.Pipeline{
		Model: Model{},
		Info: pipeline.Info{
			Description: "Built-in echo model " + version + ": returns its input unchanged.",
		},
	}
}
