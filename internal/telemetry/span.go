package telemetry

import (
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// End ends span, with an error status when err is not nil. A nil span (tracing off)
// is nothing to end, so callers need not check.
func End(span trace.Span, err error, opts ...trace.SpanEndOption) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End(opts...)
}
