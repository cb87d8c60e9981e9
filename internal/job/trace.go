package job

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/telemetry"
)

// startSpan starts a job's span of kind; off (a nil tracer), it returns ctx and nil.
func startSpan(ctx context.Context, tr trace.Tracer, name string, kind trace.SpanKind, rec Record) (context.Context, trace.Span) {
	if tr == nil {
		return ctx, nil
	}
	return tr.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(
		telemetry.JobID.String(rec.ID), telemetry.Model.String(rec.Model),
		telemetry.Version.String(rec.Version), telemetry.JobBatch.Bool(rec.Batch)))
}
