package registry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/telemetry"
)

// traceRoute starts the span of a routing decision; off, it returns nil.
func (r *Registry) traceRoute(ctx context.Context, model, version string) trace.Span {
	if r.opts.Tracer == nil {
		return nil
	}
	_, span := r.opts.Tracer.Start(ctx, telemetry.SpanRoute, trace.WithAttributes(
		telemetry.Model.String(model), telemetry.RequestedVersion.String(version)))
	return span
}

// endRoute ends a routing span with the version picked, or the reason there is none.
func endRoute(span trace.Span, v *version, err error) {
	if span == nil {
		return
	}
	if v != nil {
		span.SetAttributes(telemetry.Version.String(v.version))
	}
	telemetry.End(span, err)
}

// tracing is what a loaded pipeline traces with: nil when tracing is off.
func (r *Registry) tracing(name, ver string) *pipeline.Tracing {
	if r.opts.Tracer == nil {
		return nil
	}
	return &pipeline.Tracing{Tracer: r.opts.Tracer, Attrs: []attribute.KeyValue{telemetry.Model.String(name), telemetry.Version.String(ver)}}
}

// runtimeSpan starts the span of an unshared backend call of items; off, nil.
func (l *loaded) runtimeSpan(ctx context.Context, items int) trace.Span {
	if l.tracing == nil {
		return nil
	}
	_, span := l.tracing.Tracer.Start(ctx, telemetry.SpanRuntime, trace.WithAttributes(
		append(l.tracing.Attrs[:len(l.tracing.Attrs):len(l.tracing.Attrs)], telemetry.BatchSize.Int(items), telemetry.BatchRequests.Int(1))...))
	return span
}

// tracedCall records a backend call that dynamic batching shared between requests in
// the trace of each of them: one runtime span per caller, child of that caller's model
// stage, all with the call's start and end, its items (inferd.batch.size) and how many
// requests shared it. This is what Triton does (each request's trace holds the compute
// of the batch it ran in), and it keeps every trace whole under sampling: a single
// span linked to the callers would follow one caller's sampling decision and be
// missing from, or dangling in, the others' traces.
func (l *loaded) tracedCall(callers []context.Context, items int) func(error) {
	start := time.Now()
	attrs := append(l.tracing.Attrs[:len(l.tracing.Attrs):len(l.tracing.Attrs)], telemetry.BatchSize.Int(items), telemetry.BatchRequests.Int(len(callers)))
	spans := make([]trace.Span, 0, len(callers))
	for _, ctx := range callers {
		if !trace.SpanFromContext(ctx).IsRecording() {
			continue // not sampled: its trace keeps nothing
		}
		_, span := l.tracing.Tracer.Start(ctx, telemetry.SpanRuntime, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
		spans = append(spans, span)
	}
	return func(err error) {
		end := time.Now()
		for _, span := range spans {
			telemetry.End(span, err, trace.WithTimestamp(end))
		}
	}
}
