package repository

import (
	"context"
	"time"

	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/pipeline"
)

// delayedEcho is the echo model with a simulated latency per call, so load tests and
// queue tests can hold a job in the running state without a real model.
type delayedEcho struct {
	echo.Model
	delay time.Duration
}

// Predict waits out the delay, or until ctx ends, then returns batch unchanged.
func (m delayedEcho) Predict(ctx context.Context, batch []any) ([]any, error) {
	if m.delay > 0 {
		t := time.NewTimer(m.delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return m.Model.Predict(ctx, batch)
}

func echoPipeline(c *Config, cfgBytes int64) *pipeline.Pipeline {
	return &pipeline.Pipeline{
		Model:    delayedEcho{delay: c.Delay},
		Info:     pipeline.Info{Description: c.Description, ArtifactBytes: cfgBytes},
		Batching: c.batching(),
	}
}
