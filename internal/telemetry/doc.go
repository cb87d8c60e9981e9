// Package telemetry is inferd's OpenTelemetry tracing: the W3C trace context and
// baggage propagators, how a trace context rides in a queued job, and the names of
// the attributes inferd's spans carry.
//
// Tracing off is a nil trace.Tracer: every package that traces holds one and checks
// it for nil before it starts a span, so a server without tracing pays a nil check,
// never a context value or an allocation, on its hot path. The tracer provider the
// OTEL_* settings ask for (off unless they turn it on) is built by the subpackage
// provider.
package telemetry
