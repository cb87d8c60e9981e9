package httpapi

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

// traced wraps the whole API in otelhttp when tracing is on: it joins the trace of an
// incoming traceparent (and takes its baggage) and starts the server span, which
// observe names by the route once chi has matched it. The probes (probeOperations)
// are left untraced. Off, the handler is returned as it is: no wrapper, no context
// value, no allocation.
func (s *Server) traced(h http.Handler) http.Handler {
	if s.opts.Tracer == nil {
		return h
	}
	probes := probePaths(s.ops)
	return otelhttp.NewHandler(h, "inferd",
		otelhttp.WithFilter(func(r *http.Request) bool { return !probes[r.URL.Path] }),
		otelhttp.WithTracerProvider(s.opts.TracerProvider),
		otelhttp.WithPropagators(telemetry.Propagator),
		// The route is known only after routing; until observe renames it, the span is
		// named by the method alone, as semantic conventions name a span without a route.
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }),
	)
}

// nameSpan names the server span "METHOD /route/{param}" and records the route and the
// contract's operation, once the request is done and chi has matched the route.
func nameSpan(r *http.Request, route, op string) {
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

// tracedValidation gives validate a span of its own, which ends when the request is
// passed on (the handler's spans are then the server span's children, not the
// validator's) or refused, then with an error status.
func (s *Server) tracedValidation(validate func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	if s.opts.Tracer == nil {
		return validate
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			parent := trace.SpanFromContext(r.Context())
			ctx, span := s.opts.Tracer.Start(r.Context(), telemetry.SpanValidate)
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

// traceProblem records a problem on the span current where it is written: its code,
// and an error status when it is the server's fault (a client's mistake is not an
// error of the server span, as semantic conventions have it; the spans below it that
// failed say so themselves).
func traceProblem(ctx context.Context, p api.Problem) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(telemetry.ProblemCode.String(p.Code))
	if p.Status >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, p.Detail)
	}
}
