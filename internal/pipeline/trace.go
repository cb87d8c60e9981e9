package pipeline

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/telemetry"
)

// Tracing gives every stage of a run a span, named by the stage, with Attrs (the
// model and version, which the pipeline does not know), the run's items and the
// stage's step names. A nil *Tracing starts no span at all.
type Tracing struct {
	Tracer trace.Tracer
	Attrs  []attribute.KeyValue
}

// start starts a stage's span; off, it returns ctx and a nil span.
func (t *Tracing) start(ctx context.Context, stage Stage, steps []Step, items int) (context.Context, trace.Span) {
	if t == nil || t.Tracer == nil {
		return ctx, nil
	}
	attrs := append(t.Attrs[:len(t.Attrs):len(t.Attrs)], telemetry.BatchSize.Int(items))
	if len(steps) > 0 {
		names := make([]string, len(steps))
		for i, s := range steps {
			names[i] = s.Name()
		}
		attrs = append(attrs, telemetry.Steps.StringSlice(names))
	}
	return t.Tracer.Start(ctx, string(stage), trace.WithAttributes(attrs...))
}
