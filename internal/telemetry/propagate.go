package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Propagator reads and writes W3C traceparent, tracestate and baggage: on HTTP
// requests, and in the payload of a queued job.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Carrier is a trace context written out for a queued job: W3C header names
// (traceparent, tracestate, baggage) to their values.
type Carrier map[string]string

// Inject writes the trace context and baggage of ctx for a job's task; nil when ctx
// has neither (tracing off, or a request outside any trace), so a task without one
// carries nothing extra.
func Inject(ctx context.Context) Carrier {
	if !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return nil
	}
	c := Carrier{}
	Propagator.Inject(ctx, propagation.MapCarrier(c))
	return c
}

// Extract returns ctx with the remote trace context and baggage of c, for the spans
// of the job that carried it; a nil c returns ctx unchanged.
func Extract(ctx context.Context, c Carrier) context.Context {
	if len(c) == 0 {
		return ctx
	}
	return Propagator.Extract(ctx, propagation.MapCarrier(c))
}

// Carried is a trace context held in memory between a job's submission and its run
// (the in-process queue), without writing it out. The zero value carries nothing.
type Carried struct {
	span trace.SpanContext
	bag  baggage.Baggage
}

// Carry takes the trace context and baggage of ctx.
func Carry(ctx context.Context) Carried {
	return Carried{span: trace.SpanContextFromContext(ctx), bag: baggage.FromContext(ctx)}
}

// Into returns ctx with the carried trace context, as a remote parent, and baggage.
func (c Carried) Into(ctx context.Context) context.Context {
	if c.span.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, c.span)
	}
	if c.bag.Len() > 0 {
		ctx = baggage.ContextWithBaggage(ctx, c.bag)
	}
	return ctx
}
