package provider

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/inferd/inferd/internal/telemetry"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of inferd's own spans.
const ScopeName = "github.com/inferd/inferd"

// The exporters OTEL_TRACES_EXPORTER may name. ExporterNone (and "") is tracing off.
const (
	ExporterNone    = "none"
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
)

// ErrExporter is returned for an exporter inferd does not know.
var ErrExporter = errors.New("unknown traces exporter")

// Options say how to trace. The zero value is tracing off.
type Options struct {
	// Exporter is ExporterOTLP (OTLP over HTTP/protobuf to the endpoint that the
	// standard OTEL_EXPORTER_OTLP_* variables name, which the exporter reads itself),
	// ExporterConsole (spans as JSON on Stdout), or ExporterNone or "" for off.
	Exporter string
	// ServiceName is service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES
	// say otherwise; "" leaves the SDK's default.
	ServiceName string
	// Provider, when set, is used instead of one built from Exporter (tests pass one
	// around an in-memory exporter); Shutdown leaves it to its owner.
	Provider trace.TracerProvider
	// Logger receives export errors; nil means slog.Default().
	Logger *slog.Logger
}

// Tracing is the tracer of a process. Its Tracer is nil when tracing is off.
type Tracing struct {
	// Tracer starts inferd's spans; nil: tracing is off.
	Tracer trace.Tracer
	// Provider is the tracer provider (otelhttp's spans come from it); nil when off.
	Provider trace.TracerProvider
	shutdown func(context.Context) error
}

// New builds the tracing opts ask for. The sampler (OTEL_TRACES_SAMPLER and _ARG,
// parentbased_always_on by default) and the resource's OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES are read by the SDK from the environment.
func New(ctx context.Context, opts Options) (*Tracing, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Provider != nil {
		return &Tracing{Tracer: opts.Provider.Tracer(ScopeName), Provider: opts.Provider}, nil
	}
	var exp sdktrace.SpanExporter
	var err error
	switch opts.Exporter {
	case "", ExporterNone:
		return &Tracing{}, nil
	case ExporterOTLP:
		exp, err = otlptracehttp.New(ctx)
	case ExporterConsole:
		exp, err = stdouttrace.New(stdouttrace.WithWriter(os.Stdout))
	default:
		return nil, fmt.Errorf("%w %q: want %s, %s or %s", ErrExporter, opts.Exporter, ExporterOTLP, ExporterConsole, ExporterNone)
	}
	if err != nil {
		return nil, fmt.Errorf("starting the %s traces exporter: %w", opts.Exporter, err)
	}
	detectors := []resource.Option{resource.WithTelemetrySDK()}
	if opts.ServiceName != "" {
		detectors = append(detectors, resource.WithAttributes(attribute.String("service.name", opts.ServiceName)))
	}
	// Last, so that OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
	detectors = append(detectors, resource.WithFromEnv())
	res, err := resource.New(ctx, detectors...)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("reading OTEL_RESOURCE_ATTRIBUTES: %w", err), exp.Shutdown(ctx))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	// Export failures (a collector that is down) are logged, not fatal: tracing must
	// never take serving down with it.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing", "error", err)
	}))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(telemetry.Propagator)
	return &Tracing{Tracer: tp.Tracer(ScopeName), Provider: tp, shutdown: tp.Shutdown}, nil
}

// Shutdown exports the spans still buffered and stops the exporter; ctx bounds how
// long it may take. It does nothing when tracing is off or the provider was given.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	if err := t.shutdown(ctx); err != nil {
		return fmt.Errorf("flushing traces: %w", err)
	}
	return nil
}
