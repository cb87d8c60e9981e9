package middleware

import (
	"context"
	"log/slog"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/telemetry"
)

// Tracing configures the server span and the validator's. The zero value traces
// nothing.
type Tracing struct {
	// Tracer starts the validator's span; nil: tracing off, at no cost.
	Tracer trace.Tracer
	// Provider is Tracer's provider, for otelhttp's server span.
	Provider trace.TracerProvider
	// Untraced are the paths left untraced (ProbePaths).
	Untraced map[string]bool
}

// Handler wraps the whole API in otelhttp when tracing is on: it joins the trace of an
// incoming traceparent (and takes its baggage) and starts the server span, which
// NameSpan names by the route once chi has matched it. The Untraced paths (the
// probes') are left untraced. Off, the handler is returned as it is: no wrapper, no
// context value, no allocation.
func (t Tracing) Handler(h http.Handler) http.Handler {
	if t.Tracer == nil {
		return h
	}
	untraced := t.Untraced
	return otelhttp.NewHandler(h, "inferd",
		otelhttp.WithFilter(func(r *http.Request) bool { return !untraced[r.URL.Path] }),
		otelhttp.WithTracerProvider(t.Provider),
		otelhttp.WithPropagators(telemetry.Propagator),
		// The route is known only after routing; until NameSpan renames it, the span is
		// named by the method alone, as semantic conventions name a span without a route.
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }),
	)
}

// NameSpan names the server span "METHOD /route/{param}" and records the route and the
// contract's operation, once the request is done and chi has matched the route.
func NameSpan(r *http.Request, route, op string) {
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	name := r.Method
	if route != "" {
		name += " " + route
		span.SetAttributes(attribute.String("http.route", route))
	}
	span.SetName(name)
	span.SetAttributes(telemetry.Operation.String(op))
}

// addTraceIDs adds the trace and span ids to the request's log line, when it has them.
func addTraceIDs(ctx context.Context, rec *slog.Record) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return
	}
	rec.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
}

// Validation gives validate a span of its own, which ends when the request is passed
// on (the handler's spans are then the server span's children, not the validator's)
// or refused, then with an error status.
func (t Tracing) Validation(validate func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	if t.Tracer == nil {
		return validate
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			parent := trace.SpanFromContext(r.Context())
			ctx, span := t.Tracer.Start(r.Context(), telemetry.SpanValidate)
			passed := false
			validate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				passed = true
				span.End()
				next.ServeHTTP(w, r.WithContext(trace.ContextWithSpan(r.Context(), parent)))
			})).ServeHTTP(w, r.WithContext(ctx))
			if !passed {
				span.SetStatus(codes.Error, "the request was refused")
				span.End()
			}
		})
	}
}

// TraceProblem records a problem on the span current where it is written: its code,
// and an error status when it is the server's fault (a client's mistake is not an
// error of the server span, as semantic conventions have it; the spans below it that
// failed say so themselves).
func TraceProblem(ctx context.Context, p api.Problem) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(telemetry.ProblemCode.String(p.Code))
	if p.Status >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, p.Detail)
	}
}
