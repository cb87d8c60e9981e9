package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/telemetry"
)

// predict is the model stage of one call: the batcher when the version has one.
func (l *loaded) predict(ctx context.Context, items []any) (out []any, err error) {
	ctx, span := l.modelSpan(ctx, len(items))
	start := time.Now()
	defer func() {
		d := time.Since(start)
		l.obs.Stage(l.name, l.version, pipeline.StageModel, d)
		l.stats.stage(pipeline.StageModel, d)
		if span != nil {
			telemetry.End(span, err)
		}
	}()
	// Deferred last, it runs first: the stage's figures and span see the panic's error.
	defer pipeline.Recover(&err)
	if l.batcher != nil {
		out, err = l.batcher.Do(ctx, items)
	} else {
		out, err = l.call(ctx, items)
	}
	if err == nil && len(out) != len(items) {
		err = fmt.Errorf("%w: the model returned %d values for %d items", pipeline.ErrExecution, len(out), len(items))
	}
	if err != nil && !errors.Is(err, pipeline.ErrExecution) && ctx.Err() == nil {
		err = fmt.Errorf("%w: model: %w", pipeline.ErrExecution, err)
	}
	return out, err
}
